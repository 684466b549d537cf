// RUN: cann-opt --tf-to-cann --fold-constants %s | filecheck %s --check-prefix=FOLD
// RUN: cann-opt --remove-identity %s | filecheck %s --check-prefix=IDENT
// RUN: cann-opt --tf-to-cann --remove-noops %s | filecheck %s --check-prefix=NOOP
// RUN: cann-opt --tf-to-cann --algebraic-simplify --dce %s | filecheck %s --check-prefix=ALG
// RUN: cann-opt --tf-to-cann --cse %s | filecheck %s --check-prefix=CSE
// RUN: cann-opt --tf-to-cann --cann-cleanup %s | filecheck %s --check-prefix=ALL

// Keras BatchNormalization parameter arithmetic is folded into one constant per operand.
// FOLD-LABEL: func.func @bn_params
// FOLD-NEXT: %[[S:.*]] = cann.Const dense<[1.000000e+00, 5.000000e-01]> : tensor<2xf32>
// FOLD-NEXT: %[[M:.*]] = cann.Mul %x, %[[S]]
// FOLD-NEXT: func.return %[[M]]
func.func @bn_params(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %var = "tf.Const"() {value = dense<[1.0, 4.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %eps = "tf.Const"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  %0 = "tf.AddV2"(%var, %eps) : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  %1 = "tf.Rsqrt"(%0) : (tensor<2xf32>) -> tensor<2xf32>
  %2 = "tf.Mul"(%x, %1) : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  func.return %2 : tensor<3x2xf32>
}

// A result of rank 0 folds too (Keras' Embedding takes its table size from Shape(table)[0]).
// FOLD-LABEL: func.func @scalar_slice_of_shape
// FOLD-NEXT: %[[N:.*]] = cann.Const dense<500> : tensor<i32>
// FOLD-NEXT: %[[A:.*]] = cann.Add %ids, %[[N]]
// FOLD-NEXT: func.return %[[A]]
func.func @scalar_slice_of_shape(%ids: tensor<1x4xi32>) -> tensor<1x4xi32> {
  %s = "tf.Const"() {value = dense<[500, 16]> : tensor<2xi32>} : () -> tensor<2xi32>
  %b = "tf.Const"() {value = dense<0> : tensor<1xi32>} : () -> tensor<1xi32>
  %e = "tf.Const"() {value = dense<1> : tensor<1xi32>} : () -> tensor<1xi32>
  %0 = "tf.StridedSlice"(%s, %b, %e, %e) {shrink_axis_mask = 1 : i64} : (tensor<2xi32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<i32>
  %1 = "tf.AddV2"(%ids, %0) : (tensor<1x4xi32>, tensor<i32>) -> tensor<1x4xi32>
  func.return %1 : tensor<1x4xi32>
}

// IDENT-LABEL: func.func @identities
// IDENT-NEXT: %[[R:.*]] = tf.Relu %x
// IDENT-NEXT: func.return %[[R]]
func.func @identities(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "tf.Identity"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "tf.StopGradient"(%0) : (tensor<4xf32>) -> tensor<4xf32>
  %2:2 = "tf.IdentityN"(%1, %0) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  %3 = "tf.Snapshot"(%2#0) : (tensor<4xf32>) -> tensor<4xf32>
  %4 = "tf.Relu"(%3) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %4 : tensor<4xf32>
}

// A Reshape to the same shape, an identity Transpose, Transpose pairs that cancel, a Cast to the
// same type, and Reshape chains (one Reshape left) disappear.
// NOOP-LABEL: func.func @noops
// NOOP-NEXT: %[[R:.*]] = cann.Reshape %x {shape = array<i64: 4, 2>} : (tensor<2x4xf32>) -> tensor<4x2xf32>
// NOOP-NEXT: func.return %x, %[[R]]
func.func @noops(%x: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<4x2xf32>) {
  %s = "tf.Const"() {value = dense<[2, 4]> : tensor<2xi32>} : () -> tensor<2xi32>
  %s8 = "tf.Const"() {value = dense<[8]> : tensor<1xi32>} : () -> tensor<1xi32>
  %s42 = "tf.Const"() {value = dense<[4, 2]> : tensor<2xi32>} : () -> tensor<2xi32>
  %id = "tf.Const"() {value = dense<[0, 1]> : tensor<2xi32>} : () -> tensor<2xi32>
  %sw = "tf.Const"() {value = dense<[1, 0]> : tensor<2xi32>} : () -> tensor<2xi32>
  %0 = "tf.Reshape"(%x, %s) : (tensor<2x4xf32>, tensor<2xi32>) -> tensor<2x4xf32>
  %1 = "tf.Transpose"(%0, %id) : (tensor<2x4xf32>, tensor<2xi32>) -> tensor<2x4xf32>
  %2 = "tf.Transpose"(%1, %sw) : (tensor<2x4xf32>, tensor<2xi32>) -> tensor<4x2xf32>
  %3 = "tf.Transpose"(%2, %sw) : (tensor<4x2xf32>, tensor<2xi32>) -> tensor<2x4xf32>
  %4 = "tf.Cast"(%3) {DstT = f32} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %5 = "tf.Reshape"(%4, %s8) : (tensor<2x4xf32>, tensor<1xi32>) -> tensor<8xf32>
  %6 = "tf.Reshape"(%5, %s42) : (tensor<8xf32>, tensor<2xi32>) -> tensor<4x2xf32>
  func.return %4, %6 : tensor<2x4xf32>, tensor<4x2xf32>
}

// x * 1 -> x, x + 0 -> x, x - 0 -> x, x / 1 -> x (not when the constant broadcasts x up).
// ALG-LABEL: func.func @algebra
// ALG-NEXT: %[[Z:.*]] = cann.Const dense<0.000000e+00> : tensor<2x4xf32>
// ALG-NEXT: %[[B:.*]] = cann.Add %x, %[[Z]] : (tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
// ALG-NEXT: func.return %x, %[[B]]
func.func @algebra(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<2x4xf32>) {
  %one = "tf.Const"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %zero = "tf.Const"() {value = dense<0.0> : tensor<4xf32>} : () -> tensor<4xf32>
  %zz = "tf.Const"() {value = dense<0.0> : tensor<2x4xf32>} : () -> tensor<2x4xf32>
  %0 = "tf.Mul"(%one, %x) : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = "tf.AddV2"(%0, %zero) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = "tf.Sub"(%1, %zero) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %3 = "tf.RealDiv"(%2, %one) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %4 = "tf.AddV2"(%x, %zz) : (tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  func.return %3, %4 : tensor<4xf32>, tensor<2x4xf32>
}

// CSE-LABEL: func.func @cse
// CSE-NEXT: %[[S:.*]] = cann.Sigmoid %x
// CSE-NEXT: %[[M:.*]] = cann.Mul %[[S]], %[[S]]
// CSE-NEXT: func.return %[[M]]
func.func @cse(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "tf.Sigmoid"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "tf.Sigmoid"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = "tf.Mul"(%0, %1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %2 : tensor<4xf32>
}

// ALL-LABEL: func.func @bn_params
// ALL-NEXT: cann.Const
// ALL-NEXT: cann.Mul
// ALL-NEXT: func.return
// ALL-LABEL: func.func @noops
// ALL-NEXT: cann.Reshape
// ALL-NEXT: func.return
