// RUN: cann-opt --tf-to-cann %s | filecheck %s

// BroadcastTo, Tile and Cumsum of a constant are constants (GE's constant folding): tf-to-cann
// builds the cann ops it would emit (BroadcastToD; Reshape + BroadcastToD + Reshape; Cumsum)
// and the one constant evaluator (compiler/interpreters/constant_eval.py, the cann semantics)
// computes their value.  A Tile by ones of a constant is a copy of it.
// CHECK-LABEL: func.func @broadcast_to(
// CHECK:      %0 = cann.Const dense<{{\[\[\[}}7, 8, 9], [7, 8, 9]], {{\[\[}}7, 8, 9], [7, 8, 9]]]> : tensor<2x2x3xi32>
// CHECK-NEXT: func.return %0
func.func @broadcast_to() -> tensor<2x2x3xi32> {
  %i = "tf.Const"() {value = dense<[7, 8, 9]> : tensor<3xi32>} : () -> tensor<3xi32>
  %s = "tf.Const"() {value = dense<[2, 2, 3]> : tensor<3xi32>} : () -> tensor<3xi32>
  %0 = "tf.BroadcastTo"(%i, %s) : (tensor<3xi32>, tensor<3xi32>) -> tensor<2x2x3xi32>
  func.return %0 : tensor<2x2x3xi32>
}

// CHECK-LABEL: func.func @tile(
// CHECK-NOT:  cann.Reshape
// CHECK-NOT:  cann.BroadcastToD
// CHECK:      %0 = cann.Const dense<{{\[}}[1, 2, 1, 2, 1, 2], [3, 4, 3, 4, 3, 4], [1, 2, 1, 2, 1, 2], [3, 4, 3, 4, 3, 4]]> : tensor<4x6xi32>
// CHECK-NEXT: %one = cann.Const dense<1> : tensor<2xi32>
// CHECK-NEXT: %1 = cann.Const dense<{{\[}}[1, 2], [3, 4]]> : tensor<2x2xi32>
// CHECK-NEXT: func.return %0, %1
func.func @tile() -> (tensor<4x6xi32>, tensor<2x2xi32>) {
  %i = "tf.Const"() {value = dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>} : () -> tensor<2x2xi32>
  %m = "tf.Const"() {value = dense<[2, 3]> : tensor<2xi32>} : () -> tensor<2xi32>
  %0 = "tf.Tile"(%i, %m) : (tensor<2x2xi32>, tensor<2xi32>) -> tensor<4x6xi32>
  %one = "tf.Const"() {value = dense<[1, 1]> : tensor<2xi32>} : () -> tensor<2xi32>
  %1 = "tf.Tile"(%i, %one) : (tensor<2x2xi32>, tensor<2xi32>) -> tensor<2x2xi32>
  func.return %0, %1 : tensor<4x6xi32>, tensor<2x2xi32>
}

// fp16: summed in float32, rounded once to the result type (cann_impl.cumsum).
// CHECK-LABEL: func.func @cumsum_f16(
// CHECK:      %0 = cann.Const dense<{{\[}}[6.000000e+00, 3.699220e+00, 0.000000e+00], [1.220310e+01, 6.300780e+00, 0.000000e+00]]> : tensor<2x3xf16>
// CHECK-NEXT: func.return %0
func.func @cumsum_f16() -> tensor<2x3xf16> {
  %h = "tf.Const"() {value = dense<[[1.1, 2.3, 3.7], [4.1, 5.9, 6.3]]> : tensor<2x3xf16>} : () -> tensor<2x3xf16>
  %ax = "tf.Const"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
  %0 = "tf.Cumsum"(%h, %ax) {exclusive = true, reverse = true} : (tensor<2x3xf16>, tensor<i32>) -> tensor<2x3xf16>
  func.return %0 : tensor<2x3xf16>
}
