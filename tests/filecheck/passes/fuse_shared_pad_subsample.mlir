// Three conv-geometry folds of the fuse pass:
//  * a unit-stride crop (StridedSliceD) of a PadD slices x first and pads what it kept of the
//    padding (compiler/transforms/fusion/pads.py slice_before_pad: Keras' ZeroPadding2D +
//    Cropping2D), so the pad can fold into the conv below;
//  * a PadD read only by convolutions (as their data input) folds into each of them
//    (compiler/transforms/fusion/pads.py; the rule PadConv2dFusionPass takes a pad with one reader);
//  * a 1x1 pool with stride s feeding a 1x1 unit-stride unpadded conv is that conv with stride s
//    (rule PoolSubsampleConv2dFusionPass, NASNet's factorized reduction).
// RUN: cann-opt --fuse %s | filecheck %s
// RUN: cann-opt --fuse='disable=PadConv2dFusionPass,PoolSubsampleConv2dFusionPass' %s | filecheck %s --check-prefix=OFF
// RUN: cann-opt --fuse --assign-layouts --cann-to-kernel %s | filecheck %s --check-prefix=KERNEL

// CHECK-LABEL: func.func @shared_pad
// CHECK-NOT:     cann.PadD
// CHECK:         cann.DepthwiseConv2D %x, %w {{.*}}pads = array<i64: 0, 1, 0, 1>
// CHECK-NEXT:    cann.DepthwiseConv2D %x, %w2 {{.*}}pads = array<i64: 0, 1, 0, 1>
// OFF-LABEL:   func.func @shared_pad
// OFF:           cann.PadD
// KERNEL-LABEL: func.func @shared_pad
// KERNEL-NOT:    kind = "PadD"
// KERNEL:        func.return
func.func @shared_pad(%x: tensor<1x8x8x4xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) {
  %w = cann.Const dense<0.25> : tensor<3x3x4x1xf32>
  %w2 = cann.Const dense<-0.5> : tensor<3x3x4x1xf32>
  %p = cann.PadD %x {paddings = array<i64: 0, 0, 0, 1, 0, 1, 0, 0>} : (tensor<1x8x8x4xf32>) -> tensor<1x9x9x4xf32>
  %a = cann.DepthwiseConv2D %p, %w {strides = array<i64: 1, 2, 2, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, data_format = "NHWC"} : (tensor<1x9x9x4xf32>, tensor<3x3x4x1xf32>) -> tensor<1x4x4x4xf32>
  %b = cann.DepthwiseConv2D %p, %w2 {strides = array<i64: 1, 2, 2, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, data_format = "NHWC"} : (tensor<1x9x9x4xf32>, tensor<3x3x4x1xf32>) -> tensor<1x4x4x4xf32>
  func.return %a, %b : tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>
}

// A pad also read by a pool stays (a pool's window semantics differ from zero padding).
// CHECK-LABEL: func.func @pad_read_by_pool
// CHECK:         cann.PadD
func.func @pad_read_by_pool(%x: tensor<1x8x8x4xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) {
  %w = cann.Const dense<0.25> : tensor<3x3x4x1xf32>
  %p = cann.PadD %x {paddings = array<i64: 0, 0, 0, 1, 0, 1, 0, 0>} : (tensor<1x8x8x4xf32>) -> tensor<1x9x9x4xf32>
  %a = cann.DepthwiseConv2D %p, %w {strides = array<i64: 1, 2, 2, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, data_format = "NHWC"} : (tensor<1x9x9x4xf32>, tensor<3x3x4x1xf32>) -> tensor<1x4x4x4xf32>
  %b = cann.MaxPool %p {ksize = array<i64: 1, 3, 3, 1>, strides = array<i64: 1, 2, 2, 1>, padding = "VALID", data_format = "NHWC"} : (tensor<1x9x9x4xf32>) -> tensor<1x4x4x4xf32>
  func.return %a, %b : tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>
}

// CHECK-LABEL: func.func @subsample_conv
// CHECK-NOT:     cann.AvgPool
// CHECK:         cann.FusedConv2D %x, %w {strides = array<i64: 1, 2, 2, 1>, pads = array<i64: 0, 0, 0, 0>
// OFF-LABEL:   func.func @subsample_conv
// OFF:           cann.AvgPool
// KERNEL-LABEL: func.func @subsample_conv
// KERNEL-NOT:    kind = "AvgPool"
// KERNEL:        kernel.cube {{.*}}kind = "Conv2D"
// KERNEL-NOT:    kind = "AvgPool"
// KERNEL:        func.return
func.func @subsample_conv(%x: tensor<1x31x31x16xf32>) -> tensor<1x16x16x8xf32> {
  %w = cann.Const dense<0.25> : tensor<1x1x16x8xf32>
  %p = cann.AvgPool %x {ksize = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 2, 2, 1>, padding = "VALID", data_format = "NHWC"} : (tensor<1x31x31x16xf32>) -> tensor<1x16x16x16xf32>
  %c = cann.Conv2D %p, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x16x16x16xf32>, tensor<1x1x16x8xf32>) -> tensor<1x16x16x8xf32>
  func.return %c : tensor<1x16x16x8xf32>
}

