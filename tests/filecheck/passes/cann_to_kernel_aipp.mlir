// RUN: cann-opt -p 'assign-layouts,cann-to-kernel' %s | filecheck %s
// RUN: cann-opt -p 'assign-layouts,cann-to-kernel' %s | cann-opt --print-op-generic | cann-opt | filecheck %s

// Static AIPP is one vector kernel writing the NC1HWC0 model input: rows of output pixels,
// C0 lanes.  YUV420SP with CSC: each input channel loaded on every lane, minus its input bias,
// times its column of the matrix (row k of the [8, C0] coefficient constant), summed, >> 8 as
// * 1/256, clipped to [0, 255] and truncated; then - mean, - min, * var_reci; the padding
// selected by the aipp_valid mask.  The coefficient rows are loaded once per core.  Here the
// AIPP result is the function's: its NC1HWC0 -> NHWC TransData folds into the kernel's rows
// store (view to_origin), so the kernel's result is NHWC.
// CHECK-LABEL: func.func @yuv420sp
// CHECK: %[[C:.*]] = cann.Const dense<"{{.*}}"> : tensor<8x16xf32>
// CHECK: kernel.vec_kernel %img, %[[C]] {kind = "Aipp", block_dim = 1 : i64, {{.*}}} : (tensor<1x15x12x1xui8>, tensor<8x16xf32>) -> tensor<1x8x8x3xf32> {
// CHECK: kernel.cores
// CHECK: kernel.load {{.*}}view = "rows"{{.*}} -> memref<1x16xf32
// CHECK: kernel.for
// CHECK: kernel.load {{.*}}view = "aipp_pixels", params = {channel = 0 : i64, format = 0 : i64, src_hw = array<i64: 10, 12>, crop = array<i64: 4, 2, 6, 6>, pads = array<i64: 1, 1, 1, 1>, swap = 0 : i64, out_hw = array<i64: 8, 8>, rows = 64 : i64}}
// CHECK: fn = "Mul"
// CHECK: view = "aipp_pixels", params = {channel = 1
// CHECK-NEXT: fn = "Adds", attrs = {value = -1.280000e+02 : f32}
// CHECK: view = "aipp_pixels", params = {channel = 2
// CHECK: fn = "Muls", attrs = {value = 3.906250e-03 : f32}
// CHECK: fn = "Maximum"
// CHECK: fn = "Minimum"
// CHECK: fn = "Cast"{{.*}} -> memref<{{.*}}xi32
// CHECK: fn = "Cast"{{.*}} -> memref<{{.*}}xf32
// CHECK: fn = "Sub"
// CHECK: fn = "Sub"
// CHECK: fn = "Mul"
// CHECK: view = "aipp_valid"
// CHECK: fn = "SelectV2"
// CHECK: kernel.store {{.*}}view = "to_origin", params = {src_shape = array<i64: 1, 1, 8, 8, 16>}, src_view = "rows", src_format = "NC1HWC0", dst_format = "NHWC"}
// CHECK-NOT: kernel.transdata
func.func @yuv420sp(%img: tensor<1x15x12x1xui8>) -> tensor<1x8x8x3xf32> {
  %y = cann.Aipp %img {input_format = "YUV420SP_U8", src_hw = array<i64: 10, 12>, crop = array<i64: 4, 2, 6, 6>, pads = array<i64: 1, 1, 1, 1>, rbuv_swap = 0 : i64, csc = 1 : i64, matrix = array<i64: 256, 0, 359, 256, -88, -183, 256, 454, 0>, input_bias = array<i64: 0, 128, 128>, output_bias = array<i64: 0, 0, 0>, mean = array<i64: 104, 117, 123>, min_chn = array<f64: 0.0, 0.0, 0.0>, var_reci = array<f64: 0.017, 0.0175, 0.0174>, padding_value = 0.5 : f64} : (tensor<1x15x12x1xui8>) -> tensor<1x8x8x3xf32>
  func.return %y : tensor<1x8x8x3xf32>
}

// Without CSC and padding: channel c straight to lane c, no mask.  A 224x224 image is split
// over the chip's vector cores (Ascend910B3: 40).
// CHECK-LABEL: func.func @rgb888
// CHECK: kernel.vec_kernel {{.*}}{kind = "Aipp", block_dim = 40 : i64
// CHECK: kernel.load {{.*}}view = "aipp_pixels", params = {channel = -1 : i64, format = 1 : i64
// CHECK-NOT: aipp_valid
// CHECK: kernel.store
func.func @rgb888(%img: tensor<1x256x256x3xui8>) -> tensor<1x224x224x3xf32> {
  %y = cann.Aipp %img {input_format = "RGB888_U8", src_hw = array<i64: 256, 256>, crop = array<i64: 16, 16, 224, 224>, pads = array<i64: 0, 0, 0, 0>, rbuv_swap = 0 : i64, csc = 0 : i64, matrix = array<i64: 298, 516, 0, 298, -100, -208, 298, 0, 409>, input_bias = array<i64: 16, 128, 128>, output_bias = array<i64: 16, 128, 128>, mean = array<i64: 124, 116, 104>, min_chn = array<f64: 0.0, 0.0, 0.0>, var_reci = array<f64: 0.0171, 0.0175, 0.0174>, padding_value = 0.0 : f64} : (tensor<1x256x256x3xui8>) -> tensor<1x224x224x3xf32>
  func.return %y : tensor<1x224x224x3xf32>
}
