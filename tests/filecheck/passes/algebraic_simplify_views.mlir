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

// A reshape that regroups only the leading axes (Keras' Dense on a 4-D input: the matmul's rows
// [256, 64] viewed as [1, 4, 64, 64]) sinks too: the bias and the swish run on the matmul's
// result, and the view meets the next matmul's flattening view, and both fold away.
// CHECK-LABEL: func.func @rows_view_sinks
// CHECK:         %[[A:.*]] = cann.Add %m, %b : (tensor<256x64xf32>, tensor<64xf32>) -> tensor<256x64xf32>
// CHECK-NEXT:    %[[S:.*]] = cann.Sigmoid %[[A]] : (tensor<256x64xf32>) -> tensor<256x64xf32>
// CHECK-NEXT:    %[[W:.*]] = cann.Mul %[[A]], %[[S]] : (tensor<256x64xf32>, tensor<256x64xf32>) -> tensor<256x64xf32>
// CHECK-NEXT:    func.return %[[W]]
func.func @rows_view_sinks(%m: tensor<256x64xf32>) -> tensor<256x64xf32> {
  %b = cann.Const dense<0.5> : tensor<64xf32>
  %r = cann.Reshape %m {shape = array<i64: 1, 4, 64, 64>} : (tensor<256x64xf32>) -> tensor<1x4x64x64xf32>
  %a = cann.Add %r, %b : (tensor<1x4x64x64xf32>, tensor<64xf32>) -> tensor<1x4x64x64xf32>
  %s = cann.Sigmoid %a : (tensor<1x4x64x64xf32>) -> tensor<1x4x64x64xf32>
  %w = cann.Mul %a, %s : (tensor<1x4x64x64xf32>, tensor<1x4x64x64xf32>) -> tensor<1x4x64x64xf32>
  %f = cann.Reshape %w {shape = array<i64: 256, 64>} : (tensor<1x4x64x64xf32>) -> tensor<256x64xf32>
  func.return %f : tensor<256x64xf32>
}

// A reshape that splits the last axis (a head split), an operand of another shape, or a
// constant that is not a scalar or a channel vector keep the op where it is.
// CHECK-LABEL: func.func @views_that_stay
// CHECK-NEXT:    %[[C:.*]] = cann.Const
// CHECK-NEXT:    %[[M:.*]] = cann.Reshape %m
// CHECK-NEXT:    cann.Add %[[M]], %[[C]]
// CHECK-NEXT:    %[[S:.*]] = cann.Reshape %x
// CHECK-NEXT:    cann.Add %[[S]], %z
// CHECK-NEXT:    %[[H:.*]] = cann.Reshape %q
// CHECK-NEXT:    cann.Relu %[[H]]
func.func @views_that_stay(%m: tensor<8x4xf32>, %x: tensor<1x1x8x4xf32>, %z: tensor<1x8x4xf32>, %q: tensor<8x4xf32>) -> (tensor<1x8x4xf32>, tensor<1x8x4xf32>, tensor<8x2x2xf32>) {
  %c = cann.Const dense<1.0> : tensor<8x4xf32>
  %mr = cann.Reshape %m {shape = array<i64: 1, 8, 4>} : (tensor<8x4xf32>) -> tensor<1x8x4xf32>
  %a = cann.Add %mr, %c : (tensor<1x8x4xf32>, tensor<8x4xf32>) -> tensor<1x8x4xf32>
  %s = cann.Reshape %x {shape = array<i64: 1, 8, 4>} : (tensor<1x1x8x4xf32>) -> tensor<1x8x4xf32>
  %b = cann.Add %s, %z : (tensor<1x8x4xf32>, tensor<1x8x4xf32>) -> tensor<1x8x4xf32>
  %h = cann.Reshape %q {shape = array<i64: 8, 2, 2>} : (tensor<8x4xf32>) -> tensor<8x2x2xf32>
  %hr = cann.Relu %h : (tensor<8x2x2xf32>) -> tensor<8x2x2xf32>
  func.return %a, %b, %hr : tensor<1x8x4xf32>, tensor<1x8x4xf32>, tensor<8x2x2xf32>
}

