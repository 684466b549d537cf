// RUN: cann-opt --tf-to-cann %s | filecheck %s
// RUN: cann-opt --tf-to-cann --assign-layouts --cann-to-kernel %s | filecheck %s --check-prefix=KERNEL

// Ops the hold-out set (tests/model_zoo/holdout.py) found unsupported or wrong.

// GatherV2 with batch_dims k > 0 (tf.gather(batch_dims=k), take_along_axis: DeBERTa's
// relative positions): params [B.., M.., A, R..], indices [B.., I..] broadcast over M (Reshape +
// BroadcastToD), offset by their flat row times A (Add of a constant), one GatherV2D on axis 0
// of params as [B*M*A, R..], reshaped back.  A negative batch_dims counts from the indices' rank.
// CHECK-LABEL: func.func @gather_batch_dims(
// CHECK:      %0 = cann.Cast %i {dst_type = i32} : (tensor<2x7xi64>) -> tensor<2x7xi32>
// CHECK-NEXT: %1 = cann.Reshape %0 {shape = array<i64: 2, 1, 7>} : (tensor<2x7xi32>) -> tensor<2x1x7xi32>
// CHECK-NEXT: %2 = cann.BroadcastToD %1 {shape = array<i64: 2, 3, 7>} : (tensor<2x1x7xi32>) -> tensor<2x3x7xi32>
// CHECK-NEXT: %3 = cann.Reshape %2 {shape = array<i64: 6, 7>} : (tensor<2x3x7xi32>) -> tensor<6x7xi32>
// CHECK-NEXT: %4 = cann.Const dense<{{\[}}[0], [5], [10], [15], [20], [25]]> : tensor<6x1xi32>
// CHECK-NEXT: %5 = cann.Add %3, %4 : (tensor<6x7xi32>, tensor<6x1xi32>) -> tensor<6x7xi32>
// CHECK-NEXT: %6 = cann.Reshape %p {shape = array<i64: 30, 4>} : (tensor<2x3x5x4xf32>) -> tensor<30x4xf32>
// CHECK-NEXT: %7 = cann.GatherV2D %6, %5 {axis = 0 : i64} : (tensor<30x4xf32>, tensor<6x7xi32>) -> tensor<6x7x4xf32>
// CHECK-NEXT: %8 = cann.Reshape %7 {shape = array<i64: 2, 3, 7, 4>} : (tensor<6x7x4xf32>) -> tensor<2x3x7x4xf32>
// CHECK-NEXT: %9 = cann.Reshape %j {shape = array<i64: 6, 6>} : (tensor<2x3x6xi32>) -> tensor<6x6xi32>
// CHECK:      %11 = cann.Add %9, %10 : (tensor<6x6xi32>, tensor<6x1xi32>) -> tensor<6x6xi32>
// CHECK:      %13 = cann.GatherV2D %12, %11 {axis = 0 : i64} : (tensor<30x4xf32>, tensor<6x6xi32>) -> tensor<6x6x4xf32>
// CHECK-NEXT: %14 = cann.Reshape %13 {shape = array<i64: 2, 3, 6, 4>} : (tensor<6x6x4xf32>) -> tensor<2x3x6x4xf32>
// CHECK-NEXT: func.return %8, %14
// KERNEL-LABEL: func.func @gather_batch_dims(
// KERNEL: kernel.vec_kernel {{.*}}{kind = "GatherV2D"
// KERNEL: kernel.vec_kernel {{.*}}{kind = "GatherV2D"
// KERNEL-NOT: cann.GatherV2D
// KERNEL-LABEL: func.func @roll(
func.func @gather_batch_dims(%p: tensor<2x3x5x4xf32>, %i: tensor<2x7xi64>, %j: tensor<2x3x6xi32>) -> (tensor<2x3x7x4xf32>, tensor<2x3x6x4xf32>) {
  %ax = "tf.Const"() {value = dense<2> : tensor<i32>} : () -> tensor<i32>
  %0 = "tf.GatherV2"(%p, %i, %ax) {batch_dims = 1 : i64} : (tensor<2x3x5x4xf32>, tensor<2x7xi64>, tensor<i32>) -> tensor<2x3x7x4xf32>
  %1 = "tf.GatherV2"(%p, %j, %ax) {batch_dims = -1 : i64} : (tensor<2x3x5x4xf32>, tensor<2x3x6xi32>, tensor<i32>) -> tensor<2x3x6x4xf32>
  func.return %0, %1 : tensor<2x3x7x4xf32>, tensor<2x3x6x4xf32>
}

// Roll of constant shifts and axes (Swin's cyclic window shift): per axis one GatherV2D of
// (i - shift) mod n, the shifts of one axis added up (axis 1: -1 + 5 = 0 mod 4, axis 3: 6 = 0
// mod 3: no gather), a negative axis from the rank.
// CHECK-LABEL: func.func @roll(
// CHECK:      %0 = cann.Const dense<[4, 5, 0, 1, 2, 3]> : tensor<6xi32>
// CHECK-NEXT: %1 = cann.GatherV2D %x, %0 {axis = 2 : i64} : (tensor<1x4x6x3xf32>, tensor<6xi32>) -> tensor<1x4x6x3xf32>
// CHECK-NEXT: func.return %1
func.func @roll(%x: tensor<1x4x6x3xf32>) -> tensor<1x4x6x3xf32> {
  %s = "tf.Const"() {value = dense<[-1, 5, 2, 6]> : tensor<4xi32>} : () -> tensor<4xi32>
  %a = "tf.Const"() {value = dense<[1, 1, -2, 3]> : tensor<4xi32>} : () -> tensor<4xi32>
  %0 = "tf.Roll"(%x, %s, %a) : (tensor<1x4x6x3xf32>, tensor<4xi32>, tensor<4xi32>) -> tensor<1x4x6x3xf32>
  func.return %0 : tensor<1x4x6x3xf32>
}
