// RUN: cann-opt --split-input-file --assign-layouts --cann-to-kernel %s | filecheck %s
// RUN: cann-opt --split-input-file --assign-layouts --cann-to-kernel %s | cann-opt --split-input-file --print-op-generic | cann-opt --split-input-file | filecheck %s

// A graph input's TransData from a row-major layout folds into the GM -> L1 loads of the cube
// kernel reading it (FoldInputTransData): each load takes the `from_origin` view (the converting
// DMA, copy_gm_to_cbuf_multi_nd2nz), keeps its own view as dst_view with the device shape as
// dst_shape, and reads the function argument itself.

// A conv on an NHWC input of 5 channels: its feature-map rows (fmap) come NHWC -> NC1HWC0.
// CHECK-LABEL: func.func @conv
// CHECK-NOT:     kernel.transdata
// CHECK:         kernel.cube %x, {{.*}}kind = "Conv2D"
// CHECK:         kernel.load %{{.*}} {view = "from_origin", params = {{{.*}}dst_shape = array<i64: 1, 1, 8, 8, 16>}, dst_view = "fmap", src_format = "NHWC", dst_format = "NC1HWC0"} : memref<1x8x8x5xf32, #kernel.space<GM>> -> memref<{{.*}}, #kernel.space<L1>>
// CHECK-NOT:     kernel.transdata
// CHECK:         func.return
func.func @conv(%x: tensor<1x8x8x5xf32>) -> tensor<1x6x6x21xf32> {
  %w = cann.Const dense<0.125> : tensor<3x3x5x21xf32>
  %b = cann.Const dense<0.5> : tensor<21xf32>
  %y = cann.FusedConv2D %x, %w, %b {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "Relu"} : (tensor<1x8x8x5xf32>, tensor<3x3x5x21xf32>, tensor<21xf32>) -> tensor<1x6x6x21xf32>
  func.return %y : tensor<1x6x6x21xf32>
}

// -----

// A matmul on an ND input: its A rows come ND -> FRACTAL_NZ.
// CHECK-LABEL: func.func @matmul
// CHECK-NOT:     kernel.transdata
// CHECK:         kernel.cube %a, {{.*}}kind = "MatMulV2"
// CHECK:         kernel.load %{{.*}} {view = "from_origin", params = {{{.*}}dst_shape = array<i64: 3, 1, 16, 16>}, dst_view = "nz", src_format = "ND", dst_format = "FRACTAL_NZ"} : memref<2x37xf32, #kernel.space<GM>>
// CHECK:         func.return
func.func @matmul(%a: tensor<2x37xf32>) -> tensor<2x5xf32> {
  %b = cann.Const dense<0.25> : tensor<37x5xf32>
  %0 = cann.MatMulV2 %a, %b {transpose_x1 = false, transpose_x2 = false} : (tensor<2x37xf32>, tensor<37x5xf32>) -> tensor<2x5xf32>
  func.return %0 : tensor<2x5xf32>
}

// -----

// An NCHW input: NCHW -> NC1HWC0 is a transpose, which the converting DMA does not do; its
// TransData stays a kernel.
// CHECK-LABEL: func.func @nchw
// CHECK:         kernel.transdata %x {{{.*}}src_format = "NCHW", dst_format = "NC1HWC0"
// CHECK-NOT:     view = "from_origin"
// CHECK:         func.return
func.func @nchw(%x: tensor<1x3x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %w = cann.Const dense<0.125> : tensor<3x3x3x4xf32>
  %y = cann.Conv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NCHW"} : (tensor<1x3x8x8xf32>, tensor<3x3x3x4xf32>) -> tensor<1x4x8x8xf32>
  func.return %y : tensor<1x4x8x8xf32>
}
