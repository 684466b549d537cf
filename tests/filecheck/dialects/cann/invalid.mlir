// RUN: not cann-opt --split-input-file %s 2>&1 | filecheck %s

// One deliberately invalid op (or #cann.format) per chunk; the driver reports every chunk's
// errors, one line per failing op: <file>:<line>:<col>: error: <message> [node '<name>'].
// A malformed #cann.format is a parse error, reported at the format name.

func.func @conv_stride_n(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32> {
  // CHECK: {{.*}}invalid.mlir:9:3: error: cann.Conv2D: strides and dilations on N and C must be 1 [node 'conv1']
  %y = cann.Conv2D %x, %w {strides = array<i64: 2, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32> loc("conv1")
  func.return %y : tensor<1x8x8x4xf32>
}

// -----

func.func @conv_stride_c_nchw(%x: tensor<1x3x8x8xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<1x4x8x8xf32> {
  // CHECK-NEXT: {{.*}}invalid.mlir:17:3: error: cann.Conv2D: strides and dilations on N and C must be 1
  %y = cann.Conv2D %x, %w {strides = array<i64: 1, 2, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NCHW"} : (tensor<1x3x8x8xf32>, tensor<3x3x3x4xf32>) -> tensor<1x4x8x8xf32>
  func.return %y : tensor<1x4x8x8xf32>
}

// -----

func.func @conv_strides_len(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32> {
  // CHECK-NEXT: {{.*}}invalid.mlir:25:3: error: cann.Conv2D: 'strides' must have 4 values, got 2
  %y = cann.Conv2D %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32>
  func.return %y : tensor<1x8x8x4xf32>
}

// -----

func.func @conv_pads_len(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32> {
  // CHECK-NEXT: {{.*}}invalid.mlir:33:3: error: cann.Conv2D: 'pads' must have 4 values, got 2 [node 'conv2']
  %y = cann.Conv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32> loc("conv2")
  func.return %y : tensor<1x8x8x4xf32>
}

// -----

func.func @conv_pads_negative(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32> {
  // CHECK-NEXT: {{.*}}invalid.mlir:41:3: error: cann.Conv2D: strides and dilations must be >= 1, pads >= 0
  %y = cann.Conv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, -1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32>
  func.return %y : tensor<1x8x8x4xf32>
}

// -----

func.func @conv_stride_zero(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32> {
  // CHECK-NEXT: {{.*}}invalid.mlir:49:3: error: cann.Conv2D: strides and dilations must be >= 1, pads >= 0
  %y = cann.Conv2D %x, %w {strides = array<i64: 1, 0, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32>
  func.return %y : tensor<1x8x8x4xf32>
}

// -----

func.func @conv_groups(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32> {
  // CHECK-NEXT: {{.*}}invalid.mlir:57:3: error: cann.Conv2D: x has 3 channels, the filter (HWCN) expects 3 x 3 groups [node 'conv3']
  %y = cann.Conv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 3 : i64, data_format = "NHWC"} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32> loc("conv3")
  func.return %y : tensor<1x8x8x4xf32>
}

// -----

func.func @conv_data_format(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32> {
  // CHECK-NEXT: {{.*}}invalid.mlir:65:3: error: cann.Conv2D: 'data_format' must be one of NHWC, NCHW, ND; got 'NC1HWC0'
  %y = cann.Conv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NC1HWC0"} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32>
  func.return %y : tensor<1x8x8x4xf32>
}

// -----

func.func @conv_rank(%x: tensor<8x8x3xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32> {
  // CHECK-NEXT: {{.*}}invalid.mlir:73:3: error: cann.Conv2D: x must have rank 4, got rank 3
  %y = cann.Conv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32>
  func.return %y : tensor<1x8x8x4xf32>
}

// -----

func.func @conv_cin(%x: tensor<1x8x8x5xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32> {
  // CHECK-NEXT: {{.*}}invalid.mlir:81:3: error: cann.Conv2D: x has 5 channels, the filter (HWCN) expects 3
  %y = cann.Conv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x8x8x5xf32>, tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32>
  func.return %y : tensor<1x8x8x4xf32>
}

// -----

func.func @conv_cout(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<1x8x8x6xf32> {
  // CHECK-NEXT: {{.*}}invalid.mlir:89:3: error: cann.Conv2D: y has 6 channels, the filter has 4 outputs
  %y = cann.Conv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x8x8x6xf32>
  func.return %y : tensor<1x8x8x6xf32>
}

// -----

func.func @conv_bias(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>, %b: tensor<8xf32>) -> tensor<1x8x8x4xf32> {
  // CHECK-NEXT: {{.*}}invalid.mlir:97:3: error: cann.Conv2D: bias must be 1-D of length 4, got [8] [node 'conv4']
  %y = cann.Conv2D %x, %w, %b {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>, tensor<8xf32>) -> tensor<1x8x8x4xf32> loc("conv4")
  func.return %y : tensor<1x8x8x4xf32>
}

// -----

func.func @conv_element_type(%x: tensor<1x8x8x3xf16>, %w: tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32> {
  // CHECK-NEXT: {{.*}}invalid.mlir:105:3: error: cann.Conv2D: operands and results must have one element type, got f16, f32
  %y = cann.Conv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x8x8x3xf16>, tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32>
  func.return %y : tensor<1x8x8x4xf32>
}

// -----

func.func @fused_activation(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>, %b: tensor<4xf32>) -> tensor<1x8x8x4xf32> {
  // CHECK-NEXT: {{.*}}invalid.mlir:113:3: error: cann.FusedConv2D: 'activation' must be one of none, Relu, {{.*}}; got 'Mish' [node 'conv+sigmoid']
  %y = cann.FusedConv2D %x, %w, %b {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "Mish"} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>, tensor<4xf32>) -> tensor<1x8x8x4xf32> loc(fused["conv", "sigmoid"])
  func.return %y : tensor<1x8x8x4xf32>
}

// -----

func.func @bias_add(%x: tensor<1x8x8x4xf32>, %b: tensor<3xf32>) -> tensor<1x8x8x4xf32> {
  // CHECK-NEXT: {{.*}}invalid.mlir:121:3: error: cann.BiasAdd: bias has 3 elements, channels are 4
  %y = cann.BiasAdd %x, %b {data_format = "NHWC"} : (tensor<1x8x8x4xf32>, tensor<3xf32>) -> tensor<1x8x8x4xf32>
  func.return %y : tensor<1x8x8x4xf32>
}

// -----

func.func @bias_add_result(%x: tensor<1x8x8x4xf32>, %b: tensor<4xf32>) -> tensor<1x8x8x4xf16> {
  // CHECK-NEXT: {{.*}}invalid.mlir:129:3: error: cann.BiasAdd: operands and results must have one element type, got f16, f32
  %y = cann.BiasAdd %x, %b {data_format = "NHWC"} : (tensor<1x8x8x4xf32>, tensor<4xf32>) -> tensor<1x8x8x4xf16>
  func.return %y : tensor<1x8x8x4xf16>
}

// -----

func.func @relu(%x: tensor<4xf32>) -> tensor<5xf32> {
  // CHECK-NEXT: {{.*}}invalid.mlir:137:3: error: cann.Relu: result type must equal the operand type
  %y = cann.Relu %x : (tensor<4xf32>) -> tensor<5xf32>
  func.return %y : tensor<5xf32>
}

// -----

// CHECK-NEXT: {{.*}}invalid.mlir:144:67: error: unknown format 'NC1HWC4'; known: NCHW, NHWC, ND, NC1HWC0, FRACTAL_Z, HWCN, FRACTAL_NZ
func.func @format_unknown(%x: tensor<1x1x8x8x16xf32, #cann.format<NC1HWC4, origin NHWC [1, 8, 8, 3]>>) {
  func.return
}

// -----

// CHECK-NEXT: {{.*}}invalid.mlir:151:90: error: unknown format 'NWHC'; known: NCHW, NHWC, ND, NC1HWC0, FRACTAL_Z, HWCN, FRACTAL_NZ
func.func @format_unknown_origin(%x: tensor<1x1x8x8x16xf32, #cann.format<NC1HWC0, origin NWHC [1, 8, 8, 3]>>) {
  func.return
}

// -----

func.func @format_storage_shape(%x: tensor<1x8x8x3xf32, #cann.format<NC1HWC0, origin NHWC [1, 8, 8, 3]>>) -> tensor<1x8x8x3xf32, #cann.format<NC1HWC0, origin NHWC [1, 8, 8, 3]>> {
  // CHECK-NEXT: {{.*}}invalid.mlir:159:3: error: cann.Relu: operand #0 stored as NC1HWC0 from NHWC [1, 8, 8, 3] must have shape [1, 1, 8, 8, 16], got [1, 8, 8, 3] [node 'relu']
  %y = cann.Relu %x : (tensor<1x8x8x3xf32, #cann.format<NC1HWC0, origin NHWC [1, 8, 8, 3]>>) -> tensor<1x8x8x3xf32, #cann.format<NC1HWC0, origin NHWC [1, 8, 8, 3]>> loc("relu")
  func.return %y : tensor<1x8x8x3xf32, #cann.format<NC1HWC0, origin NHWC [1, 8, 8, 3]>>
}

// -----

func.func @transdata_src(%x: tensor<1x8x8x3xf32>) -> tensor<1x1x8x8x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 8, 8, 3]>> {
  %y = cann.TransData %x {src_format = "NHWC", dst_format = "NC1HWC0", groups = 1 : i64} : (tensor<1x8x8x3xf32>) -> tensor<1x1x8x8x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 8, 8, 3]>>
  // CHECK-NEXT: {{.*}}invalid.mlir:168:3: error: cann.TransData: source type is stored as NC1HWC0, attribute says NHWC [node 'trans']
  %z = cann.TransData %y {src_format = "NHWC", dst_format = "NHWC", groups = 1 : i64} : (tensor<1x1x8x8x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 8, 8, 3]>>) -> tensor<1x8x8x3xf32> loc("trans")
  func.return %y : tensor<1x1x8x8x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 8, 8, 3]>>
}

// -----

func.func @transdata_dst(%x: tensor<1x8x8x3xf32>) -> tensor<1x1x8x8x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 8, 8, 3]>> {
  // CHECK-NEXT: {{.*}}invalid.mlir:176:3: error: cann.TransData: result type is stored as NC1HWC0, attribute says FRACTAL_Z
  %y = cann.TransData %x {src_format = "NHWC", dst_format = "FRACTAL_Z", groups = 1 : i64} : (tensor<1x8x8x3xf32>) -> tensor<1x1x8x8x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 8, 8, 3]>>
  func.return %y : tensor<1x1x8x8x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 8, 8, 3]>>
}

// -----

func.func @transdata_origin(%x: tensor<1x8x8x4xf32>) -> tensor<1x1x8x8x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 8, 8, 3]>> {
  // CHECK-NEXT: {{.*}}invalid.mlir:184:3: error: cann.TransData: source and result must have one origin shape, got [1, 8, 8, 4] and [1, 8, 8, 3]
  %y = cann.TransData %x {src_format = "NHWC", dst_format = "NC1HWC0", groups = 1 : i64} : (tensor<1x8x8x4xf32>) -> tensor<1x1x8x8x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 8, 8, 3]>>
  func.return %y : tensor<1x1x8x8x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 8, 8, 3]>>
}

// -----

func.func @transdata_unknown(%x: tensor<1x8x8x3xf32>) -> tensor<1x8x8x3xf32> {
  // CHECK-NEXT: {{.*}}invalid.mlir:192:3: error: cann.TransData: 'dst_format' must be one of NCHW, NHWC, ND, NC1HWC0, FRACTAL_Z, HWCN, FRACTAL_NZ, NDC1HWC0, FRACTAL_Z_3D, NC1HWC0_C04, FRACTAL_Z_C04; got 'NDHWC'
  %y = cann.TransData %x {src_format = "NHWC", dst_format = "NDHWC", groups = 1 : i64} : (tensor<1x8x8x3xf32>) -> tensor<1x8x8x3xf32>
  func.return %y : tensor<1x8x8x3xf32>
}

// -----

func.func @const_shape() -> tensor<3x3x3x4xf32> {
  // CHECK-NEXT: {{.*}}invalid.mlir:200:3: error: cann.Const: value type tensor<3x3x3x8xf32> does not match result type tensor<3x3x3x4xf32> [node 'w']
  %w = cann.Const dense<1.0> : tensor<3x3x3x8xf32> -> tensor<3x3x3x4xf32> loc("w")
  func.return %w : tensor<3x3x3x4xf32>
}

// -----

func.func @const_element_type() -> tensor<4xf16> {
  // CHECK-NEXT: {{.*}}invalid.mlir:208:3: error: cann.Const: value type tensor<4xf32> does not match result type tensor<4xf16>
  %w = cann.Const dense<1.0> : tensor<4xf32> -> tensor<4xf16>
  func.return %w : tensor<4xf16>
}

// -----

func.func @const_storage_shape() -> tensor<3x3x3x4xf16, #cann.format<FRACTAL_Z, origin HWCN [3, 3, 3, 4]>> {
  // CHECK-NEXT: {{.*}}invalid.mlir:216:3: error: cann.Const: result stored as FRACTAL_Z from HWCN [3, 3, 3, 4] must have shape [9, 1, 16, 16], got [3, 3, 3, 4]
  %w = cann.Const dense<1.0> : tensor<3x3x3x4xf16> -> tensor<3x3x3x4xf16, #cann.format<FRACTAL_Z, origin HWCN [3, 3, 3, 4]>>
  func.return %w : tensor<3x3x3x4xf16, #cann.format<FRACTAL_Z, origin HWCN [3, 3, 3, 4]>>
}

// CHECK-NOT: error:
