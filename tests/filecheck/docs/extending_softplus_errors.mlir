// docs/extending.md: a node the Softplus dtype rule rejects is reported with its node name.
// RUN: not cann-opt --tf-to-cann %s 2>&1 | filecheck %s

// CHECK: extending_softplus_errors.mlir:[[# @LINE + 2]]:3: error: tf.Softplus cannot be legalized: Softplus supports float16, float32, bfloat16; got float64 [node 'sp64']
func.func @softplus64(%x: tensor<2x3xf64>) -> tensor<2x3xf64> {
  %0 = "tf.Softplus"(%x) : (tensor<2x3xf64>) -> tensor<2x3xf64> loc("sp64")
  func.return %0 : tensor<2x3xf64>
}
