// RUN: cann-opt --tf-to-cann %s | filecheck %s
// RUN: cann-opt --tf-to-cann --assign-layouts --cann-to-kernel %s | filecheck %s --check-prefix=KERNEL
// RUN: not cann-opt --tf-to-cann %S/Inputs/depth_space_errors.mlir 2>&1 | filecheck %s --check-prefix=ERR

// DepthToSpace / SpaceToDepth (NHWC) from existing ops: Reshape to the 6-D block view,
// TransposeD (0, 1, 3, 2, 4, 5), Reshape back (TensorFlow's DCR order); no new kernel.
// CHECK-LABEL: func.func @depth_space(
// CHECK-NEXT: %0 = cann.Reshape %x {shape = array<i64: 1, 2, 3, 2, 2, 2>} : (tensor<1x2x3x8xf32>) -> tensor<1x2x3x2x2x2xf32>
// CHECK-NEXT: %1 = cann.TransposeD %0 {perm = array<i64: 0, 1, 3, 2, 4, 5>} : (tensor<1x2x3x2x2x2xf32>) -> tensor<1x2x2x3x2x2xf32>
// CHECK-NEXT: %2 = cann.Reshape %1 {shape = array<i64: 1, 4, 6, 2>} : (tensor<1x2x2x3x2x2xf32>) -> tensor<1x4x6x2xf32>
// CHECK-NEXT: %3 = cann.Reshape %y {shape = array<i64: 2, 2, 2, 3, 2, 3>} : (tensor<2x4x6x3xf32>) -> tensor<2x2x2x3x2x3xf32>
// CHECK-NEXT: %4 = cann.TransposeD %3 {perm = array<i64: 0, 1, 3, 2, 4, 5>} : (tensor<2x2x2x3x2x3xf32>) -> tensor<2x2x3x2x2x3xf32>
// CHECK-NEXT: %5 = cann.Reshape %4 {shape = array<i64: 2, 2, 3, 12>} : (tensor<2x2x3x2x2x3xf32>) -> tensor<2x2x3x12xf32>
// CHECK-NEXT: func.return %2, %5
// KERNEL-LABEL: func.func @depth_space(
// KERNEL: kernel.vec_kernel {{.*}}{kind = "TransposeD"
// KERNEL: kernel.vec_kernel {{.*}}{kind = "TransposeD"
// KERNEL-NOT: cann.
func.func @depth_space(%x: tensor<1x2x3x8xf32>, %y: tensor<2x4x6x3xf32>) -> (tensor<1x4x6x2xf32>, tensor<2x2x3x12xf32>) {
  %0 = "tf.DepthToSpace"(%x) {block_size = 2 : i64, data_format = "NHWC"} : (tensor<1x2x3x8xf32>) -> tensor<1x4x6x2xf32>
  %1 = "tf.SpaceToDepth"(%y) {block_size = 2 : i64, data_format = "NHWC"} : (tensor<2x4x6x3xf32>) -> tensor<2x2x3x12xf32>
  func.return %0, %1 : tensor<1x4x6x2xf32>, tensor<2x2x3x12xf32>
}

// ERR: depth_space_errors.mlir:{{[0-9]+}}:{{[0-9]+}}: error: tf.DepthToSpace cannot be legalized: depth 6 is not a multiple of block_size^2 = 4 [node 'depth_not_multiple']
// ERR: depth_space_errors.mlir:{{[0-9]+}}:{{[0-9]+}}: error: tf.DepthToSpace cannot be legalized: data_format NCHW is not supported (only NHWC) [node 'nchw']
// ERR: depth_space_errors.mlir:{{[0-9]+}}:{{[0-9]+}}: error: tf.SpaceToDepth cannot be legalized: spatial dims [2, 3] are not multiples of block_size 2 [node 'odd_width']
// ERR: depth_space_errors.mlir:{{[0-9]+}}:{{[0-9]+}}: error: tf.SpaceToDepth cannot be legalized: input needs a static shape; got ?x4x4x4 [node 'dynamic']
