// Automatic fusion (compiler/transforms/fusion/auto.py): every producer -> consumer DAG of pointwise ops
// (op kinds Elementwise / Broadcast) of one shape becomes one cann.FusedKernel whose body is
// those ops; a value with a consumer outside the group stays materialized, a broadcast operand
// computed by another op (another shape) stays a kernel of its own.
// RUN: cann-opt --fuse %s | filecheck %s
// RUN: cann-opt --fuse %s | cann-opt --fuse | filecheck %s
// RUN: cann-opt --fuse='auto=false' %s | filecheck %s --check-prefix=OFF
// RUN: cann-opt --fuse='disable=AutomaticUBFusion' %s | filecheck %s --check-prefix=OFF
// RUN: cann-opt --fuse --fusion-report=- %s 2>&1 >/dev/null | filecheck %s --check-prefix=REPORT
// RUN: cann-opt --fuse %s > %t.1.mlir && cann-opt --fuse %t.1.mlir > %t.2.mlir && diff %t.1.mlir %t.2.mlir

// A DAG of five ops over two inputs and a broadcast [8] vector; the scalar constant is copied
// into the body.
// CHECK-LABEL: func.func @chain
// CHECK-NEXT:    %[[Y:.*]] = cann.FusedKernel %x, %y, %b : (tensor<2x8xf32>, tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32> {
// CHECK-NEXT:    ^bb0(%[[X:.*]]: tensor<2x8xf32>, %[[Y2:.*]]: tensor<2x8xf32>, %[[B:.*]]: tensor<8xf32>):
// CHECK-NEXT:      %[[A:.*]] = cann.Add %[[X]], %[[Y2]]
// CHECK-NEXT:      %[[H:.*]] = cann.Const dense<5.000000e-01> : tensor<f32>
// CHECK-NEXT:      %[[M:.*]] = cann.Mul %[[A]], %[[H]]
// CHECK-NEXT:      %[[S:.*]] = cann.Sub %[[M]], %[[X]]
// CHECK-NEXT:      %[[E:.*]] = cann.Exp %[[S]]
// CHECK-NEXT:      %[[Q:.*]] = cann.Add %[[E]], %[[B]] : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT:      %[[G:.*]] = cann.Sigmoid %[[Q]]
// CHECK-NEXT:      cann.Yield %[[G]] : tensor<2x8xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[Y]]
// OFF-LABEL: func.func @chain
// OFF-NOT:     cann.FusedKernel
// OFF:         func.return
func.func @chain(%x: tensor<2x8xf32>, %y: tensor<2x8xf32>, %b: tensor<8xf32>) -> tensor<2x8xf32> {
  %h = cann.Const dense<0.5> : tensor<f32>
  %0 = cann.Add %x, %y : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %1 = cann.Mul %0, %h : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %2 = cann.Sub %1, %x : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %3 = cann.Exp %2 : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %4 = cann.Add %3, %b : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  %5 = cann.Sigmoid %4 : (tensor<2x8xf32>) -> tensor<2x8xf32>
  func.return %5 : tensor<2x8xf32>
}

// A value used twice inside the group is computed once in the body.
// CHECK-LABEL: func.func @diamond
// CHECK-NEXT:    %[[Y:.*]] = cann.FusedKernel %x, %y
// CHECK:           %[[N:.*]] = cann.Neg
// CHECK-NEXT:      %[[T:.*]] = cann.Tanh %[[N]]
// CHECK-NEXT:      %[[E:.*]] = cann.Exp %[[N]]
// CHECK-NEXT:      %[[M:.*]] = cann.Mul %[[T]], %[[E]]
// CHECK-NEXT:      cann.Yield %[[M]]
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[Y]]
func.func @diamond(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = cann.Add %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = cann.Neg %0 : (tensor<4xf32>) -> tensor<4xf32>
  %2 = cann.Tanh %1 : (tensor<4xf32>) -> tensor<4xf32>
  %3 = cann.Exp %1 : (tensor<4xf32>) -> tensor<4xf32>
  %4 = cann.Mul %2, %3 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %4 : tensor<4xf32>
}