// A reduction of an ExpandDims / Squeeze view reads the value itself (ReduceThroughUnitReshape):
// Keras' GlobalMaxPooling1D of a squeezed [1, 1, W, C] pool result reduces H and W of the 4-D
// value (the NC1HWC0 reduction), keep_dims false; keep_dims true reduces the matched axis and
// puts the view back on the result.
// CHECK-LABEL: func.func @reduce_reads_through_view
// CHECK-NEXT:    %[[M:.*]] = cann.ReduceMaxD %x {axes = array<i64: 1, 2>, keep_dims = false} : (tensor<1x1x15x48xf32>) -> tensor<1x48xf32>
// CHECK-NEXT:    %[[K:.*]] = cann.ReduceMeanD %x {axes = array<i64: 2>, keep_dims = true} : (tensor<1x1x15x48xf32>) -> tensor<1x1x1x48xf32>
// CHECK-NEXT:    %[[V:.*]] = cann.Reshape %[[K]] {shape = array<i64: 1, 1, 48>} : (tensor<1x1x1x48xf32>) -> tensor<1x1x48xf32>
// CHECK-NEXT:    func.return %[[M]], %[[V]]
func.func @reduce_reads_through_view(%x: tensor<1x1x15x48xf32>) -> (tensor<1x48xf32>, tensor<1x1x48xf32>) {
  %s = cann.Reshape %x {shape = array<i64: 1, 15, 48>} : (tensor<1x1x15x48xf32>) -> tensor<1x15x48xf32>
  %m = cann.ReduceMaxD %s {axes = array<i64: 1>, keep_dims = false} : (tensor<1x15x48xf32>) -> tensor<1x48xf32>
  %k = cann.ReduceMeanD %s {axes = array<i64: 1>, keep_dims = true} : (tensor<1x15x48xf32>) -> tensor<1x1x48xf32>
  func.return %m, %k : tensor<1x48xf32>, tensor<1x1x48xf32>
}

// A reshape that merges axes keeps the reduction on its result.
// CHECK-LABEL: func.func @reduce_of_a_merge_stays
// CHECK-NEXT:    %[[S:.*]] = cann.Reshape %x
// CHECK-NEXT:    cann.ReduceSumD %[[S]]
func.func @reduce_of_a_merge_stays(%x: tensor<1x3x5x8xf32>) -> tensor<1x8xf32> {
  %s = cann.Reshape %x {shape = array<i64: 1, 15, 8>} : (tensor<1x3x5x8xf32>) -> tensor<1x15x8xf32>
  %r = cann.ReduceSumD %s {axes = array<i64: 1>, keep_dims = false} : (tensor<1x15x8xf32>) -> tensor<1x8xf32>
  func.return %r : tensor<1x8xf32>
}

// A reduction of a reduction of the same kind, neither keeping dims, is one reduction
// (ReduceOfReduce): a 3-D pool's depth mean then a global average pool is one mean over axes
// 1..4 of x (the outer axes 1, 2, 3 of [1, 2, 4, 4, 48] are x's 1, 3, 4).  A max of a mean stays
// two reductions.
// CHECK-LABEL: func.func @reduce_of_reduce
// CHECK-NEXT:    %[[M:.*]] = cann.ReduceMeanD %x {axes = array<i64: 1, 2, 3, 4>, keep_dims = false} : (tensor<1x2x2x4x4x48xf32>) -> tensor<1x48xf32>
// CHECK-NEXT:    %[[A:.*]] = cann.ReduceMeanD %x {axes = array<i64: 2>, keep_dims = false}
// CHECK-NEXT:    %[[B:.*]] = cann.ReduceMaxD %[[A]] {axes = array<i64: 1, 2, 3>, keep_dims = false}
// CHECK-NEXT:    func.return %[[M]], %[[B]]
func.func @reduce_of_reduce(%x: tensor<1x2x2x4x4x48xf32>) -> (tensor<1x48xf32>, tensor<1x48xf32>) {
  %0 = cann.ReduceMeanD %x {axes = array<i64: 2>, keep_dims = false} : (tensor<1x2x2x4x4x48xf32>) -> tensor<1x2x4x4x48xf32>
  %1 = cann.ReduceMeanD %0 {axes = array<i64: 1, 2, 3>, keep_dims = false} : (tensor<1x2x4x4x48xf32>) -> tensor<1x48xf32>
  %2 = cann.ReduceMeanD %x {axes = array<i64: 2>, keep_dims = false} : (tensor<1x2x2x4x4x48xf32>) -> tensor<1x2x4x4x48xf32>
  %3 = cann.ReduceMaxD %2 {axes = array<i64: 1, 2, 3>, keep_dims = false} : (tensor<1x2x4x4x48xf32>) -> tensor<1x48xf32>
  func.return %1, %3 : tensor<1x48xf32>, tensor<1x48xf32>
}

