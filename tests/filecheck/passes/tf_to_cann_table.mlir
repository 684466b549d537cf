// RUN: cann-opt --tf-to-cann %s | filecheck %s
// One function per row of the mapping table (compiler/conversions/tf_to_cann/legalization.py): the CANN op and how
// each TF attribute / constant input is converted.  TF ops are written in generic form.

// CHECK-LABEL: func.func @depthwise
// CHECK: cann.DepthwiseConv2D %x, %w {strides = array<i64: 1, 2, 2, 1>, pads = array<i64: 0, 1, 0, 1>, dilations = array<i64: 1, 1, 1, 1>, data_format = "NHWC"} : (tensor<1x8x8x3xf32>, tensor<3x3x3x2xf32>) -> tensor<1x4x4x6xf32>
func.func @depthwise(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x2xf32>) -> tensor<1x4x4x6xf32> {
  %0 = "tf.DepthwiseConv2dNative"(%x, %w) {strides = array<i64: 1, 2, 2, 1>, padding = "SAME", data_format = "NHWC", dilations = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x3xf32>, tensor<3x3x3x2xf32>) -> tensor<1x4x4x6xf32>
  func.return %0 : tensor<1x4x4x6xf32>
}

// transpose_a -> transpose_x1, transpose_b -> transpose_x2
// CHECK-LABEL: func.func @matmul
// CHECK: cann.MatMulV2 %a, %b {transpose_x1 = true, transpose_x2 = false} : (tensor<3x2xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
func.func @matmul(%a: tensor<3x2xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %0 = "tf.MatMul"(%a, %b) {transpose_a = true, transpose_b = false} : (tensor<3x2xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  func.return %0 : tensor<2x4xf32>
}

// adj_x -> adj_x1, adj_y -> adj_x2
// CHECK-LABEL: func.func @batch_matmul
// CHECK: cann.BatchMatMulV2 %a, %b {adj_x1 = false, adj_x2 = true} : (tensor<2x3x4xf32>, tensor<1x5x4xf32>) -> tensor<2x3x5xf32>
func.func @batch_matmul(%a: tensor<2x3x4xf32>, %b: tensor<1x5x4xf32>) -> tensor<2x3x5xf32> {
  %0 = "tf.BatchMatMulV2"(%a, %b) {adj_x = false, adj_y = true} : (tensor<2x3x4xf32>, tensor<1x5x4xf32>) -> tensor<2x3x5xf32>
  func.return %0 : tensor<2x3x5xf32>
}

// FusedBatchNormV3 (inference, side outputs unused) -> BNInfer
// CHECK-LABEL: func.func @batch_norm
// CHECK: cann.BNInfer %x, %s, %o, %m, %v {epsilon = 1.000000e-03 : f32, data_format = "NHWC"} : (tensor<1x4x4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x4x4x3xf32>
func.func @batch_norm(%x: tensor<1x4x4x3xf32>, %s: tensor<3xf32>, %o: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<1x4x4x3xf32> {
  %y, %bm, %bv, %r1, %r2, %r3 = "tf.FusedBatchNormV3"(%x, %s, %o, %m, %v) {epsilon = 1.0e-03 : f32, data_format = "NHWC", is_training = false} : (tensor<1x4x4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<1x4x4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<*xf32>)
  func.return %y : tensor<1x4x4x3xf32>
}

// Activations keep their names; LeakyRelu alpha -> negative_slope.
// CHECK-LABEL: func.func @activations
// CHECK: %[[A:.*]] = cann.Relu6 %x
// CHECK: %[[B:.*]] = cann.Sigmoid %[[A]]
// CHECK: %[[C:.*]] = cann.Tanh %[[B]]
// CHECK: %[[D:.*]] = cann.Elu %[[C]] {alpha = 1.000000e+00 : f32}
// CHECK: %[[E:.*]] = cann.LeakyRelu %[[D]] {negative_slope = 1.000000e-01 : f32}
// CHECK: %[[F:.*]] = cann.Neg %[[E]]
// CHECK: %[[G:.*]] = cann.Erf %[[F]]
// CHECK: %[[H:.*]] = cann.Erfc %[[G]]
// CHECK: %[[I:.*]] = cann.Square %[[H]]
// CHECK: %[[J:.*]] = cann.Sqrt %[[I]]
// CHECK: %[[K:.*]] = cann.Rsqrt %[[J]]
// CHECK: cann.SoftmaxV2 %[[K]] {axes = array<i64: -1>}
func.func @activations(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = "tf.Relu6"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = "tf.Sigmoid"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = "tf.Tanh"(%1) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = "tf.Elu"(%2) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = "tf.LeakyRelu"(%3) {alpha = 0.1 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = "tf.Neg"(%4) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %6 = "tf.Erf"(%5) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %7 = "tf.Erfc"(%6) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %8 = "tf.Square"(%7) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %9 = "tf.Sqrt"(%8) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %10 = "tf.Rsqrt"(%9) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %11 = "tf.Softmax"(%10) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %11 : tensor<2x3xf32>
}

// Add and AddV2 -> Add; binary ops broadcast.
// CHECK-LABEL: func.func @binary
// CHECK: %[[A:.*]] = cann.Add %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK: %[[B:.*]] = cann.Add %[[A]], %y
// CHECK: %[[C:.*]] = cann.Mul %[[B]], %y
// CHECK: %[[D:.*]] = cann.Sub %[[C]], %y
// CHECK: %[[E:.*]] = cann.RealDiv %[[D]], %y
// CHECK: %[[F:.*]] = cann.Maximum %[[E]], %y
// CHECK: %[[G:.*]] = cann.Minimum %[[F]], %y
// CHECK: %[[H:.*]] = cann.Pow %[[G]], %y
// CHECK: %[[I:.*]] = cann.SquaredDifference %[[H]], %y
// CHECK: cann.SelectV2 %c, %[[I]], %x : (tensor<2x1xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
func.func @binary(%x: tensor<2x3xf32>, %y: tensor<3xf32>, %c: tensor<2x1xi1>) -> tensor<2x3xf32> {
  %0 = "tf.AddV2"(%x, %y) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = "tf.Add"(%0, %y) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %2 = "tf.Mul"(%1, %y) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %3 = "tf.Sub"(%2, %y) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %4 = "tf.RealDiv"(%3, %y) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %5 = "tf.Maximum"(%4, %y) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %6 = "tf.Minimum"(%5, %y) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %7 = "tf.Pow"(%6, %y) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %8 = "tf.SquaredDifference"(%7, %y) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %9 = "tf.SelectV2"(%c, %8, %x) : (tensor<2x1xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %9 : tensor<2x3xf32>
}

// Pools keep ksize/strides 4-tuples and the padding string.
// CHECK-LABEL: func.func @pools
// CHECK: cann.MaxPool %x {ksize = array<i64: 1, 3, 3, 1>, strides = array<i64: 1, 2, 2, 1>, padding = "SAME", data_format = "NHWC"} : (tensor<1x9x9x4xf32>) -> tensor<1x5x5x4xf32>
// CHECK: cann.AvgPool %{{.*}} {ksize = array<i64: 1, 2, 2, 1>, strides = array<i64: 1, 1, 1, 1>, padding = "VALID", data_format = "NHWC"} : (tensor<1x5x5x4xf32>) -> tensor<1x4x4x4xf32>
func.func @pools(%x: tensor<1x9x9x4xf32>) -> tensor<1x4x4x4xf32> {
  %0 = "tf.MaxPool"(%x) {ksize = array<i64: 1, 3, 3, 1>, strides = array<i64: 1, 2, 2, 1>, padding = "SAME", data_format = "NHWC"} : (tensor<1x9x9x4xf32>) -> tensor<1x5x5x4xf32>
  %1 = "tf.AvgPool"(%0) {ksize = array<i64: 1, 2, 2, 1>, strides = array<i64: 1, 1, 1, 1>, padding = "VALID", data_format = "NHWC"} : (tensor<1x5x5x4xf32>) -> tensor<1x4x4x4xf32>
  func.return %1 : tensor<1x4x4x4xf32>
}

// Constant inputs become attributes: Mean axes (negative axes normalised), Transpose perm,
// Pad paddings, ConcatV2 axis; Cast DstT -> dst_type.
// CHECK-LABEL: func.func @const_to_attr
// CHECK: %[[M:.*]] = cann.ReduceMeanD %x {axes = array<i64: 1, 2>, keep_dims = true} : (tensor<1x4x4x3xf32>) -> tensor<1x1x1x3xf32>
// CHECK: %[[S:.*]] = cann.ReduceSumD %x {axes = array<i64: 3>, keep_dims = false} : (tensor<1x4x4x3xf32>) -> tensor<1x4x4xf32>
// CHECK: %[[T:.*]] = cann.TransposeD %x {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x4x4x3xf32>) -> tensor<1x3x4x4xf32>
// CHECK: %[[P:.*]] = cann.PadD %x {paddings = array<i64: 0, 0, 1, 2, 1, 2, 0, 0>} : (tensor<1x4x4x3xf32>) -> tensor<1x7x7x3xf32>
// CHECK: %[[C:.*]] = cann.ConcatV2D %x, %x {concat_dim = 3 : i64, N = 2 : i64} : (tensor<1x4x4x3xf32>, tensor<1x4x4x3xf32>) -> tensor<1x4x4x6xf32>
// CHECK: cann.Cast %[[C]] {dst_type = f16} : (tensor<1x4x4x6xf32>) -> tensor<1x4x4x6xf16>
func.func @const_to_attr(%x: tensor<1x4x4x3xf32>) -> (tensor<1x1x1x3xf32>, tensor<1x4x4xf32>, tensor<1x3x4x4xf32>, tensor<1x7x7x3xf32>, tensor<1x4x4x6xf16>) {
  %ax = "tf.Const"() {value = dense<[-3, 2]> : tensor<2xi32>} : () -> tensor<2xi32>
  %ax3 = "tf.Const"() {value = dense<3> : tensor<i32>} : () -> tensor<i32>
  %perm = "tf.Const"() {value = dense<[0, 3, 1, 2]> : tensor<4xi32>} : () -> tensor<4xi32>
  %pads = "tf.Const"() {value = dense<[[0, 0], [1, 2], [1, 2], [0, 0]]> : tensor<4x2xi32>} : () -> tensor<4x2xi32>
  %0 = "tf.Mean"(%x, %ax) {keep_dims = true} : (tensor<1x4x4x3xf32>, tensor<2xi32>) -> tensor<1x1x1x3xf32>
  %1 = "tf.Sum"(%x, %ax3) {keep_dims = false} : (tensor<1x4x4x3xf32>, tensor<i32>) -> tensor<1x4x4xf32>
  %2 = "tf.Transpose"(%x, %perm) : (tensor<1x4x4x3xf32>, tensor<4xi32>) -> tensor<1x3x4x4xf32>
  %3 = "tf.Pad"(%x, %pads) : (tensor<1x4x4x3xf32>, tensor<4x2xi32>) -> tensor<1x7x7x3xf32>
  %4 = "tf.ConcatV2"(%x, %x, %ax3) {N = 2 : i64} : (tensor<1x4x4x3xf32>, tensor<1x4x4x3xf32>, tensor<i32>) -> tensor<1x4x4x6xf32>
  %5 = "tf.Cast"(%4) {DstT = f16} : (tensor<1x4x4x6xf32>) -> tensor<1x4x4x6xf16>
  func.return %0, %1, %2, %3, %5 : tensor<1x1x1x3xf32>, tensor<1x4x4xf32>, tensor<1x3x4x4xf32>, tensor<1x7x7x3xf32>, tensor<1x4x4x6xf16>
}

// Reshape takes its shape from the (static) result type; Squeeze and ExpandDims are Reshapes.
// GatherV2 axis and StridedSlice begin/end/strides are constant inputs made attributes.
// CHECK-LABEL: func.func @views
// CHECK: %[[R:.*]] = cann.Reshape %x {shape = array<i64: 3, 2>} : (tensor<1x2x3xf32>) -> tensor<3x2xf32>
// CHECK: %[[Q:.*]] = cann.Reshape %x {shape = array<i64: 2, 3>} : (tensor<1x2x3xf32>) -> tensor<2x3xf32>
// CHECK: %[[E:.*]] = cann.Reshape %[[Q]] {shape = array<i64: 2, 3, 1>} : (tensor<2x3xf32>) -> tensor<2x3x1xf32>
// CHECK: %[[G:.*]] = cann.GatherV2D %[[Q]], %i {axis = 1 : i64} : (tensor<2x3xf32>, tensor<4xi32>) -> tensor<2x4xf32>
// CHECK: cann.StridedSliceD %[[Q]] {begin = array<i64: 0, 1>, end = array<i64: 2, 3>, strides = array<i64: 1, 1>, begin_mask = 0 : i64, end_mask = 0 : i64, ellipsis_mask = 0 : i64, new_axis_mask = 0 : i64, shrink_axis_mask = 1 : i64} : (tensor<2x3xf32>) -> tensor<2xf32>
func.func @views(%x: tensor<1x2x3xf32>, %i: tensor<4xi32>) -> (tensor<3x2xf32>, tensor<2x3x1xf32>, tensor<2x4xf32>, tensor<2xf32>) {
  %shape = "tf.Const"() {value = dense<[3, -1]> : tensor<2xi32>} : () -> tensor<2xi32>
  %m1 = "tf.Const"() {value = dense<-1> : tensor<i32>} : () -> tensor<i32>
  %one = "tf.Const"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
  %b = "tf.Const"() {value = dense<[0, 1]> : tensor<2xi32>} : () -> tensor<2xi32>
  %e = "tf.Const"() {value = dense<[2, 3]> : tensor<2xi32>} : () -> tensor<2xi32>
  %s = "tf.Const"() {value = dense<[1, 1]> : tensor<2xi32>} : () -> tensor<2xi32>
  %0 = "tf.Reshape"(%x, %shape) : (tensor<1x2x3xf32>, tensor<2xi32>) -> tensor<3x2xf32>
  %1 = "tf.Squeeze"(%x) {squeeze_dims = [0 : i64]} : (tensor<1x2x3xf32>) -> tensor<2x3xf32>
  %2 = "tf.ExpandDims"(%1, %m1) : (tensor<2x3xf32>, tensor<i32>) -> tensor<2x3x1xf32>
  %3 = "tf.GatherV2"(%1, %i, %one) {batch_dims = 0 : i64} : (tensor<2x3xf32>, tensor<4xi32>, tensor<i32>) -> tensor<2x4xf32>
  %4 = "tf.StridedSlice"(%1, %b, %e, %s) {begin_mask = 0 : i64, end_mask = 0 : i64, ellipsis_mask = 0 : i64, new_axis_mask = 0 : i64, shrink_axis_mask = 1 : i64} : (tensor<2x3xf32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<2xf32>
  func.return %0, %2, %3, %4 : tensor<3x2xf32>, tensor<2x3x1xf32>, tensor<2x4xf32>, tensor<2xf32>
}

// Einsum is decomposed (BERT attention scores): BTNH,BSNH->BNTS = transpose both to B,N-major,
// BatchMatMulV2 over H; the output order needs no final transpose.
// CHECK-LABEL: func.func @einsum
// CHECK-NEXT: %[[Q:.*]] = cann.TransposeD %q {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x5x2x4xf32>) -> tensor<1x2x5x4xf32>
// CHECK-NEXT: %[[K:.*]] = cann.TransposeD %k {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x6x2x4xf32>) -> tensor<1x2x4x6xf32>
// CHECK-NEXT: %[[S:.*]] = cann.BatchMatMulV2 %[[Q]], %[[K]] {adj_x1 = false, adj_x2 = false} : (tensor<1x2x5x4xf32>, tensor<1x2x4x6xf32>) -> tensor<1x2x5x6xf32>
// CHECK-NEXT: func.return %[[S]]
func.func @einsum(%q: tensor<1x5x2x4xf32>, %k: tensor<1x6x2x4xf32>) -> tensor<1x2x5x6xf32> {
  %0 = "tf.Einsum"(%q, %k) {equation = "BTNH,BSNH->BNTS", N = 2 : i64} : (tensor<1x5x2x4xf32>, tensor<1x6x2x4xf32>) -> tensor<1x2x5x6xf32>
  func.return %0 : tensor<1x2x5x6xf32>
}

// Identity-like ops and NoOp vanish; Placeholder forwards its argument; Pack -> Reshape + ConcatV2D.
// CHECK-LABEL: func.func @plumbing
// CHECK-NEXT: %[[A:.*]] = cann.Reshape %arg {shape = array<i64: 1, 3>}
// CHECK-NEXT: %[[B:.*]] = cann.Reshape %arg {shape = array<i64: 1, 3>}
// CHECK-NEXT: %[[P:.*]] = cann.ConcatV2D %[[A]], %[[B]] {concat_dim = 0 : i64, N = 2 : i64} : (tensor<1x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: func.return %[[P]]
func.func @plumbing(%arg: tensor<3xf32>) -> tensor<2x3xf32> {
  %x = "tf.Placeholder"(%arg) : (tensor<3xf32>) -> tensor<3xf32>
  %0 = "tf.Identity"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %1 = "tf.StopGradient"(%0) : (tensor<3xf32>) -> tensor<3xf32>
  %2 = "tf.Snapshot"(%1) : (tensor<3xf32>) -> tensor<3xf32>
  %3:2 = "tf.IdentityN"(%2, %1) : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  %4 = "tf.Pack"(%3#0, %3#1) {axis = 0 : i64, N = 2 : i64} : (tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  "tf.NoOp"() : () -> ()
  func.return %4 : tensor<2x3xf32>
}