// A value with a consumer outside the group is stored as an extra result of the one kernel
// (multi-output fusion), yielded after the root.
// CHECK-LABEL: func.func @escapes
// CHECK-NEXT:    %[[B:.*]], %[[A:.*]] = cann.FusedKernel %x, %y : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
// CHECK:           cann.Add
// CHECK-NEXT:      %[[N:.*]] = cann.Neg
// CHECK-NEXT:      cann.Tanh
// CHECK-NEXT:      cann.Exp
// CHECK-NEXT:      %[[M:.*]] = cann.Mul
// CHECK-NEXT:      cann.Yield %[[M]], %[[N]] : tensor<4xf32>, tensor<4xf32>
// CHECK:         func.return %[[A]], %[[B]]
// REPORT: automatic fusion: 29 pointwise ops in 9 fused kernels
// REPORT: values read by several consumers stored as extra outputs of the kernel computing them (multi-output fusion): 1
// REPORT: pointwise ops left as kernels of their own (why no neighbour took them):
// REPORT-NEXT:   FusedKernel (fused kernel): {{.*}}its operands are graph inputs or constants
// REPORT-NOT:    Cast (elementwise)
func.func @escapes(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = cann.Add %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = cann.Neg %0 : (tensor<4xf32>) -> tensor<4xf32>
  %2 = cann.Tanh %1 : (tensor<4xf32>) -> tensor<4xf32>
  %3 = cann.Exp %1 : (tensor<4xf32>) -> tensor<4xf32>
  %4 = cann.Mul %2, %3 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %1, %4 : tensor<4xf32>, tensor<4xf32>
}

// A broadcast operand computed by pointwise ops of its own shape ([8]) is a kernel of its
// own; the [2, 8] ops are one.
// CHECK-LABEL: func.func @broadcast_operand
// CHECK-NEXT:    %[[V:.*]] = cann.FusedKernel %b
// CHECK:           cann.Mul
// CHECK-NEXT:      cann.Exp
// CHECK:         %[[Y:.*]] = cann.FusedKernel %x, %[[V]] : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
// CHECK:           cann.Add
// CHECK-NEXT:      cann.Relu
func.func @broadcast_operand(%x: tensor<2x8xf32>, %b: tensor<8xf32>) -> tensor<2x8xf32> {
  %0 = cann.Mul %b, %b : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %1 = cann.Exp %0 : (tensor<8xf32>) -> tensor<8xf32>
  %2 = cann.Add %x, %1 : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  %3 = cann.Relu %2 : (tensor<2x8xf32>) -> tensor<2x8xf32>
  func.return %3 : tensor<2x8xf32>
}

// A view (Reshape) between pointwise ops ends a group (the groups have one shape each).
// CHECK-LABEL: func.func @view_splits
// CHECK-NEXT:    %[[A:.*]] = cann.FusedKernel %x
// CHECK:         %[[R:.*]] = cann.Reshape %[[A]]
// CHECK-NEXT:    %[[B:.*]] = cann.FusedKernel %[[R]]
// CHECK:         func.return %[[B]]
func.func @view_splits(%x: tensor<2x8xf32>) -> tensor<2x8x1xf32> {
  %0 = cann.Neg %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %1 = cann.Abs %0 : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %2 = cann.Reshape %1 {shape = array<i64: 2, 8, 1>} : (tensor<2x8xf32>) -> tensor<2x8x1xf32>
  %3 = cann.Add %2, %2 : (tensor<2x8x1xf32>, tensor<2x8x1xf32>) -> tensor<2x8x1xf32>
  %4 = cann.Exp %3 : (tensor<2x8x1xf32>) -> tensor<2x8x1xf32>
  func.return %4 : tensor<2x8x1xf32>
}

// Integer, comparison and select ops are pointwise too: one kernel; any number of inputs.
// CHECK-LABEL: func.func @mixed_types
// CHECK-NEXT:    %[[Y:.*]] = cann.FusedKernel %a, %b, %c, %d, %e
// CHECK:           cann.Add
// CHECK:           cann.Greater
// CHECK:           cann.SelectV2
// CHECK:           cann.Yield
func.func @mixed_types(%a: tensor<4xi32>, %b: tensor<4xi32>, %c: tensor<4xi32>, %d: tensor<4xi32>, %e: tensor<4xi32>) -> tensor<4xi32> {
  %0 = cann.Add %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %1 = cann.Mul %0, %c : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %2 = cann.Greater %1, %d : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  %3 = cann.SelectV2 %2, %1, %e : (tensor<4xi1>, tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  func.return %3 : tensor<4xi32>
}

// A cast between two reductions runs on the second reduction's input tiles (its prologue,
// passes/fuse_reduction_prologue.mlir): no kernel of its own, so the report does not list it.
// CHECK-LABEL: func.func @alone_between_reductions
// CHECK:         %[[P:.*]] = cann.FusedKernel %{{.*}} {prologue}
// CHECK:           cann.Cast
// CHECK:         cann.ReduceSumD %[[P]]
func.func @alone_between_reductions(%x: tensor<4x8xf32>) -> tensor<f16> {
  %0 = cann.ReduceMaxD %x {axes = array<i64: 1>, keep_dims = false} : (tensor<4x8xf32>) -> tensor<4xf32>
  %1 = cann.Cast %0 {dst_type = f16} : (tensor<4xf32>) -> tensor<4xf16>
  %2 = cann.ReduceSumD %1 {axes = array<i64: 0>, keep_dims = false} : (tensor<4xf16>) -> tensor<f16>
  func.return %2 : tensor<f16>
}
