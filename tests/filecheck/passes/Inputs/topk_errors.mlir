func.func @errors(%x: tensor<2x3xf32>, %k: tensor<i32>, %d: tensor<2x3xf64>, %u: tensor<2x?xf32>) -> (tensor<2x?xf32>, tensor<2x4xf32>, tensor<2x1xf64>, tensor<2x1xf32>) {
  %four = "tf.Const"() {value = dense<4> : tensor<i32>} : () -> tensor<i32>
  %one = "tf.Const"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
  %0:2 = "tf.TopKV2"(%x, %k) {sorted = true} : (tensor<2x3xf32>, tensor<i32>) -> (tensor<2x?xf32>, tensor<2x?xi32>) loc("runtime_k")
  %1:2 = "tf.TopKV2"(%x, %four) {sorted = true} : (tensor<2x3xf32>, tensor<i32>) -> (tensor<2x4xf32>, tensor<2x4xi32>) loc("big_k")
  %2:2 = "tf.TopKV2"(%d, %one) {sorted = true} : (tensor<2x3xf64>, tensor<i32>) -> (tensor<2x1xf64>, tensor<2x1xi32>) loc("f64")
  %3:2 = "tf.TopKV2"(%u, %one) {sorted = true} : (tensor<2x?xf32>, tensor<i32>) -> (tensor<2x1xf32>, tensor<2x1xi32>) loc("dynamic")
  func.return %0#0, %1#0, %2#0, %3#0 : tensor<2x?xf32>, tensor<2x4xf32>, tensor<2x1xf64>, tensor<2x1xf32>
}
