// RUN: cann-opt --tf-to-cann %s | filecheck %s
// RUN: cann-opt --tf-to-cann --assign-layouts --cann-to-kernel %s | filecheck %s --check-prefix=KERNEL
// RUN: not cann-opt --tf-to-cann %S/Inputs/lrn_errors.mlir 2>&1 | filecheck %s --check-prefix=ERR

// LRN(x; depth_radius r, bias, alpha, beta) = x * (bias + alpha * s)^-beta from existing ops:
// s, the sum of squares over channels [c - r, c + r] (clipped at the ends), is the [N*H*W, C]
// rows of Square(x) times the constant [C, C] band |i - j| <= r (a MatMulV2 on the cube).
// CHECK-LABEL: func.func @lrn(
// CHECK-NEXT: %0 = cann.Square %x : (tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
// CHECK-NEXT: %1 = cann.Reshape %0 {shape = array<i64: 6, 4>} : (tensor<1x2x3x4xf32>) -> tensor<6x4xf32>
// CHECK-NEXT: %2 = cann.Const dense<{{\[}}[1.000000e+00, 1.000000e+00, 0.000000e+00, 0.000000e+00], [1.000000e+00, 1.000000e+00, 1.000000e+00, 0.000000e+00], [0.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00], [0.000000e+00, 0.000000e+00, 1.000000e+00, 1.000000e+00]]> : tensor<4x4xf32>
// CHECK-NEXT: %3 = cann.MatMulV2 %1, %2 {transpose_x1 = false, transpose_x2 = false} : (tensor<6x4xf32>, tensor<4x4xf32>) -> tensor<6x4xf32>
// CHECK-NEXT: %4 = cann.Reshape %3 {shape = array<i64: 1, 2, 3, 4>} : (tensor<6x4xf32>) -> tensor<1x2x3x4xf32>
// CHECK-NEXT: %5 = cann.Const dense<5.000000e-01> : tensor<1x1x1x1xf32>
// CHECK-NEXT: %6 = cann.Mul %4, %5 : (tensor<1x2x3x4xf32>, tensor<1x1x1x1xf32>) -> tensor<1x2x3x4xf32>
// CHECK-NEXT: %7 = cann.Const dense<2.000000e+00> : tensor<1x1x1x1xf32>
// CHECK-NEXT: %8 = cann.Add %6, %7 : (tensor<1x2x3x4xf32>, tensor<1x1x1x1xf32>) -> tensor<1x2x3x4xf32>
// CHECK-NEXT: %9 = cann.Const dense<-7.500000e-01> : tensor<1x1x1x1xf32>
// CHECK-NEXT: %10 = cann.Pow %8, %9 : (tensor<1x2x3x4xf32>, tensor<1x1x1x1xf32>) -> tensor<1x2x3x4xf32>
// CHECK-NEXT: %11 = cann.Mul %x, %10 : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
// CHECK-NEXT: func.return %11
// KERNEL-LABEL: func.func @lrn(
// KERNEL: kernel.cube
// KERNEL-NOT: cann.MatMulV2
func.func @lrn(%x: tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32> {
  %0 = "tf.LRN"(%x) {depth_radius = 1 : i64, bias = 2.0 : f32, alpha = 0.5 : f32, beta = 0.75 : f32} : (tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  func.return %0 : tensor<1x2x3x4xf32>
}

// ERR: lrn_errors.mlir:{{[0-9]+}}:{{[0-9]+}}: error: tf.LRN cannot be legalized: input must be 4-D (NHWC), got rank 3 [node 'rank3']
// ERR: lrn_errors.mlir:{{[0-9]+}}:{{[0-9]+}}: error: tf.LRN cannot be legalized: input needs a static shape; got ?x2x3x6 [node 'dynamic']
