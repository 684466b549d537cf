// RUN: cann-opt %s | filecheck %s
// RUN: cann-opt %s --print-op-generic | cann-opt | filecheck %s
// RUN: cann-opt %s --print-debuginfo | filecheck %s --check-prefix=LOC
// RUN: cann-opt %s --print-op-generic --print-debuginfo | cann-opt --print-debuginfo | filecheck %s --check-prefix=LOC
// RUN: cann-opt %s > %t.custom && cann-opt %s --print-op-generic | cann-opt > %t.roundtrip && diff %t.custom %t.roundtrip

// Every tf op in its custom form; the second RUN line checks custom -> generic -> custom.

func.func @conv_block(%arg0: tensor<1x8x8x3xf32>) -> tensor<1x8x8x4xf32> {
  %x = tf.Placeholder %arg0 {shape = "1,8,8,3"} : (tensor<1x8x8x3xf32>) -> tensor<1x8x8x3xf32> loc("input/x")
  %w = tf.Const dense<1.0> : tensor<3x3x3x4xf32> loc("conv/w")
  %b = tf.Const dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32> loc("conv/b")
  %c = tf.Conv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, padding = "SAME", data_format = "NHWC", dilations = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32> loc("conv/Conv2D")
  %a = tf.BiasAdd %c, %b {data_format = "NHWC"} : (tensor<1x8x8x4xf32>, tensor<4xf32>) -> tensor<1x8x8x4xf32> loc("conv/BiasAdd")
  %r = tf.Relu %a : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32> loc("conv/Relu")
  %y = tf.Identity %r : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32> loc("output")
  func.return %y : tensor<1x8x8x4xf32>
}

// CHECK-LABEL: func.func @conv_block(%arg0: tensor<1x8x8x3xf32>) -> tensor<1x8x8x4xf32> {
// CHECK-NEXT:    %x = tf.Placeholder %arg0 {shape = "1,8,8,3"} : (tensor<1x8x8x3xf32>) -> tensor<1x8x8x3xf32>
// CHECK-NEXT:    %w = tf.Const dense<1.000000e+00> : tensor<3x3x3x4xf32>
// CHECK-NEXT:    %b = tf.Const dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
// CHECK-NEXT:    %c = tf.Conv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, padding = "SAME", data_format = "NHWC", dilations = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32>
// CHECK-NEXT:    %a = tf.BiasAdd %c, %b {data_format = "NHWC"} : (tensor<1x8x8x4xf32>, tensor<4xf32>) -> tensor<1x8x8x4xf32>
// CHECK-NEXT:    %r = tf.Relu %a : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
// CHECK-NEXT:    %y = tf.Identity %r : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
// CHECK-NEXT:    func.return %y : tensor<1x8x8x4xf32>
// CHECK-NEXT:  }

// LOC-LABEL: func.func @conv_block
// LOC:         tf.Placeholder {{.*}} loc("input/x")
// LOC-NEXT:    tf.Const {{.*}} loc("conv/w")
// LOC-NEXT:    tf.Const {{.*}} loc("conv/b")
// LOC-NEXT:    tf.Conv2D {{.*}} loc("conv/Conv2D")
// LOC-NEXT:    tf.BiasAdd {{.*}} loc("conv/BiasAdd")
// LOC-NEXT:    tf.Relu {{.*}} loc("conv/Relu")
// LOC-NEXT:    tf.Identity {{.*}} loc("output")

// NCHW, EXPLICIT padding with explicit_paddings, strides and dilations; an op without a
// location; f16.

func.func @nchw_explicit(%arg0: tensor<2x3x9x9xf16>) -> tensor<2x8x5x5xf16> {
  %x = tf.Placeholder %arg0 : (tensor<2x3x9x9xf16>) -> tensor<2x3x9x9xf16>
  %w = tf.Const dense<5.000000e-01> : tensor<3x3x3x8xf16>
  %b = tf.Const dense<0.000000e+00> : tensor<8xf16>
  %c = tf.Conv2D %x, %w {strides = array<i64: 1, 1, 2, 2>, padding = "EXPLICIT", data_format = "NCHW", dilations = array<i64: 1, 1, 1, 1>, explicit_paddings = array<i64: 0, 0, 0, 0, 1, 1, 1, 1>} : (tensor<2x3x9x9xf16>, tensor<3x3x3x8xf16>) -> tensor<2x8x5x5xf16>
  %a = tf.BiasAdd %c, %b {data_format = "NCHW"} : (tensor<2x8x5x5xf16>, tensor<8xf16>) -> tensor<2x8x5x5xf16>
  func.return %a : tensor<2x8x5x5xf16>
}

