// Sibling depthwise convs (compiler/transforms/fusion/depthwise.py): a 3x3 and a 5x5 depthwise conv
// of one input with one stride become ONE depthwise conv with channel multiplier 2 (the 3x3
// filter centred in the 5x5 window, zeros around; the absent bias zeros); their readers, 1x1
// convs, read the interleaved result with filters whose rows c*2 + j are their own sibling's.
// RUN: cann-opt --fuse %s | filecheck %s
// RUN: cann-opt --fuse='disable=HorizontalConvFusion' %s | filecheck %s --check-prefix=OFF
// RUN: cann-opt --fuse --assign-layouts --cann-to-kernel %s | filecheck %s --check-prefix=KERNEL

// CHECK-LABEL: func.func @main
// CHECK:         %[[D:.*]] = cann.FusedDepthwiseConv2D %x, %{{.*}}, %{{.*}} {strides = array<i64: 1, 2, 2, 1>, pads = array<i64: 2, 2, 2, 2>
// CHECK-SAME:        (tensor<1x9x9x8xf32>, tensor<5x5x8x2xf32>, tensor<16xf32>) -> tensor<1x5x5x16xf32>
// CHECK-NOT:     cann.DepthwiseConv2D
// CHECK:         cann.Conv2D %[[D]], %{{.*}} : (tensor<1x5x5x16xf32>, tensor<1x1x16x6xf32>)
// CHECK:         cann.Conv2D %[[D]], %{{.*}} : (tensor<1x5x5x16xf32>, tensor<1x1x16x4xf32>)
// OFF-LABEL:   func.func @main
// OFF-COUNT-2:   cann.DepthwiseConv2D %x
// KERNEL-LABEL: func.func @main
// KERNEL-COUNT-1: kind = "DepthwiseConv2D"
// KERNEL-NOT:     kind = "DepthwiseConv2D"
func.func @main(%x: tensor<1x9x9x8xf32>) -> (tensor<1x5x5x6xf32>, tensor<1x5x5x4xf32>) {
  %w3 = cann.Const dense<[[[[0.1], [0.2], [0.3], [0.4], [0.5], [0.6], [0.7], [0.8]], [[0.1], [-0.2], [0.3], [0.4], [0.5], [0.6], [0.7], [0.8]], [[0.1], [0.2], [0.3], [-0.4], [0.5], [0.6], [0.7], [0.8]]], [[[0.1], [0.2], [0.3], [0.4], [0.5], [0.6], [0.7], [0.8]], [[0.1], [-0.2], [0.3], [0.4], [0.5], [0.6], [0.7], [0.8]], [[0.1], [0.2], [0.3], [-0.4], [0.5], [0.6], [0.7], [0.8]]], [[[0.1], [0.2], [0.3], [0.4], [0.5], [0.6], [0.7], [0.8]], [[0.1], [-0.2], [0.3], [0.4], [0.5], [0.6], [0.7], [0.8]], [[0.1], [0.2], [0.3], [-0.4], [0.5], [0.6], [0.7], [0.8]]]]> : tensor<3x3x8x1xf32>
  %w5 = cann.Const dense<-0.05> : tensor<5x5x8x1xf32>
  %p1 = cann.Const dense<0.3> : tensor<1x1x8x6xf32>
  %p2 = cann.Const dense<-0.2> : tensor<1x1x8x4xf32>
  %b = cann.Const dense<0.5> : tensor<8xf32>
  %a = cann.DepthwiseConv2D %x, %w3 {strides = array<i64: 1, 2, 2, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, data_format = "NHWC"} : (tensor<1x9x9x8xf32>, tensor<3x3x8x1xf32>) -> tensor<1x5x5x8xf32>
  %c = cann.DepthwiseConv2D %x, %w5, %b {strides = array<i64: 1, 2, 2, 1>, pads = array<i64: 2, 2, 2, 2>, dilations = array<i64: 1, 1, 1, 1>, data_format = "NHWC"} : (tensor<1x9x9x8xf32>, tensor<5x5x8x1xf32>, tensor<8xf32>) -> tensor<1x5x5x8xf32>
  %y1 = cann.Conv2D %a, %p1 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x5x5x8xf32>, tensor<1x1x8x6xf32>) -> tensor<1x5x5x6xf32>
  %y2 = cann.Conv2D %c, %p2 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x5x5x8xf32>, tensor<1x1x8x4xf32>) -> tensor<1x5x5x4xf32>
  func.return %y1, %y2 : tensor<1x5x5x6xf32>, tensor<1x5x5x4xf32>
}
