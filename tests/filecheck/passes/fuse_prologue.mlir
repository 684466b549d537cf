// Conv prologues by the automatic fusion (compiler/transforms/fusion/auto.py mark_prologues): the BatchNorm
// (per-channel Mul / Add) + Relu in front of a conv becomes a cann.FusedKernel marked `prologue`;
// cann-to-kernel runs its body on the window of x's rows an M block reads, in UB (channel
// vectors broadcast by fmap_channel, 0 on the 20 channels' padding lanes, where the body then
// computes relu(0 * 0 + 0) = 0: no mask) and moves it to L1, where Load3D expands it with the
// conv pads as zeros: one conv kernel, the pre-activation tensor never in GM
// (cann_to_kernel_rows_prologue.mlir: more).
// RUN: cann-opt --fuse %s | filecheck %s
// RUN: cann-opt --fuse %s | cann-opt --fuse | filecheck %s
// RUN: cann-opt --fuse --assign-layouts --cann-to-kernel %s | filecheck %s --check-prefix=KERNEL
// RUN: cann-opt --fuse --fusion-report=- %s 2>&1 >/dev/null | filecheck %s --check-prefix=REPORT
// RUN: cann-opt --fuse=disable=AutomaticPrologueFusion %s | filecheck %s --check-prefix=OFF

// REPORT: automatic fusion: 5 pointwise ops in 2 fused kernels (0 of them cube epilogues)
// REPORT: FusedKernel{{.*}} (prologue rejected): not its consumers' prologue: consumer func.return

// CHECK-LABEL: func.func @bn_relu_conv
// CHECK:         %[[P:.*]] = cann.FusedKernel %x, %s, %t {prologue} : (tensor<1x5x5x20xf32>, tensor<20xf32>, tensor<20xf32>) -> tensor<1x5x5x20xf32> {
// CHECK-NEXT:    ^bb0(%[[A0:.*]]: tensor<1x5x5x20xf32>, %[[A1:.*]]: tensor<20xf32>, %[[A2:.*]]: tensor<20xf32>):
// CHECK-NEXT:      %[[M:.*]] = cann.Mul %[[A0]], %[[A1]]
// CHECK-NEXT:      %[[S:.*]] = cann.Add %[[M]], %[[A2]]
// CHECK-NEXT:      %[[R:.*]] = cann.Relu %[[S]]
// CHECK-NEXT:      cann.Yield %[[R]]
// CHECK:         cann.Conv2D %[[P]], %w
// OFF-LABEL: func.func @bn_relu_conv
// OFF-NOT:       {prologue}
// KERNEL-LABEL: func.func @bn_relu_conv
// KERNEL-NOT:     kernel.vec_kernel
// KERNEL:         kernel.cube %{{.*}}, %{{.*}}, %s, %t {kind = "Conv2D", {{.*}}fmapRows = {{[0-9]+}}
// KERNEL:           kernel.load %{{.*}} {view = "fmap", {{.*}}-> memref<{{.*}}, #kernel.space<UB>>
// KERNEL-NEXT:      kernel.load %{{.*}} {view = "fmap_channel"
// KERNEL-NEXT:      kernel.vec {{.*}}fn = "Mul"
// KERNEL-NEXT:      kernel.load %{{.*}} {view = "fmap_channel"
// KERNEL-NEXT:      kernel.vec {{.*}}fn = "Add"
// KERNEL-NEXT:      kernel.vec {{.*}}fn = "Relu"
// KERNEL-NEXT:      kernel.load %{{.*}} {view = "copy"{{.*}}#kernel.space<L1>>
// KERNEL-NEXT:      kernel.for
// KERNEL-NOT:       _valid
// KERNEL:           kernel.load %{{.*}} {view = "load3d"
func.func @bn_relu_conv(%x: tensor<1x5x5x20xf32>) -> tensor<1x3x3x24xf32> {
  %s = cann.Const dense<1.5> : tensor<20xf32>
  %t = cann.Const dense<0.25> : tensor<20xf32>
  %w = cann.Const dense<0.125> : tensor<3x3x20x24xf32>
  %0 = cann.Mul %x, %s : (tensor<1x5x5x20xf32>, tensor<20xf32>) -> tensor<1x5x5x20xf32>
  %1 = cann.Add %0, %t : (tensor<1x5x5x20xf32>, tensor<20xf32>) -> tensor<1x5x5x20xf32>
  %2 = cann.Relu %1 : (tensor<1x5x5x20xf32>) -> tensor<1x5x5x20xf32>
  %c = cann.Conv2D %2, %w {strides = array<i64: 1, 2, 2, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x5x5x20xf32>, tensor<3x3x20x24xf32>) -> tensor<1x3x3x24xf32>
  func.return %c : tensor<1x3x3x24xf32>
}

// The pre-activation is also a function result: it must be materialized, so no prologue.
// CHECK-LABEL: func.func @escapes
// CHECK:         cann.FusedKernel %x, %s : (
// CHECK-NOT:     {prologue}
// KERNEL-LABEL: func.func @escapes
// KERNEL:         kernel.vec_kernel {{.*}}kind = "Elementwise"
// KERNEL:         kernel.cube {{.*}}kind = "Conv2D"
func.func @escapes(%x: tensor<1x4x4x8xf32>) -> (tensor<1x4x4x8xf32>, tensor<1x4x4x16xf32>) {
  %s = cann.Const dense<1.5> : tensor<8xf32>
  %w = cann.Const dense<0.25> : tensor<1x1x8x16xf32>
  %0 = cann.Mul %x, %s : (tensor<1x4x4x8xf32>, tensor<8xf32>) -> tensor<1x4x4x8xf32>
  %1 = cann.Relu %0 : (tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  %c = cann.Conv2D %1, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x4x4x8xf32>, tensor<1x1x8x16xf32>) -> tensor<1x4x4x16xf32>
  func.return %1, %c : tensor<1x4x4x8xf32>, tensor<1x4x4x16xf32>
}
