// MatrixBandPart of constant inputs -> cann.MatrixBandPart (CANN's x, num_lower, num_upper),
// which cann-cleanup's fold-constants folds to a constant with the cann semantics (Keras 3's
// causal attention mask: band_part(ones, -1, 0) keeps the lower triangle); a run-time input is a
// diagnostic (no kernel lowering).  Without cann-cleanup, fuse's constant folding folds it.
// RUN: cann-opt --tf-to-cann %s | filecheck %s
// RUN: cann-opt --tf-to-cann --cann-cleanup %s | filecheck %s --check-prefix=FOLD
// RUN: cann-opt --tf-to-cann --fuse %s | filecheck %s --check-prefix=FOLD
// RUN: not cann-opt --tf-to-cann %S/Inputs/band_part_runtime.mlir 2>&1 | filecheck %s --check-prefix=ERR

// CHECK-LABEL: func.func @causal
// CHECK:         %m = cann.MatrixBandPart %ones, %lo, %up : (tensor<3x3xi1>, tensor<i64>, tensor<i64>) -> tensor<3x3xi1>
// CHECK-NEXT:    func.return %m
// FOLD-LABEL: func.func @causal
// FOLD-NEXT:    %[[C:.*]] = cann.Const dense<{{\[\[}}true, false, false], [true, true, false], [true, true, true]]> : tensor<3x3xi1>
// FOLD-NEXT:    func.return %[[C]]
func.func @causal() -> tensor<3x3xi1> {
  %ones = "tf.Const"() {value = dense<true> : tensor<3x3xi1>} : () -> tensor<3x3xi1>
  %lo = "tf.Const"() {value = dense<-1> : tensor<i64>} : () -> tensor<i64>
  %up = "tf.Const"() {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %m = "tf.MatrixBandPart"(%ones, %lo, %up) : (tensor<3x3xi1>, tensor<i64>, tensor<i64>) -> tensor<3x3xi1>
  func.return %m : tensor<3x3xi1>
}

// One sub- and no super-diagonal of a float matrix.
// CHECK-LABEL: func.func @band
// CHECK:         cann.MatrixBandPart %x, %lo, %up : (tensor<3x3xf32>, tensor<i64>, tensor<i64>) -> tensor<3x3xf32>
// FOLD-LABEL: func.func @band
// FOLD-NEXT:    cann.Const dense<{{\[\[}}1.000000e+00, 0.000000e+00, 0.000000e+00], [4.000000e+00, 5.000000e+00, 0.000000e+00], [0.000000e+00, 8.000000e+00, 9.000000e+00]]> : tensor<3x3xf32>
func.func @band() -> tensor<3x3xf32> {
  %x = "tf.Const"() {value = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]> : tensor<3x3xf32>} : () -> tensor<3x3xf32>
  %lo = "tf.Const"() {value = dense<1> : tensor<i64>} : () -> tensor<i64>
  %up = "tf.Const"() {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %m = "tf.MatrixBandPart"(%x, %lo, %up) : (tensor<3x3xf32>, tensor<i64>, tensor<i64>) -> tensor<3x3xf32>
  func.return %m : tensor<3x3xf32>
}

// ERR: error: tf.MatrixBandPart cannot be legalized: input 0 (input) must be a constant [node 'band']
