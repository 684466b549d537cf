// RUN: not cann-opt --tf-to-cann %s 2>&1 | filecheck %s

// Every node that cannot be legalized is reported in one run, with its position and TF node name.
// CHECK: tf_to_cann_errors.mlir:[[# @LINE + 5]]:{{[0-9]+}}: error: tf.Conv2D cannot be legalized: Conv2D supports float16, float32, bfloat16; got float64 [node 'conv64']
// CHECK-NEXT: tf_to_cann_errors.mlir:[[# @LINE + 5]]:{{[0-9]+}}: error: tf.Relu cannot be legalized: Relu supports float16, float32, bfloat16, int8, int32; got int64 [node 'relu_i64']
// CHECK-NEXT: tf_to_cann_errors.mlir:[[# @LINE + 5]]:{{[0-9]+}}: error: tf.Conv2D cannot be legalized: SAME padding with a stride > 1 needs static spatial dimensions; got 1x?x8x3 [node 'dyn']
// CHECK-NOT: error
func.func @main(%x: tensor<1x8x8x3xf64>, %w: tensor<3x3x3x4xf64>, %i: tensor<4xi64>, %d: tensor<1x?x8x3xf32>, %wd: tensor<3x3x3x4xf32>) -> (tensor<1x8x8x4xf64>, tensor<4xi64>, tensor<1x?x4x4xf32>) {
  %0 = tf.Conv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, padding = "SAME", data_format = "NHWC", dilations = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x3xf64>, tensor<3x3x3x4xf64>) -> tensor<1x8x8x4xf64> loc("conv64")
  %1 = tf.Relu %i : (tensor<4xi64>) -> tensor<4xi64> loc("relu_i64")
  %2 = tf.Conv2D %d, %wd {strides = array<i64: 1, 2, 2, 1>, padding = "SAME", data_format = "NHWC", dilations = array<i64: 1, 1, 1, 1>} : (tensor<1x?x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x?x4x4xf32> loc("dyn")
  func.return %0, %1, %2 : tensor<1x8x8x4xf64>, tensor<4xi64>, tensor<1x?x4x4xf32>
}
