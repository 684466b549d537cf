// RUN: not cann-opt --tf-to-cann %s 2>&1 | filecheck %s
// The zoo rows' errors, all in one run, in source order, each naming the node: BroadcastTo and
// Tile need constant shape / multiples, Conv2DBackpropInput only NHWC, Slice within x.
// CHECK: tf_to_cann_zoo_ops_errors.mlir:[[# @LINE + 6]]:3: error: tf.BroadcastTo cannot be legalized: input 1 (shape) must be a constant [node 'bcast_shape']
// CHECK-NEXT: tf_to_cann_zoo_ops_errors.mlir:[[# @LINE + 6]]:3: error: tf.Tile cannot be legalized: input 1 (multiples) must be a constant [node 'tile_multiples']
// CHECK-NEXT: tf_to_cann_zoo_ops_errors.mlir:[[# @LINE + 7]]:3: error: tf.Conv2DBackpropInput cannot be legalized: only data_format NHWC is supported [node 'deconv_nchw']
// CHECK-NEXT: tf_to_cann_zoo_ops_errors.mlir:[[# @LINE + 9]]:3: error: tf.Slice cannot be legalized: begin [0, 3] / size [1, 4] are out of range for [1, 6] [node 'slice_range']
// CHECK-NOT: error
func.func @errors(%x: tensor<1x6xf32>, %s: tensor<2xi32>, %dy: tensor<1x4x3x3xf32>, %w: tensor<3x3x2x4xf32>) -> (tensor<4x6xf32>, tensor<?x?xf32>, tensor<1x2x6x6xf32>, tensor<1x4xf32>) {
  %0 = "tf.BroadcastTo"(%x, %s) : (tensor<1x6xf32>, tensor<2xi32>) -> tensor<4x6xf32> loc("bcast_shape")
  %1 = "tf.Tile"(%x, %s) : (tensor<1x6xf32>, tensor<2xi32>) -> tensor<?x?xf32> loc("tile_multiples")
  %is = "tf.Const"() {value = dense<[1, 2, 6, 6]> : tensor<4xi32>} : () -> tensor<4xi32>
  %2 = "tf.Conv2DBackpropInput"(%is, %w, %dy) {strides = array<i64: 1, 1, 2, 2>, padding = "SAME", data_format = "NCHW", dilations = array<i64: 1, 1, 1, 1>, explicit_paddings = array<i64>} : (tensor<4xi32>, tensor<3x3x2x4xf32>, tensor<1x4x3x3xf32>) -> tensor<1x2x6x6xf32> loc("deconv_nchw")
  %b = "tf.Const"() {value = dense<[0, 3]> : tensor<2xi32>} : () -> tensor<2xi32>
  %n = "tf.Const"() {value = dense<[1, 4]> : tensor<2xi32>} : () -> tensor<2xi32>
  %4 = "tf.Slice"(%x, %b, %n) : (tensor<1x6xf32>, tensor<2xi32>, tensor<2xi32>) -> tensor<1x4xf32> loc("slice_range")
  func.return %0, %1, %2, %4 : tensor<4x6xf32>, tensor<?x?xf32>, tensor<1x2x6x6xf32>, tensor<1x4xf32>
}