// A global mean of an AvgPool whose windows tile H and W (ksize = strides dividing them) is the
// mean of the pool's input (ReduceOfTilingPool), here through the view that unfolds the (N*D)
// batch of a 3-D pool ([4, 4, 4, 48] -> [1, 2, 2, 4, 4, 48], the view now of the input); a max of
// a MaxPool alike (2-D, no view).  Windows that overlap (ksize 3, strides 2), a mean that keeps
// W, or a mean of a MaxPool keep the pool.
// CHECK-LABEL: func.func @reduce_of_tiling_pool
// CHECK-NEXT:    %[[V:.*]] = cann.Reshape %x {shape = array<i64: 1, 2, 2, 8, 8, 48>} : (tensor<4x8x8x48xf32>) -> tensor<1x2x2x8x8x48xf32>
// CHECK-NEXT:    %[[M:.*]] = cann.ReduceMeanD %[[V]] {axes = array<i64: 1, 2, 3, 4>, keep_dims = false} : (tensor<1x2x2x8x8x48xf32>) -> tensor<1x48xf32>
// CHECK-NEXT:    %[[X:.*]] = cann.ReduceMaxD %y {axes = array<i64: 1, 2>, keep_dims = false} : (tensor<2x6x9x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT:    %[[O:.*]] = cann.AvgPool %y {{{.*}}ksize = array<i64: 1, 3, 3, 1>
// CHECK-NEXT:    cann.ReduceMeanD %[[O]]
// CHECK-NEXT:    %[[P:.*]] = cann.AvgPool %y {{{.*}}ksize = array<i64: 1, 2, 3, 1>
// CHECK-NEXT:    cann.ReduceMeanD %[[P]] {axes = array<i64: 1>
// CHECK-NEXT:    %[[Q:.*]] = cann.MaxPool %y
// CHECK-NEXT:    cann.ReduceMeanD %[[Q]]
// CHECK-NEXT:    func.return %[[M]], %[[X]]
func.func @reduce_of_tiling_pool(%x: tensor<4x8x8x48xf32>, %y: tensor<2x6x9x8xf32>) -> (tensor<1x48xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x3x8xf32>, tensor<2x8xf32>) {
  %0 = cann.AvgPool %x {ksize = array<i64: 1, 2, 2, 1>, strides = array<i64: 1, 2, 2, 1>, padding = "VALID", data_format = "NHWC"} : (tensor<4x8x8x48xf32>) -> tensor<4x4x4x48xf32>
  %1 = cann.Reshape %0 {shape = array<i64: 1, 2, 2, 4, 4, 48>} : (tensor<4x4x4x48xf32>) -> tensor<1x2x2x4x4x48xf32>
  %2 = cann.ReduceMeanD %1 {axes = array<i64: 1, 2, 3, 4>, keep_dims = false} : (tensor<1x2x2x4x4x48xf32>) -> tensor<1x48xf32>
  %3 = cann.MaxPool %y {ksize = array<i64: 1, 2, 3, 1>, strides = array<i64: 1, 2, 3, 1>, padding = "VALID", data_format = "NHWC"} : (tensor<2x6x9x8xf32>) -> tensor<2x3x3x8xf32>
  %4 = cann.ReduceMaxD %3 {axes = array<i64: 1, 2>, keep_dims = false} : (tensor<2x3x3x8xf32>) -> tensor<2x8xf32>
  %5 = cann.AvgPool %y {ksize = array<i64: 1, 3, 3, 1>, strides = array<i64: 1, 2, 2, 1>, padding = "VALID", data_format = "NHWC"} : (tensor<2x6x9x8xf32>) -> tensor<2x2x4x8xf32>
  %6 = cann.ReduceMeanD %5 {axes = array<i64: 1, 2>, keep_dims = false} : (tensor<2x2x4x8xf32>) -> tensor<2x8xf32>
  %7 = cann.AvgPool %y {ksize = array<i64: 1, 2, 3, 1>, strides = array<i64: 1, 2, 3, 1>, padding = "VALID", data_format = "NHWC"} : (tensor<2x6x9x8xf32>) -> tensor<2x3x3x8xf32>
  %8 = cann.ReduceMeanD %7 {axes = array<i64: 1>, keep_dims = false} : (tensor<2x3x3x8xf32>) -> tensor<2x3x8xf32>
  %9 = cann.MaxPool %y {ksize = array<i64: 1, 2, 3, 1>, strides = array<i64: 1, 2, 3, 1>, padding = "VALID", data_format = "NHWC"} : (tensor<2x6x9x8xf32>) -> tensor<2x3x3x8xf32>
  %10 = cann.ReduceMeanD %9 {axes = array<i64: 1, 2>, keep_dims = false} : (tensor<2x3x3x8xf32>) -> tensor<2x8xf32>
  func.return %2, %4, %6, %8, %10 : tensor<1x48xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x3x8xf32>, tensor<2x8xf32>
}
