func.func @errors(%x: tensor<2x3x6xf32>, %u: tensor<?x2x3x6xf32>) -> (tensor<2x3x6xf32>, tensor<?x2x3x6xf32>) {
  %0 = "tf.LRN"(%x) {depth_radius = 1 : i64, bias = 1.0 : f32, alpha = 1.0 : f32, beta = 0.5 : f32} : (tensor<2x3x6xf32>) -> tensor<2x3x6xf32> loc("rank3")
  %1 = "tf.LRN"(%u) {depth_radius = 1 : i64, bias = 1.0 : f32, alpha = 1.0 : f32, beta = 0.5 : f32} : (tensor<?x2x3x6xf32>) -> tensor<?x2x3x6xf32> loc("dynamic")
  func.return %0, %1 : tensor<2x3x6xf32>, tensor<?x2x3x6xf32>
}
