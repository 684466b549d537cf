// A global average pool over every axis but the first and the last, read through a view of an
// NHWC tensor of N*g images (compiler/transforms/fusion/mean_prologue.py): Conv3D folds the
// depth into N (here 4 = 2 x 2 images per row after an AveragePooling3D the canonicalizer
// folded into the mean), GlobalAveragePooling3D reshapes [4, H, W, C] to [1, 2, 2, H, W, C].
// The mean is marked `prologue`; the matmul kernel reads the conv's NC1HWC0 result and
// averages g*H*W = 144 pixels per A row (view nc1hwc0_pixels, images = 4): no mean kernel,
// no TransData to NHWC, no reshape is left.
// RUN: cann-opt --fuse %s | filecheck %s
// RUN: cann-opt --fuse %s | cann-opt --fuse | filecheck %s
// RUN: cann-opt --fuse --assign-layouts --cann-to-kernel %s | filecheck %s --check-prefix=KERNEL
// RUN: cann-opt --fuse='disable=AutomaticPrologueFusion' %s | filecheck %s --check-prefix=OFF

// CHECK-LABEL: func.func @gap3d_dense
// CHECK:         %[[X:.*]] = cann.Conv2D %x0, %wc
// CHECK-NEXT:    %[[R:.*]] = cann.Reshape %[[X]] {shape = array<i64: 1, 2, 2, 6, 6, 16>}
// CHECK-NEXT:    %[[P:.*]] = cann.ReduceMeanD %[[R]] {prologue, axes = array<i64: 1, 2, 3, 4>, keep_dims = false}
// CHECK-NEXT:    cann.FusedMatMul %[[P]]
// KERNEL-LABEL: func.func @gap3d_dense
// KERNEL:         %[[C:.*]] = kernel.cube {{.*}}kind = "Conv2D"
// KERNEL-NOT:     kernel.transdata
// KERNEL-NOT:     kind = "ReduceMeanD"
// KERNEL:         kernel.cube %[[C]], {{.*}}kind = "MatMulV2"
// KERNEL:           kernel.for
// KERNEL:             kernel.load {{.*}}view = "nc1hwc0_pixels", params = {images = 4 : i64}{{.*}} -> memref<1x144x16xf32, #kernel.space<UB>>
// KERNEL-NEXT:        kernel.vec {{.*}}fn = "RowSum"{{.*}} -> memref<1x16xf32, #kernel.space<UB>>
// KERNEL:           kernel.vec {{.*}}fn = "Muls", attrs = {value = 0.006944{{[0-9]*}} : f32}}
// KERNEL:           kernel.mmad
// KERNEL-NOT:     kernel.vec_kernel
// KERNEL-NOT:     kernel.view
// KERNEL:         func.return
// OFF-LABEL: func.func @gap3d_dense
// OFF:         cann.ReduceMeanD %{{.*}} {axes = array<i64: 1, 2, 3, 4>, keep_dims = false}
func.func @gap3d_dense(%x0: tensor<4x6x6x8xf32>) -> tensor<1x10xf32> {
  %wc = cann.Const dense<0.5> : tensor<1x1x8x16xf32>
  %w = cann.Const dense<0.25> : tensor<16x10xf32>
  %b = cann.Const dense<0.125> : tensor<10xf32>
  %x = cann.Conv2D %x0, %wc {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<4x6x6x8xf32>, tensor<1x1x8x16xf32>) -> tensor<4x6x6x16xf32>
  %r = cann.Reshape %x {shape = array<i64: 1, 2, 2, 6, 6, 16>} : (tensor<4x6x6x16xf32>) -> tensor<1x2x2x6x6x16xf32>
  %p = cann.ReduceMeanD %r {axes = array<i64: 1, 2, 3, 4>, keep_dims = false} : (tensor<1x2x2x6x6x16xf32>) -> tensor<1x16xf32>
  %y = cann.FusedMatMul %p, %w, %b {transpose_x1 = false, transpose_x2 = false, activation = "none"} : (tensor<1x16xf32>, tensor<16x10xf32>, tensor<10xf32>) -> tensor<1x10xf32>
  func.return %y : tensor<1x10xf32>
}
