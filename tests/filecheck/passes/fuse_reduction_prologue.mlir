// Input fusion (compiler/transforms/fusion/auto.py, InputFusable reductions): a pointwise kernel
// read only by reductions (ReduceD, LayerNorm, AddLayerNorm) as a data input is marked
// `prologue`; cann-to-kernel (compiler/conversions/cann_to_kernel/reduction_prologue.py) runs its
// body on each tile of the reduction's kernel in UB, so the pointwise result never goes to GM:
// ReduceD's chunks load x-shaped inputs with chunk_rows and channel vectors with chunk_channel,
// and the chunk_valid mask selects the stored tile at channel padding lanes and past the end
// (f(0) need not be 0); a row kernel runs it on its rows tile.
// RUN: cann-opt --fuse %s | filecheck %s
// RUN: cann-opt --fuse %s | cann-opt --fuse | filecheck %s
// RUN: cann-opt --fuse --assign-layouts --cann-to-kernel %s | filecheck %s --check-prefix=KERNEL
// RUN: cann-opt --fuse --fusion-report=- %s 2>&1 >/dev/null | filecheck %s --check-prefix=REPORT
// RUN: cann-opt --fuse=disable=AutomaticPrologueFusion %s | filecheck %s --check-prefix=OFF

// REPORT: pointwise ops left as kernels of their own (why no neighbour took them):
// REPORT-NEXT: FusedKernel 'escapes' (prologue rejected): not its consumers' prologue: consumer func.return is not a convolution
// REPORT-NOT: 'bn_relu'
// REPORT-NOT: 'scale'

// BN-ReLU (per-channel Mul / Add) before a global average pool, 20 channels (C1 = 2: padding lanes).
// CHECK-LABEL: func.func @bn_relu_gap
// CHECK:         %[[P:.*]] = cann.FusedKernel %{{.*}}, %s, %t {prologue}
// CHECK:         cann.ReduceMeanD %[[P]]
// OFF-LABEL: func.func @bn_relu_gap
// OFF-NOT:       {prologue}
// KERNEL-LABEL: func.func @bn_relu_gap
// KERNEL-NOT:     kind = "Elementwise"
// KERNEL:         kernel.vec_kernel %{{.*}}, %s, %t {kind = "ReduceMeanD"
// KERNEL:           kernel.load %{{.*}} {view = "chunk_rows"
// KERNEL-NEXT:      kernel.load %{{.*}} {view = "chunk_channel", {{.*}}layout = 1
// KERNEL-NEXT:      kernel.vec {{.*}}fn = "Mul"
// KERNEL-NEXT:      kernel.load %{{.*}} {view = "chunk_channel"
// KERNEL-NEXT:      kernel.vec {{.*}}fn = "Add"
// KERNEL-NEXT:      kernel.vec {{.*}}fn = "Relu"
// KERNEL-NEXT:      kernel.load %{{.*}} {view = "chunk_valid", {{.*}}channels = 20
// KERNEL-NEXT:      kernel.vec {{.*}}fn = "SelectV2"
// KERNEL-NEXT:      kernel.vec {{.*}}fn = "RowSum"
func.func @bn_relu_gap(%x: tensor<1x6x6x8xf32>) -> (tensor<1x20xf32>, tensor<1x6x6x4xf32>) {
  %w = cann.Const dense<0.125> : tensor<3x3x8x20xf32>
  %s = cann.Const dense<1.5> : tensor<20xf32>
  %t = cann.Const dense<0.25> : tensor<20xf32>
  %c = cann.Conv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x6x6x8xf32>, tensor<3x3x8x20xf32>) -> tensor<1x6x6x20xf32>
  %0 = cann.Mul %c, %s : (tensor<1x6x6x20xf32>, tensor<20xf32>) -> tensor<1x6x6x20xf32>
  %1 = cann.Add %0, %t : (tensor<1x6x6x20xf32>, tensor<20xf32>) -> tensor<1x6x6x20xf32>
  %2 = cann.Relu %1 : (tensor<1x6x6x20xf32>) -> tensor<1x6x6x20xf32> loc("bn_relu")
  %m = cann.ReduceMeanD %2 {axes = array<i64: 1, 2>, keep_dims = 0 : i64} : (tensor<1x6x6x20xf32>) -> tensor<1x20xf32>
  %w2 = cann.Const dense<0.25> : tensor<1x1x20x4xf32>
  %d = cann.Conv2D %c, %w2 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x6x6x20xf32>, tensor<1x1x20x4xf32>) -> tensor<1x6x6x4xf32>
  func.return %m, %d : tensor<1x20xf32>, tensor<1x6x6x4xf32>
}

