
func.func @main(%arg0: tensor<1x8x8x3xf32>) -> tensor<1x8x8x4xf32> {
  %0 = tf.Placeholder %arg0 {shape = "1,8,8,3"} : (tensor<1x8x8x3xf32>) -> tensor<1x8x8x3xf32> loc("x")
  %1 = tf.Const dense<1.0> : tensor<3x3x3x4xf32> loc("w")
  %b = tf.Const dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %2 = tf.Conv2D %0, %1 {strides = array<i64: 1, 1, 1, 1>, padding = "SAME", data_format = "NHWC", dilations = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32> loc("conv")
  %3 = tf.BiasAdd %2, %b {data_format = "NHWC"} : (tensor<1x8x8x4xf32>, tensor<4xf32>) -> tensor<1x8x8x4xf32>
  %4 = tf.Relu %3 : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  %5 = tf.Identity %4 : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  func.return %5 : tensor<1x8x8x4xf32>
}
