// RUN: cann-opt --tf-to-cann %s | filecheck %s
// The table rows tf_to_cann_table.mlir leaves out (one function per group of rows): forwarding
// (PreventGradient), Shape of a static tensor -> Const, FusedBatchNorm/V2 -> BNInfer,
// BatchMatMul/V3 -> BatchMatMulV2, Exp/Log/Abs/Reciprocal/Inv, Max/Min/Prod -> Reduce*D (constant
// axes, negative and repeated-free, i32/i64), Select (same-shape and a vector condition, which
// is reshaped to [n, 1]), comparisons and logic, PadV2 (0 -> PadD, else PadV2D), MirrorPad,
// Fill/Range of constants -> FillD (dims an attribute) / Range, Split/SplitV (-1 resolved) -> SplitD/SplitVD, and
// ResizeBilinear/ResizeNearestNeighbor -> ResizeBilinearV2/ResizeNearestNeighborV2.
// CHECK-LABEL: func.func @prevent_gradient_shape(
// CHECK-NEXT: %0 = cann.Const dense<[2, 3]> : tensor<2xi32>
// CHECK-NEXT: func.return %x, %0 : tensor<2x3xf32>, tensor<2xi32>
func.func @prevent_gradient_shape(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2xi32>) {
  %0 = "tf.PreventGradient"(%x) {message = "no"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = "tf.Shape"(%0) : (tensor<2x3xf32>) -> tensor<2xi32>
  func.return %0, %1 : tensor<2x3xf32>, tensor<2xi32>
}

// CHECK-LABEL: func.func @batch_norm_v1_v2(
// CHECK-NEXT: %y = cann.BNInfer %x, %s, %s, %s, %s {epsilon = 1.000000e-03 : f32, data_format = "NHWC"} : (tensor<1x2x2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x2x2x3xf32>
// CHECK-NEXT: %y2 = cann.BNInfer %x, %s, %s, %s, %s {epsilon = 1.000000e-05 : f32, data_format = "NHWC"} : (tensor<1x2x2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x2x2x3xf32>
// CHECK-NEXT: func.return %y, %y2 : tensor<1x2x2x3xf32>, tensor<1x2x2x3xf32>
func.func @batch_norm_v1_v2(%x: tensor<1x2x2x3xf32>, %s: tensor<3xf32>) -> (tensor<1x2x2x3xf32>, tensor<1x2x2x3xf32>) {
  %y, %m, %v, %r1, %r2 = "tf.FusedBatchNorm"(%x, %s, %s, %s, %s) {epsilon = 1.0e-03 : f32, data_format = "NHWC", is_training = false} : (tensor<1x2x2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<1x2x2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  %y2, %m2, %v2, %q1, %q2 = "tf.FusedBatchNormV2"(%x, %s, %s, %s, %s) {epsilon = 1.0e-05 : f32, data_format = "NHWC", is_training = false} : (tensor<1x2x2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<1x2x2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  func.return %y, %y2 : tensor<1x2x2x3xf32>, tensor<1x2x2x3xf32>
}

// CHECK-LABEL: func.func @batch_matmul_v1_v3(
// CHECK-NEXT: %0 = cann.BatchMatMulV2 %a, %b {adj_x1 = false, adj_x2 = false} : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
// CHECK-NEXT: %1 = cann.BatchMatMulV2 %a, %a {adj_x1 = true, adj_x2 = false} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x4x4xf32>
// CHECK-NEXT: func.return %0, %1 : tensor<2x3x5xf32>, tensor<2x4x4xf32>
func.func @batch_matmul_v1_v3(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) -> (tensor<2x3x5xf32>, tensor<2x4x4xf32>) {
  %0 = "tf.BatchMatMul"(%a, %b) {adj_x = false, adj_y = false} : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  %1 = "tf.BatchMatMulV3"(%a, %a) {adj_x = true, adj_y = false, Ta = f32, Tb = f32, Tout = f32} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x4x4xf32>
  func.return %0, %1 : tensor<2x3x5xf32>, tensor<2x4x4xf32>
}

// CHECK-LABEL: func.func @unary_math(
// CHECK-NEXT: %0 = cann.Exp %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %1 = cann.Log %0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %2 = cann.Abs %1 : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %3 = cann.Reciprocal %2 : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %4 = cann.Reciprocal %3 : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: func.return %4 : tensor<2x3xf32>
func.func @unary_math(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = "tf.Exp"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = "tf.Log"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = "tf.Abs"(%1) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = "tf.Reciprocal"(%2) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = "tf.Inv"(%3) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %4 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @reductions(
// CHECK-NEXT: %ax = cann.Const dense<1> : tensor<i32>
// CHECK-NEXT: %ax2 = cann.Const dense<[-1, 1]> : tensor<2xi32>
// CHECK-NEXT: %ax0 = cann.Const dense<0> : tensor<1xi64>
// CHECK-NEXT: %0 = cann.ReduceMaxD %x {axes = array<i64: 1>, keep_dims = false} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT: %1 = cann.ReduceMinD %x {axes = array<i64: 1, 2>, keep_dims = true} : (tensor<2x3x4xf32>) -> tensor<2x1x1xf32>
// CHECK-NEXT: %2 = cann.ReduceProdD %x {axes = array<i64: 0>, keep_dims = false} : (tensor<2x3x4xf32>) -> tensor<3x4xf32>
// CHECK-NEXT: func.return %0, %1, %2 : tensor<2x4xf32>, tensor<2x1x1xf32>, tensor<3x4xf32>
func.func @reductions(%x: tensor<2x3x4xf32>) -> (tensor<2x4xf32>, tensor<2x1x1xf32>, tensor<3x4xf32>) {
  %ax = "tf.Const"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
  %ax2 = "tf.Const"() {value = dense<[-1, 1]> : tensor<2xi32>} : () -> tensor<2xi32>
  %ax0 = "tf.Const"() {value = dense<0> : tensor<1xi64>} : () -> tensor<1xi64>
  %0 = "tf.Max"(%x, %ax) {keep_dims = false} : (tensor<2x3x4xf32>, tensor<i32>) -> tensor<2x4xf32>
  %1 = "tf.Min"(%x, %ax2) {keep_dims = true} : (tensor<2x3x4xf32>, tensor<2xi32>) -> tensor<2x1x1xf32>
  %2 = "tf.Prod"(%x, %ax0) {keep_dims = false} : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<3x4xf32>
  func.return %0, %1, %2 : tensor<2x4xf32>, tensor<2x1x1xf32>, tensor<3x4xf32>
}

// CHECK-LABEL: func.func @select(
// CHECK-NEXT: %0 = cann.SelectV2 %cs, %x, %y : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %1 = cann.Reshape %c {shape = array<i64: 2, 1>} : (tensor<2xi1>) -> tensor<2x1xi1>
// CHECK-NEXT: %2 = cann.SelectV2 %1, %x, %y : (tensor<2x1xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: func.return %0, %2 : tensor<2x3xf32>, tensor<2x3xf32>
func.func @select(%c: tensor<2xi1>, %cs: tensor<2x3xi1>, %x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = "tf.Select"(%cs, %x, %y) : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = "tf.Select"(%c, %x, %y) : (tensor<2xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0, %1 : tensor<2x3xf32>, tensor<2x3xf32>
}

// CHECK-LABEL: func.func @compares(
// CHECK-NEXT: %0 = cann.Greater %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
// CHECK-NEXT: %1 = cann.GreaterEqual %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
// CHECK-NEXT: %2 = cann.Less %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
// CHECK-NEXT: %3 = cann.LessEqual %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
// CHECK-NEXT: %4 = cann.Equal %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
// CHECK-NEXT: %5 = cann.NotEqual %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
// CHECK-NEXT: %6 = cann.LogicalAnd %0, %1 : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
// CHECK-NEXT: %7 = cann.LogicalOr %6, %2 : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
// CHECK-NEXT: %8 = cann.LogicalNot %7 : (tensor<2x3xi1>) -> tensor<2x3xi1>
// CHECK-NEXT: %9 = cann.LogicalAnd %8, %3 : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
// CHECK-NEXT: %10 = cann.LogicalOr %9, %4 : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
// CHECK-NEXT: %11 = cann.LogicalAnd %10, %5 : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
// CHECK-NEXT: func.return %11 : tensor<2x3xi1>
func.func @compares(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xi1> {
  %0 = "tf.Greater"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %1 = "tf.GreaterEqual"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %2 = "tf.Less"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %3 = "tf.LessEqual"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %4 = "tf.Equal"(%a, %b) {incompatible_shape_error = true} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %5 = "tf.NotEqual"(%a, %b) {incompatible_shape_error = true} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %6 = "tf.LogicalAnd"(%0, %1) : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  %7 = "tf.LogicalOr"(%6, %2) : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  %8 = "tf.LogicalNot"(%7) : (tensor<2x3xi1>) -> tensor<2x3xi1>
  %9 = "tf.LogicalAnd"(%8, %3) : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  %10 = "tf.LogicalOr"(%9, %4) : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  %11 = "tf.LogicalAnd"(%10, %5) : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  func.return %11 : tensor<2x3xi1>
}

// CHECK-LABEL: func.func @pads(
// CHECK-NEXT: %p = cann.Const dense<[[0, 1], [2, 1]]> : tensor<2x2xi32>
// CHECK-NEXT: %zero = cann.Const dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT: %v = cann.Const dense<-1.500000e+00> : tensor<f32>
// CHECK-NEXT: %0 = cann.PadD %x {paddings = array<i64: 0, 1, 2, 1>} : (tensor<2x3xf32>) -> tensor<3x6xf32>
// CHECK-NEXT: %1 = cann.PadV2D %x {paddings = array<i64: 0, 1, 2, 1>, constant_values = -1.500000e+00 : f32} : (tensor<2x3xf32>) -> tensor<3x6xf32>
// CHECK-NEXT: %2 = cann.MirrorPad %x {paddings = array<i64: 0, 1, 2, 1>, mode = "REFLECT"} : (tensor<2x3xf32>) -> tensor<3x6xf32>
// CHECK-NEXT: %3 = cann.MirrorPad %x {paddings = array<i64: 0, 1, 2, 1>, mode = "SYMMETRIC"} : (tensor<2x3xf32>) -> tensor<3x6xf32>
// CHECK-NEXT: func.return %0, %1, %2, %3 : tensor<3x6xf32>, tensor<3x6xf32>, tensor<3x6xf32>, tensor<3x6xf32>
func.func @pads(%x: tensor<2x3xf32>) -> (tensor<3x6xf32>, tensor<3x6xf32>, tensor<3x6xf32>, tensor<3x6xf32>) {
  %p = "tf.Const"() {value = dense<[[0, 1], [2, 1]]> : tensor<2x2xi32>} : () -> tensor<2x2xi32>
  %zero = "tf.Const"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  %v = "tf.Const"() {value = dense<-1.5> : tensor<f32>} : () -> tensor<f32>
  %0 = "tf.PadV2"(%x, %p, %zero) : (tensor<2x3xf32>, tensor<2x2xi32>, tensor<f32>) -> tensor<3x6xf32>
  %1 = "tf.PadV2"(%x, %p, %v) : (tensor<2x3xf32>, tensor<2x2xi32>, tensor<f32>) -> tensor<3x6xf32>
  %2 = "tf.MirrorPad"(%x, %p) {mode = "REFLECT"} : (tensor<2x3xf32>, tensor<2x2xi32>) -> tensor<3x6xf32>
  %3 = "tf.MirrorPad"(%x, %p) {mode = "SYMMETRIC"} : (tensor<2x3xf32>, tensor<2x2xi32>) -> tensor<3x6xf32>
  func.return %0, %1, %2, %3 : tensor<3x6xf32>, tensor<3x6xf32>, tensor<3x6xf32>, tensor<3x6xf32>
}

// CHECK-LABEL: func.func @fill_range(
// CHECK-NEXT: %d = cann.Const dense<[2, 3]> : tensor<2xi32>
// CHECK-NEXT: %v = cann.Const dense<5.000000e-01> : tensor<f32>
// CHECK-NEXT: %s = cann.Const dense<1> : tensor<i32>
// CHECK-NEXT: %l = cann.Const dense<9> : tensor<i32>
// CHECK-NEXT: %st = cann.Const dense<2> : tensor<i32>
// CHECK-NEXT: %0 = cann.FillD %v {dims = array<i64: 2, 3>} : (tensor<f32>) -> tensor<2x3xf32>
// CHECK-NEXT: %1 = cann.Range %s, %l, %st : (tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<4xi32>
// CHECK-NEXT: func.return %0, %1 : tensor<2x3xf32>, tensor<4xi32>
func.func @fill_range() -> (tensor<2x3xf32>, tensor<4xi32>) {
  %d = "tf.Const"() {value = dense<[2, 3]> : tensor<2xi32>} : () -> tensor<2xi32>
  %v = "tf.Const"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %s = "tf.Const"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
  %l = "tf.Const"() {value = dense<9> : tensor<i32>} : () -> tensor<i32>
  %st = "tf.Const"() {value = dense<2> : tensor<i32>} : () -> tensor<i32>
  %0 = "tf.Fill"(%d, %v) : (tensor<2xi32>, tensor<f32>) -> tensor<2x3xf32>
  %1 = "tf.Range"(%s, %l, %st) : (tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<4xi32>
  func.return %0, %1 : tensor<2x3xf32>, tensor<4xi32>
}

// CHECK-LABEL: func.func @splits(
// CHECK-NEXT: %ax = cann.Const dense<1> : tensor<i32>
// CHECK-NEXT: %sz = cann.Const dense<[1, -1]> : tensor<2xi64>
// CHECK-NEXT: %0, %1, %2 = cann.SplitD %x {split_dim = 1 : i64, num_split = 3 : i64} : (tensor<4x6xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>)
// CHECK-NEXT: %3, %4 = cann.SplitVD %x {size_splits = array<i64: 1, 5>, split_dim = 1 : i64, num_split = 2 : i64} : (tensor<4x6xf32>) -> (tensor<4x1xf32>, tensor<4x5xf32>)
// CHECK-NEXT: func.return %0, %1, %2, %3, %4 : tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x1xf32>, tensor<4x5xf32>
func.func @splits(%x: tensor<4x6xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x1xf32>, tensor<4x5xf32>) {
  %ax = "tf.Const"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
  %sz = "tf.Const"() {value = dense<[1, -1]> : tensor<2xi64>} : () -> tensor<2xi64>
  %0:3 = "tf.Split"(%ax, %x) {num_split = 3 : i64} : (tensor<i32>, tensor<4x6xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>)
  %1:2 = "tf.SplitV"(%x, %sz, %ax) {num_split = 2 : i64} : (tensor<4x6xf32>, tensor<2xi64>, tensor<i32>) -> (tensor<4x1xf32>, tensor<4x5xf32>)
  func.return %0#0, %0#1, %0#2, %1#0, %1#1 : tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x1xf32>, tensor<4x5xf32>
}

// CHECK-LABEL: func.func @resize(
// CHECK-NEXT: %size = cann.Const dense<[8, 12]> : tensor<2xi32>
// CHECK-NEXT: %0 = cann.ResizeBilinearV2 %x, %size {align_corners = false, half_pixel_centers = true} : (tensor<1x4x6x3xf32>, tensor<2xi32>) -> tensor<1x8x12x3xf32>
// CHECK-NEXT: %1 = cann.ResizeNearestNeighborV2 %x, %size {align_corners = true, half_pixel_centers = false} : (tensor<1x4x6x3xf32>, tensor<2xi32>) -> tensor<1x8x12x3xf32>
// CHECK-NEXT: func.return %0, %1 : tensor<1x8x12x3xf32>, tensor<1x8x12x3xf32>
func.func @resize(%x: tensor<1x4x6x3xf32>) -> (tensor<1x8x12x3xf32>, tensor<1x8x12x3xf32>) {
  %size = "tf.Const"() {value = dense<[8, 12]> : tensor<2xi32>} : () -> tensor<2xi32>
  %0 = "tf.ResizeBilinear"(%x, %size) {align_corners = false, half_pixel_centers = true} : (tensor<1x4x6x3xf32>, tensor<2xi32>) -> tensor<1x8x12x3xf32>
  %1 = "tf.ResizeNearestNeighbor"(%x, %size) {align_corners = true, half_pixel_centers = false} : (tensor<1x4x6x3xf32>, tensor<2xi32>) -> tensor<1x8x12x3xf32>
  func.return %0, %1 : tensor<1x8x12x3xf32>, tensor<1x8x12x3xf32>
}
