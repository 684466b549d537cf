// Elementwise chains (compiler/fusion/rules/90_elementwise.rules): single-use elementwise ops
// become one FusedElementwise whose postfix expression is the chain; where a constraint
// (another consumer, a broadcast operand, a non-float type) must keep it from firing.
// RUN: cann-opt --fuse %s | filecheck %s
// RUN: cann-opt --fuse %s | cann-opt --fuse | filecheck %s
// RUN: cann-opt --fuse %s > %t.1.mlir && cann-opt --fuse %t.1.mlir > %t.2.mlir && diff %t.1.mlir %t.2.mlir

// A DAG of five ops over two inputs, with a scalar constant folded into the expression.
// CHECK-LABEL: func.func @chain
// CHECK-NEXT:    %[[Y:.*]] = cann.FusedElementwise %x, %y {expr = "%0 %1 Add c:0.5 Mul %0 Sub Exp Sigmoid"}
// CHECK-NEXT:    func.return %[[Y]]
func.func @chain(%x: tensor<2x8xf32>, %y: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %h = cann.Const dense<0.5> : tensor<f32>
  %0 = cann.Add %x, %y : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %1 = cann.Mul %0, %h : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %2 = cann.Sub %1, %x : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %3 = cann.Exp %2 : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %4 = cann.Sigmoid %3 : (tensor<2x8xf32>) -> tensor<2x8xf32>
  func.return %4 : tensor<2x8xf32>
}

// A value used twice inside the chain is one input of the kernel (recomputed in UB)...
// CHECK-LABEL: func.func @diamond
// CHECK-NEXT:    %[[Y:.*]] = cann.FusedElementwise %x, %y {expr = "%0 %1 Add Neg Tanh %0 %1 Add Neg Exp Mul"}
// CHECK-NEXT:    func.return %[[Y]]
func.func @diamond(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = cann.Add %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = cann.Neg %0 : (tensor<4xf32>) -> tensor<4xf32>
  %2 = cann.Tanh %1 : (tensor<4xf32>) -> tensor<4xf32>
  %3 = cann.Exp %1 : (tensor<4xf32>) -> tensor<4xf32>
  %4 = cann.Mul %2, %3 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %4 : tensor<4xf32>
}

// ...but a value with a consumer outside the chain is kept: the chain stops there.
// CHECK-LABEL: func.func @escapes
// CHECK-NEXT:    %[[A:.*]] = cann.FusedElementwise %x, %y {expr = "%0 %1 Add Neg"}
// CHECK-NEXT:    %[[B:.*]] = cann.FusedElementwise %[[A]] {expr = "%0 Tanh %0 Exp Mul"}
// CHECK-NEXT:    func.return %[[A]], %[[B]]
func.func @escapes(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = cann.Add %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = cann.Neg %0 : (tensor<4xf32>) -> tensor<4xf32>
  %2 = cann.Tanh %1 : (tensor<4xf32>) -> tensor<4xf32>
  %3 = cann.Exp %1 : (tensor<4xf32>) -> tensor<4xf32>
  %4 = cann.Mul %2, %3 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %1, %4 : tensor<4xf32>, tensor<4xf32>
}

// A non-scalar broadcast operand: the vector kernel cannot broadcast it across layouts.
// CHECK-LABEL: func.func @broadcast_blocks
// CHECK-NEXT:    cann.Add
// CHECK-NEXT:    cann.Exp
func.func @broadcast_blocks(%x: tensor<2x8xf32>, %b: tensor<8xf32>) -> tensor<2x8xf32> {
  %0 = cann.Add %x, %b : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  %1 = cann.Exp %0 : (tensor<2x8xf32>) -> tensor<2x8xf32>
  func.return %1 : tensor<2x8xf32>
}

// Integer ops are not a float vector chain.
// CHECK-LABEL: func.func @int_blocks
// CHECK-NEXT:    cann.Add
// CHECK-NEXT:    cann.Mul
func.func @int_blocks(%x: tensor<4xi32>, %y: tensor<4xi32>) -> tensor<4xi32> {
  %0 = cann.Add %x, %y : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %1 = cann.Mul %0, %x : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  func.return %1 : tensor<4xi32>
}

// More than four tensor inputs: the chain stops at four.
// CHECK-LABEL: func.func @five_inputs
// CHECK-NEXT:    %[[A:.*]] = cann.FusedElementwise %a, %b, %c, %d {expr = "%0 %1 Add %2 Add %3 Add"}
// CHECK-NEXT:    cann.Add %[[A]], %e
func.func @five_inputs(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<4xf32>, %d: tensor<4xf32>, %e: tensor<4xf32>) -> tensor<4xf32> {
  %0 = cann.Add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = cann.Add %0, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = cann.Add %1, %d : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %3 = cann.Add %2, %e : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %3 : tensor<4xf32>
}
