// RUN: cann-opt %s | cann-opt | filecheck %s
// RUN: cann-opt %s --print-op-generic | cann-opt | filecheck %s

// Static AIPP (ATC's --insert_op_conf): the raw uint8 image -> the NHWC float model input; the
// whole configuration is typed attributes, printed and parsed back unchanged.
// CHECK-LABEL: func.func @yuv420sp
// CHECK: cann.Aipp %img {input_format = "YUV420SP_U8", src_hw = array<i64: 10, 12>, crop = array<i64: 4, 2, 6, 6>, pads = array<i64: 1, 1, 1, 1>, rbuv_swap = 0 : i64, csc = 1 : i64, matrix = array<i64: 256, 0, 359, 256, -88, -183, 256, 454, 0>, input_bias = array<i64: 0, 128, 128>, output_bias = array<i64: 0, 0, 0>, mean = array<i64: 104, 117, 123>, min_chn = array<f64: 0.000000e+00, 1.250000e+00, 0.000000e+00>, var_reci = array<f64: 0.017124753831663699, 1.750000e-02, 1.740000e-02>, padding_value = 5.000000e-01 : f64} : (tensor<1x15x12x1xui8>) -> tensor<1x8x8x3xf32>
func.func @yuv420sp(%img: tensor<1x15x12x1xui8>) -> tensor<1x8x8x3xf32> {
  %y = cann.Aipp %img {input_format = "YUV420SP_U8", src_hw = array<i64: 10, 12>, crop = array<i64: 4, 2, 6, 6>, pads = array<i64: 1, 1, 1, 1>, rbuv_swap = 0 : i64, csc = 1 : i64, matrix = array<i64: 256, 0, 359, 256, -88, -183, 256, 454, 0>, input_bias = array<i64: 0, 128, 128>, output_bias = array<i64: 0, 0, 0>, mean = array<i64: 104, 117, 123>, min_chn = array<f64: 0.0, 1.25, 0.0>, var_reci = array<f64: 0.0171247538316637, 0.0175, 0.0174>, padding_value = 0.5 : f64} : (tensor<1x15x12x1xui8>) -> tensor<1x8x8x3xf32>
  func.return %y : tensor<1x8x8x3xf32>
}

// CHECK-LABEL: func.func @rgb888
// CHECK: cann.Aipp %img {input_format = "RGB888_U8", src_hw = array<i64: 10, 12>, crop = array<i64: 1, 3, 8, 8>, pads = array<i64: 0, 0, 0, 0>, rbuv_swap = 1 : i64, csc = 0 : i64, {{.*}}} : (tensor<2x10x12x3xui8>) -> tensor<2x8x8x3xf16>
func.func @rgb888(%img: tensor<2x10x12x3xui8>) -> tensor<2x8x8x3xf16> {
  %y = cann.Aipp %img {input_format = "RGB888_U8", src_hw = array<i64: 10, 12>, crop = array<i64: 1, 3, 8, 8>, pads = array<i64: 0, 0, 0, 0>, rbuv_swap = 1 : i64, csc = 0 : i64, matrix = array<i64: 298, 516, 0, 298, -100, -208, 298, 0, 409>, input_bias = array<i64: 16, 128, 128>, output_bias = array<i64: 16, 128, 128>, mean = array<i64: 120, 110, 100>, min_chn = array<f64: 0.0, 0.0, 0.0>, var_reci = array<f64: 1.0, 1.0, 1.0>, padding_value = 0.0 : f64} : (tensor<2x10x12x3xui8>) -> tensor<2x8x8x3xf16>
  func.return %y : tensor<2x8x8x3xf16>
}