// Token + position + segment embeddings before LayerNorm: the last Add and the LayerNorm are one
// AddLayerNorm (a recomposition rule); the first Add is its x1 prologue.
// CHECK-LABEL: func.func @embeddings_layer_norm
// CHECK:         %[[E:.*]] = cann.FusedKernel %tok, %pos {prologue}
// CHECK:         cann.AddLayerNorm %[[E]], %seg, %g, %b
// KERNEL-LABEL: func.func @embeddings_layer_norm
// KERNEL-NOT:     kind = "Elementwise"
// KERNEL:         kernel.vec_kernel %tok, %pos, %seg, %g, %b {kind = "AddLayerNorm"
// KERNEL:           kernel.load %{{.*}} {view = "rows"
// KERNEL-NEXT:      kernel.load %{{.*}} {view = "rows"
// KERNEL-NEXT:      kernel.vec {{.*}}fn = "Add"
// KERNEL-NEXT:      kernel.load %{{.*}} {view = "rows"
// KERNEL-NEXT:      kernel.vec {{.*}}fn = "Add"
// KERNEL-NEXT:      kernel.vec {{.*}}fn = "RowMean"
func.func @embeddings_layer_norm(%tok: tensor<1x16x64xf32>, %pos: tensor<1x16x64xf32>, %seg: tensor<1x16x64xf32>) -> tensor<1x16x64xf32> {
  %g = cann.Const dense<1.5> : tensor<64xf32>
  %b = cann.Const dense<0.25> : tensor<64xf32>
  %0 = cann.Add %tok, %pos : (tensor<1x16x64xf32>, tensor<1x16x64xf32>) -> tensor<1x16x64xf32>
  %1 = cann.Add %0, %seg : (tensor<1x16x64xf32>, tensor<1x16x64xf32>) -> tensor<1x16x64xf32>
  %2 = cann.LayerNorm %1, %g, %b {begin_norm_axis = 2 : i64, begin_params_axis = 2 : i64, epsilon = 1.0e-12 : f32} : (tensor<1x16x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<1x16x64xf32>
  func.return %2 : tensor<1x16x64xf32>
}

// A per-channel scale (a layer scale) before LayerNorm: its channel vector is loaded once per
// tile as the row's values.
// CHECK-LABEL: func.func @scale_layer_norm
// CHECK:         %[[S:.*]] = cann.FusedKernel %x, %ls {prologue}
// CHECK:         cann.LayerNorm %[[S]], %g, %b
// KERNEL-LABEL: func.func @scale_layer_norm
// KERNEL:         kernel.vec_kernel %x, %ls, %g, %b {kind = "LayerNorm"
// KERNEL:           kernel.load %{{.*}} {view = "rows"
// KERNEL-NEXT:      kernel.index
// KERNEL-NEXT:      kernel.load %{{.*}} {view = "flat", params = {shape = array<i64: 64>}}
// KERNEL-NEXT:      kernel.vec {{.*}}fn = "Mul"
func.func @scale_layer_norm(%x: tensor<1x16x64xf32>) -> tensor<1x16x64xf32> {
  %ls = cann.Const dense<0.5> : tensor<64xf32>
  %g = cann.Const dense<1.5> : tensor<64xf32>
  %b = cann.Const dense<0.25> : tensor<64xf32>
  %0 = cann.Mul %x, %ls : (tensor<1x16x64xf32>, tensor<64xf32>) -> tensor<1x16x64xf32> loc("scale")
  %1 = cann.LayerNorm %0, %g, %b {begin_norm_axis = 2 : i64, begin_params_axis = 2 : i64, epsilon = 1.0e-12 : f32} : (tensor<1x16x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<1x16x64xf32>
  func.return %1 : tensor<1x16x64xf32>
}

// The pointwise result is also a function result: it is materialized, so no prologue.
// CHECK-LABEL: func.func @escapes
// CHECK:         cann.FusedKernel
// CHECK-NOT:     {prologue}
// CHECK:         cann.ReduceMaxD
func.func @escapes(%x: tensor<1x4x4x8xf32>) -> (tensor<1x8xf32>, tensor<1x4x4x8xf32>) {
  %s = cann.Const dense<1.5> : tensor<8xf32>
  %0 = cann.Mul %x, %s : (tensor<1x4x4x8xf32>, tensor<8xf32>) -> tensor<1x4x4x8xf32>
  %1 = cann.Relu %0 : (tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32> loc("escapes")
  %m = cann.ReduceMaxD %1 {axes = array<i64: 1, 2>, keep_dims = 0 : i64} : (tensor<1x4x4x8xf32>) -> tensor<1x8xf32>
  func.return %m, %1 : tensor<1x8xf32>, tensor<1x4x4x8xf32>
}
