// RUN: cann-opt --assign-layouts %s | filecheck %s --check-prefix=LAYOUT
// RUN: cann-opt --assign-layouts %s | cann-opt --print-op-generic | cann-opt | filecheck %s --check-prefix=LAYOUT
// RUN: cann-opt -p 'assign-layouts,cann-to-kernel' %s | filecheck %s --check-prefix=KERNEL
// RUN: cann-opt -p 'assign-layouts,cann-to-kernel' %s | cann-opt --print-op-generic | cann-opt | filecheck %s --check-prefix=KERNEL

// Small-C_in convs (compiler/target/c04.py): a conv of C_in <= 4 reading a graph input stores
// x NC1HWC0_C04 (C0 = 4 lanes) and its filter FRACTAL_Z_C04 (taps x 4 channels packed in K,
// K = ceil(taps*4 / 16)*16): a 7x7 stem K = 208 instead of 49*16 = 784, a 3x3x3 Conv3D K = 112
// instead of 27*16 = 432.  A 1x1 conv (one tap) packs nothing: it keeps NC1HWC0 / FRACTAL_Z.
// LAYOUT-LABEL: func.func @main
// LAYOUT:       cann.TransData %x {src_format = "NHWC", dst_format = "NC1HWC0_C04", {{.*}} -> tensor<1x1x16x16x4xf32, #cann.format<NC1HWC0_C04, origin NHWC [1, 16, 16, 3]>>
// LAYOUT:       cann.FusedConv2D {{.*}} : (tensor<1x1x16x16x4xf32, #cann.format<NC1HWC0_C04, origin NHWC [1, 16, 16, 3]>>, tensor<13x1x16x16xf32, #cann.format<FRACTAL_Z_C04, origin HWCN [7, 7, 3, 16]>>, tensor<16xf32>) -> tensor<1x1x8x8x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 8, 8, 16]>>
// LAYOUT:       cann.TransData %v {src_format = "NHWC", dst_format = "NC1HWC0_C04", {{.*}} -> tensor<4x1x8x8x4xf32, #cann.format<NC1HWC0_C04, origin NHWC [4, 8, 8, 3]>>
// LAYOUT:       cann.Conv3D {{.*}} : (tensor<4x1x8x8x4xf32, #cann.format<NC1HWC0_C04, origin NHWC [4, 8, 8, 3]>>, tensor<7x1x16x16xf32, #cann.format<FRACTAL_Z_C04, origin ND [3, 3, 3, 3, 16]>>) -> tensor<4x1x8x8x16xf32, #cann.format<NC1HWC0, origin NHWC [4, 8, 8, 16]>>
// LAYOUT:       cann.Conv2D {{.*}} : (tensor<1x1x8x8x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 8, 8, 3]>>, tensor<1x1x16x16xf32, #cann.format<FRACTAL_Z, origin HWCN [1, 1, 3, 16]>>) -> tensor<1x1x8x8x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 8, 8, 16]>>

// The packed-K cube kernels: the window of x's rows converted NHWC -> NC1HWC0_C04 by the
// GM -> L1 DMA (4 lanes a pixel in L1), Load3D from it, the FRACTAL_Z_C04 rows as B.
// KERNEL:       kernel.cube {{.*}}kind = "Conv2D", {{.*}}tiling = #kernel.tiling<{{.*}}Ka = 208, Kb = 208, {{.*}}fmapRows =
// KERNEL:       view = "from_origin", {{.*}}dst_view = "fmap", src_format = "NHWC", dst_format = "NC1HWC0_C04"} : memref<1x16x16x3xf32, #kernel.space<GM>> -> memref<1x9x16x4xf32, #kernel.space<L1>>
// KERNEL:       view = "load3d", {{.*}} : memref<1x9x16x4xf32, #kernel.space<L1>> -> memref<
// KERNEL:       view = "fz", params = {K = 208 : i64, N = 16 : i64}} : memref<13x1x16x16xf32, #kernel.space<GM>>
// KERNEL:       kernel.cube {{.*}}kind = "Conv3D", {{.*}}tiling = #kernel.tiling<{{.*}}Ka = 112, Kb = 112, {{.*}}fmapRows =
// KERNEL:       view = "from_origin", {{.*}}dst_view = "fmap", src_format = "NHWC", dst_format = "NC1HWC0_C04"} : memref<4x8x8x3xf32, #kernel.space<GM>> -> memref<3x4x8x4xf32, #kernel.space<L1>>
// KERNEL:       view = "fz", params = {K = 112 : i64, N = 16 : i64}} : memref<7x1x16x16xf32, #kernel.space<GM>>
// KERNEL:       kernel.cube {{.*}}kind = "Conv2D", {{.*}}tiling = #kernel.tiling<{{.*}}Ka = 16, Kb = 16,
// KERNEL:       dst_format = "NC1HWC0"}
func.func @main(%x: tensor<1x16x16x3xf32>, %v: tensor<4x8x8x3xf32>, %p: tensor<1x8x8x3xf32>) -> (tensor<1x8x8x16xf32>, tensor<4x8x8x16xf32>, tensor<1x8x8x16xf32>) {
  %w = cann.Const dense<0.125> : tensor<7x7x3x16xf32>
  %b = cann.Const dense<0.5> : tensor<16xf32>
  %0 = cann.FusedConv2D %x, %w, %b {strides = array<i64: 1, 2, 2, 1>, pads = array<i64: 3, 3, 3, 3>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "Relu"} : (tensor<1x16x16x3xf32>, tensor<7x7x3x16xf32>, tensor<16xf32>) -> tensor<1x8x8x16xf32>
  %w3 = cann.Const dense<0.25> : tensor<3x3x3x3x16xf32>
  %1 = cann.Conv3D %v, %w3 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", depth = array<i64: 4, 4, 3, 1, 1, 1, 1>} : (tensor<4x8x8x3xf32>, tensor<3x3x3x3x16xf32>) -> tensor<4x8x8x16xf32>
  %w1 = cann.Const dense<0.5> : tensor<1x1x3x16xf32>
  %2 = cann.Conv2D %p, %w1 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x8x8x3xf32>, tensor<1x1x3x16xf32>) -> tensor<1x8x8x16xf32>
  func.return %0, %1, %2 : tensor<1x8x8x16xf32>, tensor<4x8x8x16xf32>, tensor<1x8x8x16xf32>
}
