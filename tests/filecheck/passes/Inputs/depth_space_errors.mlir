func.func @errors(%x: tensor<1x2x3x6xf32>, %n: tensor<1x6x2x3xf32>, %u: tensor<?x4x4x4xf32>) -> (tensor<1x4x6x1xf32>, tensor<1x6x4x6xf32>, tensor<1x1x1x24xf32>, tensor<?x2x2x16xf32>) {
  %0 = "tf.DepthToSpace"(%x) {block_size = 2 : i64, data_format = "NHWC"} : (tensor<1x2x3x6xf32>) -> tensor<1x4x6x1xf32> loc("depth_not_multiple")
  %1 = "tf.DepthToSpace"(%n) {block_size = 2 : i64, data_format = "NCHW"} : (tensor<1x6x2x3xf32>) -> tensor<1x6x4x6xf32> loc("nchw")
  %2 = "tf.SpaceToDepth"(%x) {block_size = 2 : i64, data_format = "NHWC"} : (tensor<1x2x3x6xf32>) -> tensor<1x1x1x24xf32> loc("odd_width")
  %3 = "tf.SpaceToDepth"(%u) {block_size = 2 : i64, data_format = "NHWC"} : (tensor<?x4x4x4xf32>) -> tensor<?x2x2x16xf32> loc("dynamic")
  func.return %0, %1, %2, %3 : tensor<1x4x6x1xf32>, tensor<1x6x4x6xf32>, tensor<1x1x1x24xf32>, tensor<?x2x2x16xf32>
}
