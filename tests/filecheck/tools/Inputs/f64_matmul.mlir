func.func @main(%a: tensor<2x3xf64>, %b: tensor<3x4xf64>) -> tensor<2x4xf64> {
  %0 = tf.MatMul %a, %b {transpose_a = false, transpose_b = false} : (tensor<2x3xf64>, tensor<3x4xf64>) -> tensor<2x4xf64> loc("mm64")
  func.return %0 : tensor<2x4xf64>
}
