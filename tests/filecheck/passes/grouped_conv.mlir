// A grouped Conv2D (x has G times the filter's input channels: Keras Conv2D(groups=G)) is one
// cann.Conv2D with groups = G, not SplitD + G convs + ConcatV2D; bias and ReLU fuse into it as
// into any conv; assign-layouts stores its filter as grouped FRACTAL_Z (the group enlargement
// rule, cann-facts.md section 3) and cann-to-kernel makes it ONE cube kernel whose body loops
// over the enlarged groups (batch = g_dim).  Here Cin = 8, G = 4: Cin/G = 2, Cout/G = 3; C0 = 16
// gives e_mult = min(lcm(2, 16)/2, lcm(3, 16)/3, 4) = 4: one enlarged group, 9x1x16x16.
// RUN: cann-opt -p tf-to-cann,cann-cleanup,fuse %s | filecheck %s --check-prefix=CANN
// RUN: cann-opt -p tf-to-cann,cann-cleanup,fuse,assign-layouts,cann-to-kernel %s | filecheck %s --check-prefix=KERNEL
// Round trip: the grouped cann op and its grouped FRACTAL_Z type print and parse back.
// @main2: Cin/G == G (16 channels, 4 groups of 4): the filter (3, 3, 4, 8) has a == groups, the
// shape of a TF depthwise filter (kh, kw, C, multiplier); `groups 4 conv` says it is the grouped
// conv's (e_mult = 4, g_dim = 1: 9 x 1 x 16 x 16), not a depthwise one.
// RUN: cann-opt -p tf-to-cann,cann-cleanup,fuse,assign-layouts %s | cann-opt | filecheck %s --check-prefix=LAYOUT

// CANN-LABEL: func.func @main(
// CANN-NOT: cann.SplitD
// CANN: cann.FusedConv2D %x, %w, %b {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 4 : i64, data_format = "NHWC", activation = "Relu"} : (tensor<1x6x6x8xf32>, tensor<3x3x2x12xf32>, tensor<12xf32>) -> tensor<1x6x6x12xf32>
// CANN-NOT: cann.ConcatV2D

// LAYOUT: cann.FusedConv2D {{.*}} groups = 4 : i64{{.*}} : (tensor<1x1x6x6x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 6, 6, 8]>>, tensor<9x1x16x16xf32, #cann.format<FRACTAL_Z, origin HWCN [3, 3, 2, 12], groups 4 conv>>, tensor<12xf32>)

// LAYOUT-LABEL: func.func @main2(
// LAYOUT: tensor<9x1x16x16xf32, #cann.format<FRACTAL_Z, origin HWCN [3, 3, 4, 8], groups 4 conv>>

// KERNEL-LABEL: func.func @main(
// KERNEL: kernel.cube {{.*}} {kind = "Conv2D", block_dim
// KERNEL-NOT: kernel.cube
// KERNEL-NOT: kernel.vec_kernel
func.func @main(%x: tensor<1x6x6x8xf32>) -> tensor<1x6x6x12xf32> {
  %w = "tf.Const"() {value = dense<0.25> : tensor<3x3x2x12xf32>} : () -> tensor<3x3x2x12xf32>
  %b = "tf.Const"() {value = dense<0.5> : tensor<12xf32>} : () -> tensor<12xf32>
  %0 = "tf.Conv2D"(%x, %w) {strides = array<i64: 1, 1, 1, 1>, padding = "SAME", data_format = "NHWC", dilations = array<i64: 1, 1, 1, 1>} : (tensor<1x6x6x8xf32>, tensor<3x3x2x12xf32>) -> tensor<1x6x6x12xf32>
  %1 = "tf.BiasAdd"(%0, %b) {data_format = "NHWC"} : (tensor<1x6x6x12xf32>, tensor<12xf32>) -> tensor<1x6x6x12xf32>
  %2 = "tf.Relu"(%1) : (tensor<1x6x6x12xf32>) -> tensor<1x6x6x12xf32>
  func.return %2 : tensor<1x6x6x12xf32>
}

// CANN-LABEL: func.func @main2(
// CANN: cann.Conv2D %x, %w {{{.*}}groups = 4 : i64{{.*}}} : (tensor<1x6x6x16xf32>, tensor<3x3x4x8xf32>) -> tensor<1x6x6x8xf32>
// KERNEL-LABEL: func.func @main2(
// KERNEL: kernel.cube {{.*}} {kind = "Conv2D", block_dim
func.func @main2(%x: tensor<1x6x6x16xf32>) -> tensor<1x6x6x8xf32> {
  %w = "tf.Const"() {value = dense<0.25> : tensor<3x3x4x8xf32>} : () -> tensor<3x3x4x8xf32>
  %0 = "tf.Conv2D"(%x, %w) {strides = array<i64: 1, 1, 1, 1>, padding = "SAME", data_format = "NHWC", dilations = array<i64: 1, 1, 1, 1>} : (tensor<1x6x6x16xf32>, tensor<3x3x4x8xf32>) -> tensor<1x6x6x8xf32>
  func.return %0 : tensor<1x6x6x8xf32>
}
