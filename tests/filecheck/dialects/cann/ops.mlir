// RUN: cann-opt %s | filecheck %s
// RUN: cann-opt %s --print-op-generic | cann-opt | filecheck %s
// RUN: cann-opt %s --print-debuginfo | filecheck %s --check-prefix=LOC
// RUN: cann-opt %s --print-op-generic --print-debuginfo | cann-opt --print-debuginfo | filecheck %s --check-prefix=LOC
// RUN: cann-opt %s > %t.custom && cann-opt %s --print-op-generic | cann-opt > %t.roundtrip && diff %t.custom %t.roundtrip

// Every cann op and the #cann.format attribute, in origin formats and in storage formats.

// Origin formats (no #cann.format on the types): what tf-to-cann produces.
func.func @origin(%x: tensor<1x8x8x3xf32>) -> tensor<1x8x8x4xf32> {
  %w = cann.Const dense<1.0> : tensor<3x3x3x4xf32> loc("conv/w")
  %b = cann.Const dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32> loc("conv/b")
  %c = cann.Conv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32> loc("conv/Conv2D")
  %a = cann.BiasAdd %c, %b {data_format = "NHWC"} : (tensor<1x8x8x4xf32>, tensor<4xf32>) -> tensor<1x8x8x4xf32> loc("conv/BiasAdd")
  %r = cann.Relu %a : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32> loc("conv/Relu")
  %f = cann.FusedConv2D %x, %w, %b {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "Relu"} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>, tensor<4xf32>) -> tensor<1x8x8x4xf32> loc(fused["conv/Conv2D", "conv/BiasAdd", "conv/Relu"])
  func.return %f : tensor<1x8x8x4xf32>
}

// CHECK-LABEL: func.func @origin(%x: tensor<1x8x8x3xf32>) -> tensor<1x8x8x4xf32> {
// CHECK-NEXT:    %w = cann.Const dense<1.000000e+00> : tensor<3x3x3x4xf32>
// CHECK-NEXT:    %b = cann.Const dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
// CHECK-NEXT:    %c = cann.Conv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32>
// CHECK-NEXT:    %a = cann.BiasAdd %c, %b {data_format = "NHWC"} : (tensor<1x8x8x4xf32>, tensor<4xf32>) -> tensor<1x8x8x4xf32>
// CHECK-NEXT:    %r = cann.Relu %a : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
// CHECK-NEXT:    %f = cann.FusedConv2D %x, %w, %b {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "Relu"} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>, tensor<4xf32>) -> tensor<1x8x8x4xf32>
// CHECK-NEXT:    func.return %f : tensor<1x8x8x4xf32>
// CHECK-NEXT:  }

// LOC-LABEL: func.func @origin
// LOC:         cann.Const {{.*}} loc("conv/w")
// LOC-NEXT:    cann.Const {{.*}} loc("conv/b")
// LOC-NEXT:    cann.Conv2D {{.*}} loc("conv/Conv2D")
// LOC-NEXT:    cann.BiasAdd {{.*}} loc("conv/BiasAdd")
// LOC-NEXT:    cann.Relu {{.*}} loc("conv/Relu")
// LOC-NEXT:    cann.FusedConv2D {{.*}} loc(fused["conv/Conv2D", "conv/BiasAdd", "conv/Relu"])

