// Injective prologues (compiler/transforms/fusion/auto.py slice_reader): a ReLU read by a conv
// as its x and by a StridedSlice (NASNet's Cropping2D), its producer a Concat (no epilogue host;
// one of its inputs, an argument, computes nothing that could take the ReLU: concat_sink.py),
// is a cann.FusedKernel marked `prologue`: the conv runs it on x's rows, the slice on the
// elements it gathers (compiler/conversions/cann_to_kernel/data_movement.py
// slice_prologue_kernel: slice_flat loads of its input, the body, the store): no kernel of its own.
// RUN: cann-opt --fuse %s | filecheck %s
// RUN: cann-opt --fuse --assign-layouts --cann-to-kernel %s | filecheck %s --check-prefix=KERNEL

// CHECK-LABEL: func.func @relu_conv_and_crop
// CHECK:         %[[C:.*]] = cann.ConcatV2D
// CHECK-NEXT:    %[[R:.*]] = cann.FusedKernel %[[C]] {prologue}
// CHECK:           cann.Relu
// CHECK:         cann.Conv2D %[[R]], %w
// CHECK:         cann.StridedSliceD %[[R]]
// KERNEL-LABEL: func.func @relu_conv_and_crop
// KERNEL-NOT:     kind = "Elementwise"
// KERNEL:         %[[C:.*]] = kernel.vec_kernel %{{.*}}, %{{.*}} {{{.*}}kind = "ConcatV2D"
// KERNEL-NOT:     kind = "Elementwise"
// KERNEL:         kernel.cube %[[C]], %{{.*}} {kind = "Conv2D"
// KERNEL:           kernel.load {{.*}}view = "fmap"{{.*}}#kernel.space<UB>>
// KERNEL-NEXT:      kernel.vec {{.*}}fn = "Relu"
// KERNEL-NOT:     kind = "Elementwise"
// KERNEL:         kernel.vec_kernel %[[C]] {kind = "StridedSliceD"
// KERNEL:           kernel.load {{.*}}view = "slice_flat", params = {start = array<i64: 0, 0, 1, 1, 0>, step = array<i64: 1, 1, 1, 1, 1>, count = array<i64: 1, 2, 5, 5, 16>}}
// KERNEL-NEXT:      kernel.vec {{.*}}fn = "Relu"
// KERNEL-NOT:     kind = "Elementwise"
// KERNEL:         func.return
func.func @relu_conv_and_crop(%x: tensor<1x6x6x8xf32>, %b: tensor<1x6x6x16xf32>) -> (tensor<1x4x4x8xf32>, tensor<1x5x5x32xf32>) {
  %w0 = cann.Const dense<0.25> : tensor<1x1x8x16xf32>
  %a = cann.Conv2D %x, %w0 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x6x6x8xf32>, tensor<1x1x8x16xf32>) -> tensor<1x6x6x16xf32>
  %c = cann.ConcatV2D %a, %b {concat_dim = 3 : i64, N = 2 : i64} : (tensor<1x6x6x16xf32>, tensor<1x6x6x16xf32>) -> tensor<1x6x6x32xf32>
  %r = cann.Relu %c : (tensor<1x6x6x32xf32>) -> tensor<1x6x6x32xf32>
  %w = cann.Const dense<0.5> : tensor<3x3x32x8xf32>
  %y = cann.Conv2D %r, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x6x6x32xf32>, tensor<3x3x32x8xf32>) -> tensor<1x4x4x8xf32>
  %s = cann.StridedSliceD %r {begin = array<i64: 0, 1, 1, 0>, end = array<i64: 1, 6, 6, 32>, strides = array<i64: 1, 1, 1, 1>, begin_mask = 0 : i64, end_mask = 0 : i64, ellipsis_mask = 0 : i64, new_axis_mask = 0 : i64, shrink_axis_mask = 0 : i64} : (tensor<1x6x6x32xf32>) -> tensor<1x5x5x32xf32>
  func.return %y, %s : tensor<1x4x4x8xf32>, tensor<1x5x5x32xf32>
}

// 20 channels leave C0 padding lanes, which the slice moves and where the body computes f(0):
// the slice selects its tile against flat_valid (0 at those lanes, as a stored result holds),
// and the ReLU is no kernel of its own here either.
// KERNEL-LABEL: func.func @padding_lanes
// KERNEL-NOT:     kind = "Elementwise"
// KERNEL:         kernel.vec_kernel %[[C:.*]] {kind = "StridedSliceD"
// KERNEL:           %[[S:.*]] = kernel.load {{.*}}view = "slice_flat"
// KERNEL-NEXT:      %[[R:.*]] = kernel.vec %[[S]] {fn = "Relu"
// KERNEL-NEXT:      %[[M:.*]] = kernel.load {{.*}}view = "flat_valid", params = {shape = array<i64: 1, 2, 5, 5, 16>, layout = 1 : i64, channels = 20 : i64}}
// KERNEL-NEXT:      %[[Z:.*]] = kernel.vec {fn = "Duplicate", attrs = {value = 0.000000e+00 : f32}}
// KERNEL-NEXT:      %[[Y:.*]] = kernel.vec %[[M]], %[[R]], %[[Z]] {fn = "SelectV2"
// KERNEL-NEXT:      kernel.store %[[Y]]
// KERNEL-NOT:     kind = "Elementwise"
// KERNEL:         func.return
func.func @padding_lanes(%x: tensor<1x6x6x8xf32>, %b: tensor<1x6x6x10xf32>) -> (tensor<1x4x4x8xf32>, tensor<1x5x5x20xf32>) {
  %w0 = cann.Const dense<0.25> : tensor<1x1x8x10xf32>
  %a = cann.Conv2D %x, %w0 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x6x6x8xf32>, tensor<1x1x8x10xf32>) -> tensor<1x6x6x10xf32>
  %c = cann.ConcatV2D %a, %b {concat_dim = 3 : i64, N = 2 : i64} : (tensor<1x6x6x10xf32>, tensor<1x6x6x10xf32>) -> tensor<1x6x6x20xf32>
  %r = cann.Relu %c : (tensor<1x6x6x20xf32>) -> tensor<1x6x6x20xf32>
  %w = cann.Const dense<0.5> : tensor<3x3x20x8xf32>
  %y = cann.Conv2D %r, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x6x6x20xf32>, tensor<3x3x20x8xf32>) -> tensor<1x4x4x8xf32>
  %s = cann.StridedSliceD %r {begin = array<i64: 0, 1, 1, 0>, end = array<i64: 1, 6, 6, 20>, strides = array<i64: 1, 1, 1, 1>, begin_mask = 0 : i64, end_mask = 0 : i64, ellipsis_mask = 0 : i64, new_axis_mask = 0 : i64, shrink_axis_mask = 0 : i64} : (tensor<1x6x6x20xf32>) -> tensor<1x5x5x20xf32>
  func.return %y, %s : tensor<1x4x4x8xf32>, tensor<1x5x5x20xf32>
}
