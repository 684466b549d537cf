// RUN: not cann-opt --tf-to-cann %s 2>&1 | filecheck %s

// 3-D ops the decomposition cannot take are reported one line each, naming the node.
// CHECK: tf_to_cann_conv3d_errors.mlir:[[# @LINE + 6]]:{{[0-9]+}}: error: tf.Conv3D cannot be legalized: only data_format NDHWC is supported, got NCDHW [node 'ncdhw']
// CHECK-NEXT: tf_to_cann_conv3d_errors.mlir:[[# @LINE + 6]]:{{[0-9]+}}: error: tf.MaxPool3D cannot be legalized: ksize [2, 2, 2, 2, 1] must be 5 positive values with 1 on N and C [node 'batch_window']
// CHECK-NEXT: tf_to_cann_conv3d_errors.mlir:[[# @LINE + 6]]:{{[0-9]+}}: error: tf.Conv3D cannot be legalized: Conv2D supports float16, float32, bfloat16; got float64 [node 'conv64']
// CHECK-NOT: error
func.func @main(%x: tensor<1x3x4x8x8xf32>, %w: tensor<3x3x3x3x4xf32>, %p: tensor<2x4x8x8x3xf32>, %d: tensor<1x4x8x8x3xf64>, %wd: tensor<1x1x1x3x4xf64>) -> (tensor<1x4x2x6x6xf32>, tensor<1x2x4x4x3xf32>, tensor<1x4x8x8x4xf64>) {
  %w0 = tf.Const dense<0.5> : tensor<3x3x3x3x4xf32>
  %0 = tf.Conv3D %x, %w0 {T = f32, data_format = "NCDHW", dilations = array<i64: 1, 1, 1, 1, 1>, padding = "VALID", strides = array<i64: 1, 1, 1, 1, 1>} : (tensor<1x3x4x8x8xf32>, tensor<3x3x3x3x4xf32>) -> tensor<1x4x2x6x6xf32> loc("ncdhw")
  %1 = tf.MaxPool3D %p {T = f32, data_format = "NDHWC", ksize = array<i64: 2, 2, 2, 2, 1>, padding = "VALID", strides = array<i64: 1, 2, 2, 2, 1>} : (tensor<2x4x8x8x3xf32>) -> tensor<1x2x4x4x3xf32> loc("batch_window")
  %2 = tf.Conv3D %d, %wd {T = f64, data_format = "NDHWC", dilations = array<i64: 1, 1, 1, 1, 1>, padding = "VALID", strides = array<i64: 1, 1, 1, 1, 1>} : (tensor<1x4x8x8x3xf64>, tensor<1x1x1x3x4xf64>) -> tensor<1x4x8x8x4xf64> loc("conv64")
  func.return %0, %1, %2 : tensor<1x4x2x6x6xf32>, tensor<1x2x4x4x3xf32>, tensor<1x4x8x8x4xf64>
}
