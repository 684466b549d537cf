// RUN: cann-opt --tf-to-cann %s | filecheck %s
// RUN: cann-opt --tf-to-cann --assign-layouts --cann-to-kernel %s | filecheck %s --check-prefix=KERNEL
// RUN: not cann-opt --tf-to-cann %S/Inputs/gather_nd_errors.mlir 2>&1 | filecheck %s --check-prefix=ERR

// GatherNd(params, indices [.., m]) from the existing GatherV2D: params reshaped to
// [P0*..*Pm-1, rest..], gathered on axis 0 at dot(indices, strides): Mul + ReduceSumD on int32
// (int64 indices Cast first; m = 1: a Reshape), a constant for constant indices.
// CHECK-LABEL: func.func @gather_nd(
// CHECK-NEXT: %c = cann.Const dense<{{\[}}[1, 2], [3, 4]]> : tensor<2x2xi32>
// CHECK-NEXT: %0 = cann.Cast %i {dst_type = i32} : (tensor<2x6x2xi64>) -> tensor<2x6x2xi32>
// CHECK-NEXT: %1 = cann.Const dense<{{\[\[\[}}5, 1]]]> : tensor<1x1x2xi32>
// CHECK-NEXT: %2 = cann.Mul %0, %1 : (tensor<2x6x2xi32>, tensor<1x1x2xi32>) -> tensor<2x6x2xi32>
// CHECK-NEXT: %3 = cann.ReduceSumD %2 {axes = array<i64: 2>, keep_dims = false} : (tensor<2x6x2xi32>) -> tensor<2x6xi32>
// CHECK-NEXT: %4 = cann.Reshape %p {shape = array<i64: 20, 3>} : (tensor<4x5x3xf32>) -> tensor<20x3xf32>
// CHECK-NEXT: %5 = cann.GatherV2D %4, %3 {axis = 0 : i64} : (tensor<20x3xf32>, tensor<2x6xi32>) -> tensor<2x6x3xf32>
// CHECK-NEXT: %6 = cann.Reshape %j {shape = array<i64: 7>} : (tensor<7x1xi32>) -> tensor<7xi32>
// CHECK-NEXT: %7 = cann.GatherV2D %p, %6 {axis = 0 : i64} : (tensor<4x5x3xf32>, tensor<7xi32>) -> tensor<7x5x3xf32>
// CHECK-NEXT: %8 = cann.Const dense<[7, 19]> : tensor<2xi32>
// CHECK-NEXT: %9 = cann.Reshape %p {shape = array<i64: 20, 3>} : (tensor<4x5x3xf32>) -> tensor<20x3xf32>
// CHECK-NEXT: %10 = cann.GatherV2D %9, %8 {axis = 0 : i64} : (tensor<20x3xf32>, tensor<2xi32>) -> tensor<2x3xf32>
// CHECK-NEXT: func.return %5, %7, %10
// KERNEL-LABEL: func.func @gather_nd(
// KERNEL: kernel.vec_kernel {{.*}}{kind = "GatherV2D"
// KERNEL: kernel.vec_kernel {{.*}}{kind = "GatherV2D"
// KERNEL: kernel.vec_kernel {{.*}}{kind = "GatherV2D"
// KERNEL-NOT: cann.GatherV2D
func.func @gather_nd(%p: tensor<4x5x3xf32>, %i: tensor<2x6x2xi64>, %j: tensor<7x1xi32>) -> (tensor<2x6x3xf32>, tensor<7x5x3xf32>, tensor<2x3xf32>) {
  %c = "tf.Const"() {value = dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>} : () -> tensor<2x2xi32>
  %0 = "tf.GatherNd"(%p, %i) : (tensor<4x5x3xf32>, tensor<2x6x2xi64>) -> tensor<2x6x3xf32>
  %1 = "tf.GatherNd"(%p, %j) : (tensor<4x5x3xf32>, tensor<7x1xi32>) -> tensor<7x5x3xf32>
  %2 = "tf.GatherNd"(%p, %c) : (tensor<4x5x3xf32>, tensor<2x2xi32>) -> tensor<2x3xf32>
  func.return %0, %1, %2 : tensor<2x6x3xf32>, tensor<7x5x3xf32>, tensor<2x3xf32>
}

// ERR: gather_nd_errors.mlir:{{[0-9]+}}:{{[0-9]+}}: error: tf.GatherNd cannot be legalized: the indices' last dimension 3 exceeds the rank 2 of params [node 'too_deep']
// ERR: gather_nd_errors.mlir:{{[0-9]+}}:{{[0-9]+}}: error: tf.GatherNd cannot be legalized: params needs a static shape; got ?x5 [node 'dynamic']
// ERR: gather_nd_errors.mlir:{{[0-9]+}}:{{[0-9]+}}: error: tf.GatherNd cannot be legalized: a constant index is out of range for params [4, 5] [node 'out_of_range']
