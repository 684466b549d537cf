// RUN: cann-opt --assign-layouts %s | filecheck %s
// RUN: cann-opt --assign-layouts %s | cann-opt --assign-layouts | filecheck %s

// Two convolutions in a row: activations live in NC1HWC0, weights in FRACTAL_Z (converted at
// compile time), and the only TransData are at the function's input and output.  The first
// (C_in = 3, reading the input) takes the small-C_in layout (compiler/target/c04.py): x
// NC1HWC0_C04, its 9 taps x 4 channels packed in K = 48 rows of FRACTAL_Z_C04.
// CHECK-LABEL: func.func @two_convs
// CHECK:         %[[X:.*]] = cann.TransData %x {src_format = "NHWC", dst_format = "NC1HWC0_C04", groups = 1 : i64} : (tensor<1x8x8x3xf32>) -> tensor<1x1x8x8x4xf32, #cann.format<NC1HWC0_C04, origin NHWC [1, 8, 8, 3]>>
// CHECK-NOT:     cann.TransData
// CHECK:         %[[W1:.*]] = cann.Const dense<{{.*}}> : tensor<3x2x16x16xf32> -> tensor<3x2x16x16xf32, #cann.format<FRACTAL_Z_C04, origin HWCN [3, 3, 3, 20]>>
// CHECK-NOT:     cann.TransData
// CHECK:         %[[C1:.*]] = cann.Conv2D %[[X]], %[[W1]] {{.*}} -> tensor<1x2x8x8x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 8, 8, 20]>>
// CHECK-NEXT:    %[[B:.*]] = cann.BiasAdd %[[C1]], %b {data_format = "NHWC"} : (tensor<1x2x8x8x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 8, 8, 20]>>, tensor<20xf32>) -> tensor<1x2x8x8x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 8, 8, 20]>>
// CHECK-NEXT:    %[[R:.*]] = cann.Relu %[[B]] : (tensor<1x2x8x8x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 8, 8, 20]>>) -> tensor<1x2x8x8x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 8, 8, 20]>>
// CHECK-NOT:     cann.TransData
// CHECK:         %[[W2:.*]] = cann.Const dense<{{.*}}> : tensor<2x1x16x16xf32> -> tensor<2x1x16x16xf32, #cann.format<FRACTAL_Z, origin HWCN [1, 1, 20, 5]>>
// CHECK-NEXT:    %[[C2:.*]] = cann.Conv2D %[[R]], %[[W2]] {{.*}} -> tensor<1x1x8x8x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 8, 8, 5]>>
// CHECK-NEXT:    %[[Y:.*]] = cann.TransData %[[C2]] {src_format = "NC1HWC0", dst_format = "NHWC", groups = 1 : i64} : (tensor<1x1x8x8x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 8, 8, 5]>>) -> tensor<1x8x8x5xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x8x8x5xf32>
func.func @two_convs(%x: tensor<1x8x8x3xf32>, %b: tensor<20xf32>) -> tensor<1x8x8x5xf32> {
  %w1 = cann.Const dense<0.25> : tensor<3x3x3x20xf32>
  %w2 = cann.Const dense<0.5> : tensor<1x1x20x5xf32>
  %0 = cann.Conv2D %x, %w1 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x8x8x3xf32>, tensor<3x3x3x20xf32>) -> tensor<1x8x8x20xf32>
  %1 = cann.BiasAdd %0, %b {data_format = "NHWC"} : (tensor<1x8x8x20xf32>, tensor<20xf32>) -> tensor<1x8x8x20xf32>
  %2 = cann.Relu %1 : (tensor<1x8x8x20xf32>) -> tensor<1x8x8x20xf32>
  %3 = cann.Conv2D %2, %w2 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x8x8x20xf32>, tensor<1x1x20x5xf32>) -> tensor<1x8x8x5xf32>
  func.return %3 : tensor<1x8x8x5xf32>
}

// The FRACTAL_Z index map on a 1x1 filter (HWCN [[1, 2], [3, 4]]): FZ[0][0][n0][c0] = W_hwcn[c0][n0],
// so the first row (n0 = 0) starts 1, 3 and the second (n0 = 1) starts 2, 4; the rest is zero padding.
// CHECK-LABEL: func.func @fractal_z_values
// CHECK: cann.Const dense<"0x0000803F00004040{{(00000000)+}}0000004000008040{{(00000000)+}}"> : tensor<1x1x16x16xf32> -> tensor<1x1x16x16xf32, #cann.format<FRACTAL_Z, origin HWCN [1, 1, 2, 2]>>
func.func @fractal_z_values(%x: tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> {
  %w = cann.Const dense<[[[[1.0, 2.0], [3.0, 4.0]]]]> : tensor<1x1x2x2xf32>
  %0 = cann.Conv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x4x4x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x4x4x2xf32>
  func.return %0 : tensor<1x4x4x2xf32>
}

// A filter that is not a constant is converted on the device by a TransData.
// CHECK-LABEL: func.func @runtime_filter
// CHECK: cann.TransData %w {src_format = "HWCN", dst_format = "FRACTAL_Z", groups = 1 : i64} : (tensor<3x3x3x4xf32>) -> tensor<9x1x16x16xf32, #cann.format<FRACTAL_Z, origin HWCN [3, 3, 3, 4]>>
func.func @runtime_filter(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32> {
  %0 = cann.Conv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32>
  func.return %0 : tensor<1x8x8x4xf32>
}

// A fused conv gets the same layouts (C_in = 3 from the input: the small-C_in ones); its bias
// stays ND.  (A runtime filter, above, keeps FRACTAL_Z: C04 packs constants at compile time.)
// CHECK-LABEL: func.func @fused
// CHECK: cann.FusedConv2D {{.*}} : (tensor<1x1x8x8x4xf32, #cann.format<NC1HWC0_C04, origin NHWC [1, 8, 8, 3]>>, tensor<3x1x16x16xf32, #cann.format<FRACTAL_Z_C04, origin HWCN [3, 3, 3, 4]>>, tensor<4xf32>) -> tensor<1x1x8x8x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 8, 8, 4]>>
func.func @fused(%x: tensor<1x8x8x3xf32>, %b: tensor<4xf32>) -> tensor<1x8x8x4xf32> {
  %w = cann.Const dense<1.0> : tensor<3x3x3x4xf32>
  %0 = cann.FusedConv2D %x, %w, %b {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "Relu"} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>, tensor<4xf32>) -> tensor<1x8x8x4xf32>
  func.return %0 : tensor<1x8x8x4xf32>
}
