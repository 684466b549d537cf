// Row ops as a matmul kernel's epilogue (compiler/transforms/fusion/row_epilogue.py): a softmax
// or AddLayerNorm over the last axis of a matmul's single-use result is marked `epilogue` when
// the row fits one output tile (N <= 256); cann-to-kernel tiles the matmul with whole rows in
// one base block (singleCoreN = baseN) and runs the row statistics on the output tile, over its
// first N columns (`cols`), so no row kernel is left.  Last: a global average pool as the
// matmul's A-tile prologue.
// RUN: cann-opt --fuse %s | filecheck %s
// RUN: cann-opt --fuse %s | cann-opt --fuse | filecheck %s
// RUN: cann-opt --fuse --assign-layouts --cann-to-kernel %s | filecheck %s --check-prefix=KERNEL
// RUN: cann-opt --fuse='disable=RowEpilogueFusion' %s | filecheck %s --check-prefix=OFF

// CHECK-LABEL: func.func @dense_softmax
// CHECK:         %[[M:.*]] = cann.FusedMatMul %x, %w, %b
// CHECK-NEXT:    cann.SoftmaxV2 %[[M]] {epilogue, axes = array<i64: -1>}
// OFF-LABEL:   func.func @dense_softmax
// OFF:           cann.SoftmaxV2 %{{.*}} {axes = array<i64: -1>}
// KERNEL-LABEL: func.func @dense_softmax
// KERNEL:         kernel.cube {{.*}}kind = "MatMulV2"{{.*}}singleCoreN = 16, {{.*}}baseN = 16,
// KERNEL:           kernel.fixpipe
// KERNEL-NEXT:      kernel.load {{.*}}view = "channel"
// KERNEL-NEXT:      kernel.vec {{.*}}fn = "Add"
// KERNEL-NEXT:      kernel.vec {{.*}}fn = "RowMax", attrs = {cols = 10 : i64}} : (memref<16x16xf32, #kernel.space<UB>>) -> memref<16x1xf32, #kernel.space<UB>>
// KERNEL-NEXT:      kernel.vec {{.*}}fn = "Sub"
// KERNEL-NEXT:      kernel.vec {{.*}}fn = "Exp"
// KERNEL-NEXT:      kernel.vec {{.*}}fn = "RowSum", attrs = {cols = 10 : i64}}
// KERNEL-NEXT:      kernel.vec {{.*}}fn = "RealDiv"
// KERNEL-NEXT:      kernel.store
// KERNEL-NOT:     kernel.vec_kernel
// KERNEL:         func.return
func.func @dense_softmax(%x: tensor<4x32xf32>) -> tensor<4x10xf32> {
  %w = cann.Const dense<0.25> : tensor<32x10xf32>
  %b = cann.Const dense<0.125> : tensor<10xf32>
  %m = cann.FusedMatMul %x, %w, %b {transpose_x1 = false, transpose_x2 = false, activation = "none"} : (tensor<4x32xf32>, tensor<32x10xf32>, tensor<10xf32>) -> tensor<4x10xf32>
  %y = cann.SoftmaxV2 %m {axes = array<i64: -1>} : (tensor<4x10xf32>) -> tensor<4x10xf32>
  func.return %y : tensor<4x10xf32>
}

