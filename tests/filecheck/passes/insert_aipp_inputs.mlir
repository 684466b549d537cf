// RUN: cann-opt -p 'insert-aipp{config="%S/Inputs/aipp_two.cfg"}' %s | filecheck %s
// RUN: not cann-opt -p 'insert-aipp{config="%S/Inputs/aipp_rgb.cfg"}' %s 2>&1 | filecheck %s --check-prefix=ERR

// One aipp_op block per input, each on the input its related_input_rank names.  Source sizes
// left out (0) are the model input's (less the padding); CSC fields left out take TBE's
// defaults (input_bias_1/2 = 128).
// CHECK-LABEL: func.func @main(%0: tensor<1x6x8x1xui8>, %1: tensor<1x12x8x1xui8>)
// CHECK-DAG: cann.Aipp %1 {input_format = "YUV420SP_U8", src_hw = array<i64: 8, 8>, crop = array<i64: 0, 0, 8, 8>, pads = array<i64: 0, 0, 0, 0>, rbuv_swap = 0 : i64, csc = 1 : i64, matrix = array<i64: 256, 0, 359, 256, -88, -183, 256, 454, 0>, input_bias = array<i64: 0, 128, 128>, output_bias = array<i64: 0, 0, 0>{{.*}}} : (tensor<1x12x8x1xui8>) -> tensor<1x8x8x3xf32>
// CHECK-DAG: cann.Aipp %0 {input_format = "YUV400_U8", src_hw = array<i64: 6, 8>, crop = array<i64: 0, 0, 6, 8>, pads = array<i64: 2, 0, 0, 0>, {{.*}}padding_value = -1.500000e+00 : f64} : (tensor<1x6x8x1xui8>) -> tensor<1x8x8x1xf32>

// The RGB888 block of aipp_rgb.cfg names input 0, which has one channel: one line naming the
// option, the file, the line and the field.
// ERR: aipp_rgb.cfg:5: error: --insert_op_conf: input_format RGB888_U8 gives 3 channel(s), but input 'gray' has 1
// ERR-NOT: error
func.func @main(%gray: tensor<1x8x8x1xf32>, %rgb: tensor<1x8x8x3xf32>) -> (tensor<1x8x8x1xf32>, tensor<1x8x8x3xf32>) attributes {tf.entry_function = {inputs = "gray,rgb", outputs = "a,b"}} {
  %a = cann.Relu %gray : (tensor<1x8x8x1xf32>) -> tensor<1x8x8x1xf32>
  %b = cann.Relu %rgb : (tensor<1x8x8x3xf32>) -> tensor<1x8x8x3xf32>
  func.return %a, %b : tensor<1x8x8x1xf32>, tensor<1x8x8x3xf32>
}