// Storage formats: TransData into NC1HWC0, a FRACTAL_Z weight constant, a conv on the device
// layouts (NCHW, no bias, activation none) and TransData back.
func.func @storage(%x: tensor<1x3x8x8xf16>) -> tensor<1x4x8x8xf16> {
  %xs = cann.TransData %x {src_format = "NCHW", dst_format = "NC1HWC0", groups = 1 : i64} : (tensor<1x3x8x8xf16>) -> tensor<1x1x8x8x16xf16, #cann.format<NC1HWC0, origin NCHW [1, 3, 8, 8]>> loc("x/TransData")
  %w = cann.Const dense<5.000000e-01> : tensor<9x1x16x16xf16> -> tensor<9x1x16x16xf16, #cann.format<FRACTAL_Z, origin HWCN [3, 3, 3, 4]>> loc("conv/w")
  %y = cann.FusedConv2D %xs, %w {strides = array<i64: 1, 1, 2, 2>, pads = array<i64: 0, 1, 0, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NCHW", activation = "none"} : (tensor<1x1x8x8x16xf16, #cann.format<NC1HWC0, origin NCHW [1, 3, 8, 8]>>, tensor<9x1x16x16xf16, #cann.format<FRACTAL_Z, origin HWCN [3, 3, 3, 4]>>) -> tensor<1x1x4x4x16xf16, #cann.format<NC1HWC0, origin NCHW [1, 4, 4, 4]>>
  %r = cann.Relu %y : (tensor<1x1x4x4x16xf16, #cann.format<NC1HWC0, origin NCHW [1, 4, 4, 4]>>) -> tensor<1x1x4x4x16xf16, #cann.format<NC1HWC0, origin NCHW [1, 4, 4, 4]>>
  %o = cann.TransData %r {src_format = "NC1HWC0", dst_format = "NCHW", groups = 1 : i64} : (tensor<1x1x4x4x16xf16, #cann.format<NC1HWC0, origin NCHW [1, 4, 4, 4]>>) -> tensor<1x4x4x4xf16>
  %z = cann.Const dense<0.0> : tensor<1x4x8x8xf16>
  func.return %z : tensor<1x4x8x8xf16>
}

// CHECK-LABEL: func.func @storage(%x: tensor<1x3x8x8xf16>) -> tensor<1x4x8x8xf16> {
// CHECK-NEXT:    %xs = cann.TransData %x {src_format = "NCHW", dst_format = "NC1HWC0", groups = 1 : i64} : (tensor<1x3x8x8xf16>) -> tensor<1x1x8x8x16xf16, #cann.format<NC1HWC0, origin NCHW [1, 3, 8, 8]>>
// CHECK-NEXT:    %w = cann.Const dense<5.000000e-01> : tensor<9x1x16x16xf16> -> tensor<9x1x16x16xf16, #cann.format<FRACTAL_Z, origin HWCN [3, 3, 3, 4]>>
// CHECK-NEXT:    %y = cann.FusedConv2D %xs, %w {strides = array<i64: 1, 1, 2, 2>, pads = array<i64: 0, 1, 0, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NCHW", activation = "none"} : (tensor<1x1x8x8x16xf16, #cann.format<NC1HWC0, origin NCHW [1, 3, 8, 8]>>, tensor<9x1x16x16xf16, #cann.format<FRACTAL_Z, origin HWCN [3, 3, 3, 4]>>) -> tensor<1x1x4x4x16xf16, #cann.format<NC1HWC0, origin NCHW [1, 4, 4, 4]>>
// CHECK-NEXT:    %r = cann.Relu %y : (tensor<1x1x4x4x16xf16, #cann.format<NC1HWC0, origin NCHW [1, 4, 4, 4]>>) -> tensor<1x1x4x4x16xf16, #cann.format<NC1HWC0, origin NCHW [1, 4, 4, 4]>>
// CHECK-NEXT:    %o = cann.TransData %r {src_format = "NC1HWC0", dst_format = "NCHW", groups = 1 : i64} : (tensor<1x1x4x4x16xf16, #cann.format<NC1HWC0, origin NCHW [1, 4, 4, 4]>>) -> tensor<1x4x4x4xf16>
// CHECK-NEXT:    %z = cann.Const dense<0.000000e+00> : tensor<1x4x8x8xf16>
// CHECK-NEXT:    func.return %z : tensor<1x4x8x8xf16>

// LOC-LABEL: func.func @storage
// LOC:         cann.TransData {{.*}} loc("x/TransData")
// LOC-NEXT:    cann.Const {{.*}} loc("conv/w")

// #cann.format on its own: the storage format alone (no origin), every format name, int8
// (C0 = 32), FRACTAL_NZ of a matrix, ND, and an attribute outside a tensor type.
func.func @formats(
    %nd: tensor<4xf16, #cann.format<ND>>,
    %nd2: tensor<4xf16, #cann.format<ND, origin ND [4]>>,
    %i8: tensor<1x2x8x8x32xi8, #cann.format<NC1HWC0, origin NCHW [1, 40, 8, 8]>>,
    %nz: tensor<3x2x16x16xf16, #cann.format<FRACTAL_NZ, origin ND [20, 40]>>,
    %nchw: tensor<1x3x8x8xf32, #cann.format<NCHW>>,
    %nhwc: tensor<1x8x8x3xf32, #cann.format<NHWC, origin NHWC [1, 8, 8, 3]>>,
    %hwcn: tensor<3x3x3x4xf32, #cann.format<HWCN>>,
    %fz: tensor<9x1x16x16xf32, #cann.format<FRACTAL_Z>>,
    %c5: tensor<1x1x8x8x16xf32, #cann.format<NC1HWC0>>) attributes {fmt = #cann.format<NC1HWC0, origin NHWC [1, 8, 8, 3]>} {
  func.return
}

// CHECK-LABEL: func.func @formats(
// CHECK-SAME:    %nd: tensor<4xf16, #cann.format<ND>>,
// CHECK-SAME:    %nd2: tensor<4xf16, #cann.format<ND, origin ND [4]>>,
// CHECK-SAME:    %i8: tensor<1x2x8x8x32xi8, #cann.format<NC1HWC0, origin NCHW [1, 40, 8, 8]>>,
// CHECK-SAME:    %nz: tensor<3x2x16x16xf16, #cann.format<FRACTAL_NZ, origin ND [20, 40]>>,
// CHECK-SAME:    %nchw: tensor<1x3x8x8xf32, #cann.format<NCHW>>,
// CHECK-SAME:    %nhwc: tensor<1x8x8x3xf32, #cann.format<NHWC, origin NHWC [1, 8, 8, 3]>>,
// CHECK-SAME:    %hwcn: tensor<3x3x3x4xf32, #cann.format<HWCN>>,
// CHECK-SAME:    %fz: tensor<9x1x16x16xf32, #cann.format<FRACTAL_Z>>,
// CHECK-SAME:    %c5: tensor<1x1x8x8x16xf32, #cann.format<NC1HWC0>>)
// CHECK-SAME:    attributes {fmt = #cann.format<NC1HWC0, origin NHWC [1, 8, 8, 3]>}

// Attributes beyond the op's own are kept, in both printed forms.
func.func @discardable() -> tensor<4xf32> {
  %b = cann.Const dense<1.0> : tensor<4xf32> attributes {_class = "y"}
  %c = cann.Const dense<1.0> : tensor<4xf32> -> tensor<4xf32, #cann.format<ND>> attributes {weight}
  %r = cann.Relu %b {tag = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// CHECK-LABEL: func.func @discardable() -> tensor<4xf32> {
// CHECK-NEXT:    %b = cann.Const dense<1.000000e+00> : tensor<4xf32> attributes {_class = "y"}
// CHECK-NEXT:    %c = cann.Const dense<1.000000e+00> : tensor<4xf32> -> tensor<4xf32, #cann.format<ND>> attributes {weight}
// CHECK-NEXT:    %r = cann.Relu %b {tag = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