// A 3x3 conv of a subsampled input is no strided conv of the input: the pool stays.
// CHECK-LABEL: func.func @subsample_3x3
// CHECK:         cann.AvgPool
func.func @subsample_3x3(%x: tensor<1x31x31x16xf32>) -> tensor<1x16x16x8xf32> {
  %w = cann.Const dense<0.25> : tensor<3x3x16x8xf32>
  %p = cann.AvgPool %x {ksize = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 2, 2, 1>, padding = "VALID", data_format = "NHWC"} : (tensor<1x31x31x16xf32>) -> tensor<1x16x16x16xf32>
  %c = cann.Conv2D %p, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x16x16x16xf32>, tensor<3x3x16x8xf32>) -> tensor<1x16x16x8xf32>
  func.return %c : tensor<1x16x16x8xf32>
}

// NASNet's shifted factorized reduction: pad (0, 1), crop [1:], 1x1 pool stride 2, 1x1 conv ->
// the crop of x and one conv with stride 2 and pads (0, 1).
// CHECK-LABEL: func.func @pad_crop_pool_conv
// CHECK-NOT:     cann.PadD
// CHECK:         %[[S:.*]] = cann.StridedSliceD %x {begin = array<i64: 0, 1, 1, 0>, end = array<i64: 1, 31, 31, 16>
// CHECK-SAME:        -> tensor<1x30x30x16xf32>
// CHECK-NEXT:    cann.FusedConv2D %[[S]], %w {strides = array<i64: 1, 2, 2, 1>, pads = array<i64: 0, 1, 0, 1>
// CHECK-NEXT:    func.return
// OFF-LABEL:   func.func @pad_crop_pool_conv
// OFF:           cann.PadD
// OFF:           cann.StridedSliceD
func.func @pad_crop_pool_conv(%x: tensor<1x31x31x16xf32>) -> tensor<1x16x16x8xf32> {
  %w = cann.Const dense<0.25> : tensor<1x1x16x8xf32>
  %p = cann.PadD %x {paddings = array<i64: 0, 0, 0, 1, 0, 1, 0, 0>} : (tensor<1x31x31x16xf32>) -> tensor<1x32x32x16xf32>
  %s = cann.StridedSliceD %p {begin = array<i64: 0, 1, 1, 0>, end = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1, 1, 1>, begin_mask = 9 : i64, end_mask = 15 : i64, ellipsis_mask = 0 : i64, new_axis_mask = 0 : i64, shrink_axis_mask = 0 : i64} : (tensor<1x32x32x16xf32>) -> tensor<1x31x31x16xf32>
  %a = cann.AvgPool %s {ksize = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 2, 2, 1>, padding = "VALID", data_format = "NHWC"} : (tensor<1x31x31x16xf32>) -> tensor<1x16x16x16xf32>
  %c = cann.Conv2D %a, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x16x16x16xf32>, tensor<1x1x16x8xf32>) -> tensor<1x16x16x8xf32>
  func.return %c : tensor<1x16x16x8xf32>
}

// A crop that keeps only the padding on an axis stays a crop of the pad.
// CHECK-LABEL: func.func @crop_of_padding_only
// CHECK:         cann.PadD
// CHECK-NEXT:    cann.StridedSliceD
func.func @crop_of_padding_only(%x: tensor<1x4x4x2xf32>) -> tensor<1x1x4x2xf32> {
  %p = cann.PadD %x {paddings = array<i64: 0, 0, 0, 2, 0, 0, 0, 0>} : (tensor<1x4x4x2xf32>) -> tensor<1x6x4x2xf32>
  %s = cann.StridedSliceD %p {begin = array<i64: 0, 5, 0, 0>, end = array<i64: 1, 6, 4, 2>, strides = array<i64: 1, 1, 1, 1>, begin_mask = 0 : i64, end_mask = 0 : i64, ellipsis_mask = 0 : i64, new_axis_mask = 0 : i64, shrink_axis_mask = 0 : i64} : (tensor<1x6x4x2xf32>) -> tensor<1x1x4x2xf32>
  func.return %s : tensor<1x1x4x2xf32>
}
