func.func @runtime(%x: tensor<3x3xf32>) -> tensor<3x3xf32> {
  %lo = "tf.Const"() {value = dense<-1> : tensor<i64>} : () -> tensor<i64>
  %up = "tf.Const"() {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %m = "tf.MatrixBandPart"(%x, %lo, %up) : (tensor<3x3xf32>, tensor<i64>, tensor<i64>) -> tensor<3x3xf32> loc("band")
  func.return %m : tensor<3x3xf32>
}
