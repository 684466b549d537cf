// RUN: not cann-opt --tf-to-cann %s 2>&1 | filecheck %s

// Every node the table rejects is listed in one run: position, message, node name.
// CHECK: tf_to_cann_table_errors.mlir:[[# @LINE + 11]]:{{[0-9]+}}: error: tf.MatMul cannot be legalized: MatMulV2 supports float16, float32, bfloat16; got float64 [node 'mm64']
// CHECK-NEXT: tf_to_cann_table_errors.mlir:[[# @LINE + 11]]:{{[0-9]+}}: error: tf.Transpose cannot be legalized: input 1 (perm) must be a constant [node 'perm_arg']
// CHECK-NEXT: tf_to_cann_table_errors.mlir:[[# @LINE + 11]]:{{[0-9]+}}: error: tf.Einsum cannot be legalized: Einsum '...ij,...jk->...ik': only explicit equations without ellipsis [node 'ellipsis']
// CHECK-NEXT: tf_to_cann_table_errors.mlir:[[# @LINE + 11]]:{{[0-9]+}}: error: tf.FusedBatchNormV3 cannot be legalized: only inference batch norm (is_training = false) is supported [node 'bn_train']
// CHECK-NEXT: tf_to_cann_table_errors.mlir:[[# @LINE + 11]]:{{[0-9]+}}: error: tf.Reshape cannot be legalized: needs a static result shape; got ?x? [node 'dyn_reshape']
// CHECK-NEXT: tf_to_cann_table_errors.mlir:[[# @LINE + 11]]:{{[0-9]+}}: error: tf.Lgamma has no CANN lowering [node 'lgamma']
// CHECK-NEXT: tf_to_cann_table_errors.mlir:[[# @LINE + 11]]:{{[0-9]+}}: error: tf.Mean cannot be legalized: ReduceMeanD supports float16, float32, bfloat16; got int32 [node 'mean_i32']
// CHECK-NOT: error
func.func @main(%a: tensor<2x3xf64>, %b: tensor<3x4xf64>, %x: tensor<2x3xf32>, %p: tensor<2xi32>, %d: tensor<?x3xf32>, %s: tensor<3xf32>, %i: tensor<2x3xi32>, %ax: tensor<i32>) {
  %c = "tf.Const"() {value = dense<[-1, 3]> : tensor<2xi32>} : () -> tensor<2xi32>
  %c0 = "tf.Const"() {value = dense<0> : tensor<1xi32>} : () -> tensor<1xi32>
  %0 = "tf.MatMul"(%a, %b) {transpose_a = false, transpose_b = false} : (tensor<2x3xf64>, tensor<3x4xf64>) -> tensor<2x4xf64> loc("mm64")
  %1 = "tf.Transpose"(%x, %p) : (tensor<2x3xf32>, tensor<2xi32>) -> tensor<3x2xf32> loc("perm_arg")
  %2 = "tf.Einsum"(%x, %x) {equation = "...ij,...jk->...ik", N = 2 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x2xf32> loc("ellipsis")
  %y, %bm, %bv, %r1, %r2, %r3 = "tf.FusedBatchNormV3"(%x, %s, %s, %s, %s) {epsilon = 1.0e-03 : f32, data_format = "NHWC", is_training = true} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<*xf32>) loc("bn_train")
  %3 = "tf.Reshape"(%d, %p) : (tensor<?x3xf32>, tensor<2xi32>) -> tensor<?x?xf32> loc("dyn_reshape")
  %4 = "tf.Lgamma"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32> loc("lgamma")
  %5 = "tf.Mean"(%i, %c0) {keep_dims = false} : (tensor<2x3xi32>, tensor<1xi32>) -> tensor<3xi32> loc("mean_i32")
  func.return
}
