func.func @errors(%x: tensor<2x3xf32>, %ax: tensor<i32>, %d: tensor<2x3xf64>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf64>, tensor<2x3xf32>) {
  %two = "tf.Const"() {value = dense<2> : tensor<i32>} : () -> tensor<i32>
  %0 = "tf.Cumsum"(%x, %ax) {exclusive = false, reverse = false} : (tensor<2x3xf32>, tensor<i32>) -> tensor<2x3xf32> loc("runtime_axis")
  %1 = "tf.Cumsum"(%x, %two) {exclusive = false, reverse = false} : (tensor<2x3xf32>, tensor<i32>) -> tensor<2x3xf32> loc("bad_axis")
  %2 = "tf.Cumsum"(%d, %two) {exclusive = false, reverse = false} : (tensor<2x3xf64>, tensor<i32>) -> tensor<2x3xf64> loc("f64")
  %3 = "tf.Cumprod"(%x, %ax) {exclusive = false, reverse = false} : (tensor<2x3xf32>, tensor<i32>) -> tensor<2x3xf32> loc("runtime_axis_prod")
  func.return %0, %1, %2, %3 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf64>, tensor<2x3xf32>
}
