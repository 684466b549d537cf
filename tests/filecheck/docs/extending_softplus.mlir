// The worked example of docs/extending.md: TF Softplus -> CANN Softplus (the error case is
// extending_softplus_errors.mlir).
// RUN: cann-opt --tf-to-cann %s | filecheck %s

// CHECK-LABEL: func.func @softplus
// CHECK-NEXT: %[[Y:.*]] = cann.Softplus %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: func.return %[[Y]]
func.func @softplus(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = "tf.Softplus"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32> loc("sp")
  func.return %0 : tensor<2x3xf32>
}
