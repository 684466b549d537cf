// RUN: cann-opt -p algebraic-simplify,remove-noops,dce %s | filecheck %s

// ExpandDims / Squeeze views sink through pointwise ops (ReshapeSinksThroughPointwise): Keras'
// Conv1D squeezes the conv's result before its bias and activation; sunk, they stay next to the
// 4-D conv and the Squeeze meets the next ExpandDims, and both fold away.
// CHECK-LABEL: func.func @squeeze_sinks
// CHECK:         %[[A:.*]] = cann.Add %x, %b : (tensor<1x1x8x4xf32>, tensor<4xf32>) -> tensor<1x1x8x4xf32>
// CHECK-NEXT:    %[[R:.*]] = cann.Relu %[[A]] : (tensor<1x1x8x4xf32>) -> tensor<1x1x8x4xf32>
// CHECK-NEXT:    func.return %[[R]]
func.func @squeeze_sinks(%x: tensor<1x1x8x4xf32>) -> tensor<1x1x8x4xf32> {
  %b = cann.Const dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %s = cann.Reshape %x {shape = array<i64: 1, 8, 4>} : (tensor<1x1x8x4xf32>) -> tensor<1x8x4xf32>
  %a = cann.Add %s, %b : (tensor<1x8x4xf32>, tensor<4xf32>) -> tensor<1x8x4xf32>
  %r = cann.Relu %a : (tensor<1x8x4xf32>) -> tensor<1x8x4xf32>
  %e = cann.Reshape %r {shape = array<i64: 1, 1, 8, 4>} : (tensor<1x8x4xf32>) -> tensor<1x1x8x4xf32>
  func.return %e : tensor<1x1x8x4xf32>
}

// Two squeezed values of one shape: the residual Add runs on the 4-D values.
// CHECK-LABEL: func.func @squeeze_pair_sinks
// CHECK-NEXT:    %[[A:.*]] = cann.Add %x, %y : (tensor<1x1x8x4xf32>, tensor<1x1x8x4xf32>) -> tensor<1x1x8x4xf32>
// CHECK-NEXT:    %[[S:.*]] = cann.Reshape %[[A]] {shape = array<i64: 1, 8, 4>}
// CHECK-NEXT:    func.return %[[S]]
func.func @squeeze_pair_sinks(%x: tensor<1x1x8x4xf32>, %y: tensor<1x1x8x4xf32>) -> tensor<1x8x4xf32> {
  %sx = cann.Reshape %x {shape = array<i64: 1, 8, 4>} : (tensor<1x1x8x4xf32>) -> tensor<1x8x4xf32>
  %sy = cann.Reshape %y {shape = array<i64: 1, 8, 4>} : (tensor<1x1x8x4xf32>) -> tensor<1x8x4xf32>
  %a = cann.Add %sx, %sy : (tensor<1x8x4xf32>, tensor<1x8x4xf32>) -> tensor<1x8x4xf32>
  func.return %a : tensor<1x8x4xf32>
}

// A reshape that merges axes (Tensordot's), an operand of another shape, or a constant that is
// not a scalar or a channel vector keep the op where it is.
// CHECK-LABEL: func.func @views_that_stay
// CHECK-NEXT:    %[[C:.*]] = cann.Const
// CHECK-NEXT:    %[[M:.*]] = cann.Reshape %m
// CHECK-NEXT:    cann.Add %[[M]], %[[C]]
// CHECK-NEXT:    %[[S:.*]] = cann.Reshape %x
// CHECK-NEXT:    cann.Add %[[S]], %z
func.func @views_that_stay(%m: tensor<8x4xf32>, %x: tensor<1x1x8x4xf32>, %z: tensor<1x8x4xf32>) -> (tensor<1x8x4xf32>, tensor<1x8x4xf32>) {
  %c = cann.Const dense<1.0> : tensor<8x4xf32>
  %mr = cann.Reshape %m {shape = array<i64: 1, 8, 4>} : (tensor<8x4xf32>) -> tensor<1x8x4xf32>
  %a = cann.Add %mr, %c : (tensor<1x8x4xf32>, tensor<8x4xf32>) -> tensor<1x8x4xf32>
  %s = cann.Reshape %x {shape = array<i64: 1, 8, 4>} : (tensor<1x1x8x4xf32>) -> tensor<1x8x4xf32>
  %b = cann.Add %s, %z : (tensor<1x8x4xf32>, tensor<1x8x4xf32>) -> tensor<1x8x4xf32>
  func.return %a, %b : tensor<1x8x4xf32>, tensor<1x8x4xf32>
}
