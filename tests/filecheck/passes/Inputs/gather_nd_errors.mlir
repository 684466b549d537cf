func.func @errors(%p: tensor<4x5xf32>, %i: tensor<2x3xi32>, %u: tensor<?x5xf32>, %j: tensor<2x1xi32>) -> (tensor<2xf32>, tensor<2x5xf32>, tensor<2xf32>) {
  %c = "tf.Const"() {value = dense<[[1, 7], [0, 0]]> : tensor<2x2xi32>} : () -> tensor<2x2xi32>
  %0 = "tf.GatherNd"(%p, %i) : (tensor<4x5xf32>, tensor<2x3xi32>) -> tensor<2xf32> loc("too_deep")
  %1 = "tf.GatherNd"(%u, %j) : (tensor<?x5xf32>, tensor<2x1xi32>) -> tensor<2x5xf32> loc("dynamic")
  %2 = "tf.GatherNd"(%p, %c) : (tensor<4x5xf32>, tensor<2x2xi32>) -> tensor<2xf32> loc("out_of_range")
  func.return %0, %1, %2 : tensor<2xf32>, tensor<2x5xf32>, tensor<2xf32>
}