// The residual, gamma and beta loaded on the output tile; 64 columns fill the tile (no cols).
// CHECK-LABEL: func.func @dense_add_layer_norm
// CHECK:         cann.AddLayerNorm %{{.*}}, %h, %g, %be {epilogue,
// KERNEL-LABEL: func.func @dense_add_layer_norm
// KERNEL:         kernel.cube {{.*}}kind = "MatMulV2"{{.*}}singleCoreN = 64, {{.*}}baseN = 64,
// KERNEL:           kernel.fixpipe
// KERNEL:           kernel.vec {{.*}}fn = "Add"
// KERNEL-NEXT:      kernel.load
// KERNEL-NEXT:      kernel.vec {{.*}}fn = "Add"
// KERNEL:           kernel.vec {{.*}}fn = "RowMean", attrs = {}}
// KERNEL:           kernel.vec {{.*}}fn = "Rsqrt"
// KERNEL:           kernel.store
// KERNEL-NOT:     kernel.vec_kernel
// KERNEL:         func.return
func.func @dense_add_layer_norm(%h: tensor<32x64xf32>, %g: tensor<64xf32>, %be: tensor<64xf32>) -> tensor<32x64xf32> {
  %w = cann.Const dense<0.25> : tensor<64x64xf32>
  %b = cann.Const dense<0.125> : tensor<64xf32>
  %m = cann.FusedMatMul %h, %w, %b {transpose_x1 = false, transpose_x2 = false, activation = "none"} : (tensor<32x64xf32>, tensor<64x64xf32>, tensor<64xf32>) -> tensor<32x64xf32>
  %y = cann.AddLayerNorm %m, %h, %g, %be {begin_norm_axis = 1 : i64, begin_params_axis = 1 : i64, epsilon = 1.000000e-12 : f32} : (tensor<32x64xf32>, tensor<32x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<32x64xf32>
  func.return %y : tensor<32x64xf32>
}

// A row of 300 columns is wider than one output tile: the softmax stays a kernel of its own.
// CHECK-LABEL: func.func @wide_softmax
// CHECK:         cann.SoftmaxV2 %{{.*}} {axes = array<i64: -1>}
func.func @wide_softmax(%x: tensor<4x32xf32>) -> tensor<4x300xf32> {
  %w = cann.Const dense<0.25> : tensor<32x300xf32>
  %m = cann.MatMulV2 %x, %w {transpose_x1 = false, transpose_x2 = false} : (tensor<4x32xf32>, tensor<32x300xf32>) -> tensor<4x300xf32>
  %y = cann.SoftmaxV2 %m {axes = array<i64: -1>} : (tensor<4x300xf32>) -> tensor<4x300xf32>
  func.return %y : tensor<4x300xf32>
}

// A global average pool read only by a matmul as its A (compiler/transforms/fusion/mean_prologue.py)
// is marked `prologue`: the matmul kernel computes its A tiles from the pool's NC1HWC0 input by
// chunks of pixels, and the pool is no kernel.
// CHECK-LABEL: func.func @gap_dense_softmax
// CHECK:         %[[X:.*]] = cann.Conv2D %x0, %wc
// CHECK-NEXT:    %[[P:.*]] = cann.ReduceMeanD %[[X]] {prologue, axes = array<i64: 1, 2>, keep_dims = false}
// CHECK-NEXT:    %[[M:.*]] = cann.FusedMatMul %[[P]]
// CHECK-NEXT:    cann.SoftmaxV2 %[[M]] {epilogue,
// KERNEL-LABEL: func.func @gap_dense_softmax
// KERNEL-NOT:     kind = "ReduceMeanD"
// KERNEL:         kernel.cube {{.*}}kind = "Conv2D"
// KERNEL-NOT:     kind = "ReduceMeanD"
// KERNEL:         kernel.cube {{.*}}kind = "MatMulV2"
// KERNEL:           kernel.vec {{.*}}fn = "Fill"{{.*}} -> memref<1x16xf32, #kernel.space<UB>>
// KERNEL:           kernel.for
// KERNEL:             kernel.load {{.*}}view = "nc1hwc0_pixels"{{.*}} -> memref<1x36x16xf32, #kernel.space<UB>>
// KERNEL-NEXT:        kernel.vec {{.*}}fn = "RowSum"{{.*}} -> memref<1x16xf32, #kernel.space<UB>>
// KERNEL-NEXT:        kernel.accumulate
// KERNEL:           kernel.vec {{.*}}fn = "Muls", attrs = {value = 0.027777{{[0-9]*}} : f32}}
// KERNEL-NEXT:      kernel.load {{.*}}view = "copy"{{.*}} -> memref<16x16xf32, #kernel.space<L1>>
// KERNEL:           kernel.mmad
// KERNEL:           kernel.vec {{.*}}fn = "RowMax", attrs = {cols = 10 : i64}}
// KERNEL-NOT:     kernel.vec_kernel
// KERNEL:         func.return
func.func @gap_dense_softmax(%x0: tensor<1x6x6x8xf32>) -> tensor<1x10xf32> {
  %wc = cann.Const dense<0.5> : tensor<1x1x8x16xf32>
  %w = cann.Const dense<0.25> : tensor<16x10xf32>
  %b = cann.Const dense<0.125> : tensor<10xf32>
  %x = cann.Conv2D %x0, %wc {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x6x6x8xf32>, tensor<1x1x8x16xf32>) -> tensor<1x6x6x16xf32>
  %p = cann.ReduceMeanD %x {axes = array<i64: 1, 2>, keep_dims = false} : (tensor<1x6x6x16xf32>) -> tensor<1x16xf32>
  %m = cann.FusedMatMul %p, %w, %b {transpose_x1 = false, transpose_x2 = false, activation = "none"} : (tensor<1x16xf32>, tensor<16x10xf32>, tensor<10xf32>) -> tensor<1x10xf32>
  %y = cann.SoftmaxV2 %m {axes = array<i64: -1>} : (tensor<1x10xf32>) -> tensor<1x10xf32>
  func.return %y : tensor<1x10xf32>
}
