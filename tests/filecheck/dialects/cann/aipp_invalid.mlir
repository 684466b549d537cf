// RUN: not cann-opt --split-input-file %s 2>&1 | filecheck %s

// CHECK: aipp_invalid.mlir:[[# @LINE + 2]]:3: error: cann.Aipp: crop [4, 2, 8, 6] / pads [0, 0, 1, 1] do not fit the 10x12 source image
func.func @f(%img: tensor<1x15x12x1xui8>) -> tensor<1x8x8x3xf32> {
  %y = cann.Aipp %img {input_format = "YUV420SP_U8", src_hw = array<i64: 10, 12>, crop = array<i64: 4, 2, 8, 6>, pads = array<i64: 0, 0, 1, 1>, rbuv_swap = 0 : i64, csc = 1 : i64, matrix = array<i64: 256, 0, 359, 256, -88, -183, 256, 454, 0>, input_bias = array<i64: 0, 128, 128>, output_bias = array<i64: 0, 0, 0>, mean = array<i64: 0, 0, 0>, min_chn = array<f64: 0.0, 0.0, 0.0>, var_reci = array<f64: 1.0, 1.0, 1.0>, padding_value = 0.0 : f64} : (tensor<1x15x12x1xui8>) -> tensor<1x8x8x3xf32>
  func.return %y : tensor<1x8x8x3xf32>
}
// -----
// CHECK: aipp_invalid.mlir:[[# @LINE + 2]]:3: error: cann.Aipp: x must be [N, 15, 12, 1] for YUV420SP_U8 of 10x12, got 1x10x12x3
func.func @f(%img: tensor<1x10x12x3xui8>) -> tensor<1x8x8x3xf32> {
  %y = cann.Aipp %img {input_format = "YUV420SP_U8", src_hw = array<i64: 10, 12>, crop = array<i64: 2, 2, 8, 8>, pads = array<i64: 0, 0, 0, 0>, rbuv_swap = 0 : i64, csc = 1 : i64, matrix = array<i64: 256, 0, 359, 256, -88, -183, 256, 454, 0>, input_bias = array<i64: 0, 128, 128>, output_bias = array<i64: 0, 0, 0>, mean = array<i64: 0, 0, 0>, min_chn = array<f64: 0.0, 0.0, 0.0>, var_reci = array<f64: 1.0, 1.0, 1.0>, padding_value = 0.0 : f64} : (tensor<1x10x12x3xui8>) -> tensor<1x8x8x3xf32>
  func.return %y : tensor<1x8x8x3xf32>
}
// -----
// CHECK: aipp_invalid.mlir:[[# @LINE + 2]]:3: error: cann.Aipp: x must be a ui8 image, got tensor<1x10x12x3xf32>
func.func @f(%img: tensor<1x10x12x3xf32>) -> tensor<1x8x8x3xf32> {
  %y = cann.Aipp %img {input_format = "RGB888_U8", src_hw = array<i64: 10, 12>, crop = array<i64: 2, 2, 8, 8>, pads = array<i64: 0, 0, 0, 0>, rbuv_swap = 0 : i64, csc = 0 : i64, matrix = array<i64: 256, 0, 359, 256, -88, -183, 256, 454, 0>, input_bias = array<i64: 0, 128, 128>, output_bias = array<i64: 0, 0, 0>, mean = array<i64: 0, 0, 0>, min_chn = array<f64: 0.0, 0.0, 0.0>, var_reci = array<f64: 1.0, 1.0, 1.0>, padding_value = 0.0 : f64} : (tensor<1x10x12x3xf32>) -> tensor<1x8x8x3xf32>
  func.return %y : tensor<1x8x8x3xf32>
}
