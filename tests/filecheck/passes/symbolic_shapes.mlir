// Symbolic shapes (issue 16): `?` dimensions print, parse and verify at the tf level and
// legalize to cann ops that keep them: a conv over a dynamic batch, a Reshape whose one `?` is
// the inferred -1, an Einsum projection and attention scores over a dynamic sequence.
// The cann level prints and parses back (generic form through cann-opt again).
// RUN: cann-opt %s | filecheck %s --check-prefix=TF
// RUN: cann-opt --tf-to-cann %s | filecheck %s
// RUN: cann-opt --tf-to-cann %s --print-op-generic | cann-opt | filecheck %s
// RUN: cann-opt --tf-to-cann --fuse %s | filecheck %s --check-prefix=FUSED

// TF-LABEL: func.func @conv
// TF: tf.Conv2D %{{.*}}, %{{.*}} {{.*}} : (tensor<?x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<?x8x8x4xf32>
// CHECK-LABEL: func.func @conv
// CHECK: cann.Conv2D %{{.*}}, %{{.*}} {{.*}} : (tensor<?x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<?x8x8x4xf32>
// CHECK: cann.Relu %{{.*}} : (tensor<?x8x8x4xf32>) -> tensor<?x8x8x4xf32>
// FUSED-LABEL: func.func @conv
// FUSED: cann.FusedConv2D {{.*}} -> tensor<?x8x8x4xf32>
func.func @conv(%x: tensor<?x8x8x3xf32>) -> tensor<?x8x8x4xf32> {
  %w = "tf.Const"() {value = dense<0.5> : tensor<3x3x3x4xf32>} : () -> tensor<3x3x3x4xf32>
  %0 = "tf.Conv2D"(%x, %w) {strides = array<i64: 1, 1, 1, 1>, padding = "SAME", data_format = "NHWC", dilations = array<i64: 1, 1, 1, 1>} : (tensor<?x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<?x8x8x4xf32>
  %1 = "tf.Relu"(%0) : (tensor<?x8x8x4xf32>) -> tensor<?x8x8x4xf32>
  func.return %1 : tensor<?x8x8x4xf32>
}

// CHECK-LABEL: func.func @reshape
// CHECK: %[[R:.*]] = cann.Reshape %s {shape = array<i64: -1, 32>} : (tensor<1x?x32xf32>) -> tensor<?x32xf32>
// CHECK-NEXT: func.return %[[R]]
func.func @reshape(%s: tensor<1x?x32xf32>) -> tensor<?x32xf32> {
  %c = "tf.Const"() {value = dense<[-1, 32]> : tensor<2xi32>} : () -> tensor<2xi32>
  %0 = "tf.Reshape"(%s, %c) : (tensor<1x?x32xf32>, tensor<2xi32>) -> tensor<?x32xf32>
  func.return %0 : tensor<?x32xf32>
}

// abc,cde->abde over a `?` b: flattened to [?, 32] (one inferred dimension), multiplied,
// reshaped back to [1, ?, 2, 16].
// CHECK-LABEL: func.func @projection
// CHECK: %[[A:.*]] = cann.Reshape %s {shape = array<i64: -1, 32>} : (tensor<1x?x32xf32>) -> tensor<?x32xf32>
// CHECK: %[[Y:.*]] = cann.BatchMatMulV2 %[[A]], %{{.*}} {{.*}} : (tensor<?x32xf32>, tensor<32x32xf32>) -> tensor<?x32xf32>
// CHECK: cann.Reshape %[[Y]] {shape = array<i64: 1, -1, 2, 16>} : (tensor<?x32xf32>) -> tensor<1x?x2x16xf32>
func.func @projection(%s: tensor<1x?x32xf32>) -> tensor<1x?x2x16xf32> {
  %w = "tf.Const"() {value = dense<0.25> : tensor<32x2x16xf32>} : () -> tensor<32x2x16xf32>
  %0 = "tf.Einsum"(%s, %w) {equation = "abc,cde->abde", N = 2 : i64} : (tensor<1x?x32xf32>, tensor<32x2x16xf32>) -> tensor<1x?x2x16xf32>
  func.return %0 : tensor<1x?x2x16xf32>
}

// Attention scores: both T and S are the dynamic sequence; one label per group, no reshape.
// CHECK-LABEL: func.func @scores
// CHECK: cann.BatchMatMulV2 {{.*}} : (tensor<1x2x?x16xf32>, tensor<1x2x16x?xf32>) -> tensor<1x2x?x?xf32>
func.func @scores(%q: tensor<1x?x2x16xf32>, %k: tensor<1x?x2x16xf32>) -> tensor<1x2x?x?xf32> {
  %0 = "tf.Einsum"(%q, %k) {equation = "BTNH,BSNH->BNTS", N = 2 : i64} : (tensor<1x?x2x16xf32>, tensor<1x?x2x16xf32>) -> tensor<1x2x?x?xf32>
  func.return %0 : tensor<1x2x?x?xf32>
}

// Stride 1: the SAME pads do not depend on the size, so H and W may be `?` (stride 2 is an
// error, tf_to_cann_errors.mlir).
// CHECK-LABEL: func.func @image
// CHECK: cann.Conv2D {{.*}}pads = array<i64: 1, 1, 1, 1>{{.*}} : (tensor<1x?x?x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x?x?x4xf32>
func.func @image(%x: tensor<1x?x?x3xf32>) -> tensor<1x?x?x4xf32> {
  %w = "tf.Const"() {value = dense<0.5> : tensor<3x3x3x4xf32>} : () -> tensor<3x3x3x4xf32>
  %0 = "tf.Conv2D"(%x, %w) {strides = array<i64: 1, 1, 1, 1>, padding = "SAME", data_format = "NHWC", dilations = array<i64: 1, 1, 1, 1>} : (tensor<1x?x?x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x?x?x4xf32>
  func.return %0 : tensor<1x?x?x4xf32>
}
