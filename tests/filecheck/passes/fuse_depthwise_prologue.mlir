// A depthwise conv whose only reader is a 1x1 conv (stride 1, no pads, groups 1) is marked
// `prologue` by the fuse pass (compiler/transforms/fusion/depthwise.py mark_depthwise_prologues):
// cann-to-kernel computes the 1x1 conv's A tiles from the depthwise input in UB (per filter tap
// one img2col load with the tap's shifted pads, times the tap's HWCN weights as a channel vector,
// summed; + bias, activation) and moves them UB -> L1: one cube kernel, the depthwise result
// never in GM.  assign-layouts leaves the marked conv's filter HWCN (no FRACTAL_Z TransData).
// RUN: cann-opt --fuse %s | filecheck %s
// RUN: cann-opt --fuse %s | cann-opt --fuse | filecheck %s
// RUN: cann-opt --fuse --assign-layouts --cann-to-kernel %s | filecheck %s --check-prefix=KERNEL
// RUN: cann-opt --fuse --fusion-report=- %s 2>&1 >/dev/null | filecheck %s --check-prefix=REPORT
// RUN: cann-opt --fuse=disable=AutomaticPrologueFusion %s | filecheck %s --check-prefix=OFF

// REPORT: fusion report: kernels 4 -> 3,
// REPORT: depthwise convs run in their 1x1 conv's A tiles (separable convs): 1

// CHECK-LABEL: func.func @separable
// CHECK:         %[[D:.*]] = cann.FusedDepthwiseConv2D %x, %w, %b {prologue, {{.*}}activation = "Relu6"}
// CHECK:         cann.Conv2D %[[D]], %p
// OFF-LABEL: func.func @separable
// OFF-NOT:       {prologue}
// KERNEL-LABEL: func.func @separable
// KERNEL-NOT:     kind = "DepthwiseConv2D"
// KERNEL:         kernel.cube %{{.*}}, %{{.*}}, %w, %b {kind = "Conv2D"
// KERNEL:           kernel.load %{{.*}} {view = "img2col", params = {{{.*}}pads = array<i64: 2, 2, 2, 2>
// KERNEL-NEXT:      kernel.load %{{.*}} {view = "img2col_channel", params = {{{.*}}channel_offset = 0 : i64
// KERNEL-NEXT:      kernel.vec {{.*}}fn = "Mul"
// KERNEL-NEXT:      kernel.load %{{.*}} {view = "img2col", params = {{{.*}}pads = array<i64: 2, 2, 1, 2>
// KERNEL-NEXT:      kernel.load %{{.*}} {view = "img2col_channel", params = {{{.*}}channel_offset = 20 : i64
// KERNEL-NEXT:      kernel.vec {{.*}}fn = "Mul"
// KERNEL-NEXT:      kernel.vec {{.*}}fn = "Add"
// KERNEL:           kernel.load %{{.*}} {view = "img2col", params = {{{.*}}pads = array<i64: -2, 2, -2, 2>
// KERNEL:           kernel.load %{{.*}} {view = "img2col_channel", params = {{{.*}}c0 = 16 : i64}}
// KERNEL-NEXT:      kernel.vec {{.*}}fn = "Add"
// KERNEL-NEXT:      kernel.vec {{.*}}fn = "act:Relu6"
// KERNEL-NEXT:      kernel.load %{{.*}} {view = "copy"{{.*}}#kernel.space<L1>>
func.func @separable(%x: tensor<1x8x8x20xf32>) -> tensor<1x8x8x24xf32> {
  %w = cann.Const dense<0.125> : tensor<5x5x20x1xf32>
  %b = cann.Const dense<0.5> : tensor<20xf32>
  %p = cann.Const dense<0.25> : tensor<1x1x20x24xf32>
  %0 = cann.FusedDepthwiseConv2D %x, %w, %b {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 2, 2, 2, 2>, dilations = array<i64: 1, 1, 1, 1>, data_format = "NHWC", activation = "Relu6"} : (tensor<1x8x8x20xf32>, tensor<5x5x20x1xf32>, tensor<20xf32>) -> tensor<1x8x8x20xf32>
  %1 = cann.Conv2D %0, %p {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x8x8x20xf32>, tensor<1x1x20x24xf32>) -> tensor<1x8x8x24xf32>
  func.return %1 : tensor<1x8x8x24xf32>
}

// A 3x3 reader (or one with pads) reads the depthwise result through its own img2col: no prologue.
// CHECK-LABEL: func.func @spatial_reader
// CHECK-NOT:     {prologue}
// KERNEL-LABEL: func.func @spatial_reader
// KERNEL:         kind = "DepthwiseConv2D"
// KERNEL:         kind = "Conv2D"
func.func @spatial_reader(%x: tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32> {
  %w = cann.Const dense<0.125> : tensor<3x3x8x1xf32>
  %p = cann.Const dense<0.25> : tensor<3x3x8x8xf32>
  %0 = cann.DepthwiseConv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, data_format = "NHWC"} : (tensor<1x6x6x8xf32>, tensor<3x3x8x1xf32>) -> tensor<1x6x6x8xf32>
  %1 = cann.Conv2D %0, %p {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x6x6x8xf32>, tensor<3x3x8x8xf32>) -> tensor<1x6x6x8xf32>
  func.return %1 : tensor<1x6x6x8xf32>
}
