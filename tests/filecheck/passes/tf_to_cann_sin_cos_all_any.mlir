// RUN: cann-opt --tf-to-cann %s | filecheck %s
// Sin and Cos (rotary position embeddings) are CANN unary ops; All / Any (CANN ReduceAllD /
// ReduceAnyD over booleans) are the min / max of the booleans cast to int32, cast back.
// CHECK-LABEL: func.func @sin_cos(
// CHECK-NEXT: %0 = cann.Sin %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: %1 = cann.Cos %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-LABEL: func.func @all_any(
// CHECK: %0 = cann.Cast %m {dst_type = i32} : (tensor<2x3x4xi1>) -> tensor<2x3x4xi32>
// CHECK-NEXT: %1 = cann.ReduceMinD %0 {axes = array<i64: 1>, keep_dims = true} : (tensor<2x3x4xi32>) -> tensor<2x1x4xi32>
// CHECK-NEXT: %2 = cann.Cast %1 {dst_type = i1} : (tensor<2x1x4xi32>) -> tensor<2x1x4xi1>
// CHECK-NEXT: %3 = cann.Cast %m {dst_type = i32} : (tensor<2x3x4xi1>) -> tensor<2x3x4xi32>
// CHECK-NEXT: %4 = cann.ReduceMaxD %3 {axes = array<i64: 0>, keep_dims = false} : (tensor<2x3x4xi32>) -> tensor<3x4xi32>
// CHECK-NEXT: %5 = cann.Cast %4 {dst_type = i1} : (tensor<3x4xi32>) -> tensor<3x4xi1>
// CHECK-NEXT: func.return %2, %5
func.func @sin_cos(%x: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>) {
  %0 = "tf.Sin"(%x) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %1 = "tf.Cos"(%x) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  func.return %0, %1 : tensor<2x8xf32>, tensor<2x8xf32>
}
func.func @all_any(%m: tensor<2x3x4xi1>) -> (tensor<2x1x4xi1>, tensor<3x4xi1>) {
  %ax1 = "tf.Const"() {value = dense<[-2]> : tensor<1xi32>} : () -> tensor<1xi32>
  %ax0 = "tf.Const"() {value = dense<[0]> : tensor<1xi32>} : () -> tensor<1xi32>
  %0 = "tf.All"(%m, %ax1) {keep_dims = true} : (tensor<2x3x4xi1>, tensor<1xi32>) -> tensor<2x1x4xi1>
  %1 = "tf.Any"(%m, %ax0) {keep_dims = false} : (tensor<2x3x4xi1>, tensor<1xi32>) -> tensor<3x4xi1>
  func.return %0, %1 : tensor<2x1x4xi1>, tensor<3x4xi1>
}
