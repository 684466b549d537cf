// RUN: cann-opt -p 'insert-aipp{config="%S/Inputs/aipp_rgb.cfg"}' %s | filecheck %s
// RUN: cann-opt -p 'insert-aipp{config="%S/Inputs/aipp_rgb.cfg"},assign-layouts' %s | filecheck %s --check-prefix=LAYOUT

// insert-aipp (ATC's --insert_op_conf): input 0 becomes the raw uint8 RGB888 image of the
// configured source size and a cann.Aipp feeds what it fed; assign-layouts gives AIPP's result
// NC1HWC0, which the conv reads directly (no TransData on the input).
// CHECK-LABEL: func.func @main(%0: tensor<1x10x12x3xui8>) -> tensor<1x8x8x4xf32>
// CHECK-NEXT: %[[X:.*]] = cann.Aipp %0 {input_format = "RGB888_U8", src_hw = array<i64: 10, 12>, crop = array<i64: 1, 2, 8, 8>, pads = array<i64: 0, 0, 0, 0>, rbuv_swap = 0 : i64, csc = 0 : i64, {{.*}}mean = array<i64: 120, 0, 0>, min_chn = array<f64: 0.000000e+00, 0.000000e+00, 0.000000e+00>, var_reci = array<f64: 5.000000e-01, 1.000000e+00, 1.000000e+00>, padding_value = 0.000000e+00 : f64} : (tensor<1x10x12x3xui8>) -> tensor<1x8x8x3xf32>
// CHECK: cann.Conv2D %[[X]], %{{.*}} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>)
// LAYOUT: cann.Aipp {{.*}} -> tensor<1x1x8x8x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 8, 8, 3]>>
// LAYOUT-NOT: dst_format = "NC1HWC0"
// LAYOUT: cann.Conv2D
func.func @main(%x: tensor<1x8x8x3xf32>) -> tensor<1x8x8x4xf32> attributes {tf.entry_function = {inputs = "x", outputs = "y"}} {
  %w = cann.Const dense<0.5> : tensor<3x3x3x4xf32>
  %y = cann.Conv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32>
  func.return %y : tensor<1x8x8x4xf32>
}