// CHECK-LABEL: func.func @nchw_explicit(%arg0: tensor<2x3x9x9xf16>) -> tensor<2x8x5x5xf16> {
// CHECK-NEXT:    %x = tf.Placeholder %arg0 : (tensor<2x3x9x9xf16>) -> tensor<2x3x9x9xf16>
// CHECK-NEXT:    %w = tf.Const dense<5.000000e-01> : tensor<3x3x3x8xf16>
// CHECK-NEXT:    %b = tf.Const dense<0.000000e+00> : tensor<8xf16>
// CHECK-NEXT:    %c = tf.Conv2D %x, %w {strides = array<i64: 1, 1, 2, 2>, padding = "EXPLICIT", data_format = "NCHW", dilations = array<i64: 1, 1, 1, 1>, explicit_paddings = array<i64: 0, 0, 0, 0, 1, 1, 1, 1>} : (tensor<2x3x9x9xf16>, tensor<3x3x3x8xf16>) -> tensor<2x8x5x5xf16>
// CHECK-NEXT:    %a = tf.BiasAdd %c, %b {data_format = "NCHW"} : (tensor<2x8x5x5xf16>, tensor<8xf16>) -> tensor<2x8x5x5xf16>
// CHECK-NEXT:    func.return %a : tensor<2x8x5x5xf16>

// LOC-LABEL: func.func @nchw_explicit
// LOC:         tf.Placeholder {{.*}} loc(unknown)

// Constants of other element types; more than 100 elements print as hex.

func.func @constants() {
  %big = tf.Const dense<"0x000000000000003F0000803F0000C03F0000004000002040000040400000604000008040000090400000A0400000B0400000C0400000D0400000E0400000F0400000004100000841000010410000184100002041000028410000304100003841000040410000484100005041000058410000604100006841000070410000784100008041000084410000884100008C4100009041000094410000984100009C410000A0410000A4410000A8410000AC410000B0410000B4410000B8410000BC410000C0410000C4410000C8410000CC410000D0410000D4410000D8410000DC410000E0410000E4410000E8410000EC410000F0410000F4410000F8410000FC41000000420000024200000442000006420000084200000A4200000C4200000E42000010420000124200001442000016420000184200001A4200001C4200001E42000020420000224200002442000026420000284200002A4200002C4200002E42000030420000324200003442000036420000384200003A4200003C4200003E42000040420000424200004442000046420000484200004A4200004C4200004E42000050420000524200005442000056420000584200005A4200005C4200005E42000060420000624200006442000066420000684200006A4200006C4200006E42000070420000724200007442000076420000784200007A4200007C4200007E42"> : tensor<2x64xf32>
  %i = tf.Const dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %t = tf.Const dense<[true, false]> : tensor<2xi1>
  %d = tf.Const dense<2.5> : tensor<f64> loc("scalar")
  func.return
}

// CHECK-LABEL: func.func @constants() {
// CHECK-NEXT:    %big = tf.Const dense<"0x000000000000003F0000803F{{[0-9A-F]+}}"> : tensor<2x64xf32>
// CHECK-NEXT:    %i = tf.Const dense<{{\[\[}}1, 2], [3, 4]]> : tensor<2x2xi32>
// CHECK-NEXT:    %t = tf.Const dense<[true, false]> : tensor<2xi1>
// CHECK-NEXT:    %d = tf.Const dense<2.500000e+00> : tensor<f64>
// CHECK-NEXT:    func.return

// LOC-LABEL: func.func @constants
// LOC:         tf.Const dense<2.500000e+00> : tensor<f64> loc("scalar")

// Attributes beyond the op's own (e.g. TF's `_class`, `T`) are kept, in both printed forms.

func.func @discardable(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %a = tf.Const dense<1.0> : tensor<4xf32> attributes {_class = ["loc:@w"]}
  %r = tf.Relu %a {T = f32, _output_shapes = ["4"]} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// CHECK-LABEL: func.func @discardable(
// CHECK-NEXT:    %a = tf.Const dense<1.000000e+00> : tensor<4xf32> attributes {_class = ["loc:@w"]}
// CHECK-NEXT:    %r = tf.Relu %a {_output_shapes = ["4"], T = f32} : (tensor<4xf32>) -> tensor<4xf32>
