// RUN: cann-opt --fuse %s --print-debuginfo | filecheck %s
// RUN: cann-opt --fuse %s | cann-opt --fuse | filecheck %s --check-prefix=TWICE
// RUN: cann-opt --fuse='disable=TbeConv2DReluFusion' %s | filecheck %s --check-prefix=NORELU
// RUN: cann-opt --fuse='disable=AABiasaddConvFusion,TbeConv2DReluFusion auto=false' %s | filecheck %s --check-prefix=OFF
// RUN: not cann-opt --fuse='disable=NoSuchRule' %s 2>&1 | filecheck %s --check-prefix=BADRULE

// Conv2D + BiasAdd + Relu -> one FusedConv2D located at all three nodes.
// CHECK-LABEL: func.func @conv_bias_relu
// CHECK-NEXT:    %[[Y:.*]] = cann.FusedConv2D %x, %w, %b {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "Relu"} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>, tensor<4xf32>) -> tensor<1x8x8x4xf32> loc(fused["conv", "bias", "relu"])
// CHECK-NEXT:    func.return %[[Y]]
// TWICE-LABEL: func.func @conv_bias_relu
// TWICE-NEXT:    cann.FusedConv2D {{.*}}activation = "Relu"
// TWICE-NEXT:    func.return
// NORELU-LABEL: func.func @conv_bias_relu
// NORELU-NEXT:    %[[F:.*]] = cann.FusedConv2D {{.*}}activation = "none"
// NORELU-NEXT:    cann.FusedKernel %[[F]]
// NORELU-NEXT:    ^bb0(%[[A:.*]]: tensor<1x8x8x4xf32>):
// NORELU-NEXT:      cann.Relu %[[A]]
// OFF-LABEL: func.func @conv_bias_relu
// OFF-NEXT:    cann.Conv2D
// OFF-NEXT:    cann.BiasAdd
// OFF-NEXT:    cann.Relu
// BADRULE: fuse.mlir: error: fuse: unknown fusion rule(s) NoSuchRule; known: {{.*}}AABiasaddConvFusion{{.*}}TbeConv2DReluFusion
func.func @conv_bias_relu(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>, %b: tensor<4xf32>) -> tensor<1x8x8x4xf32> {
  %0 = cann.Conv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32> loc("conv")
  %1 = cann.BiasAdd %0, %b {data_format = "NHWC"} : (tensor<1x8x8x4xf32>, tensor<4xf32>) -> tensor<1x8x8x4xf32> loc("bias")
  %2 = cann.Relu %1 : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32> loc("relu")
  func.return %2 : tensor<1x8x8x4xf32>
}

// Conv2D + Relu without a bias: an epilogue-only fused conv.
// CHECK-LABEL: func.func @conv_relu
// CHECK-NEXT:    cann.FusedConv2D %x, %w {{.*}}activation = "Relu"} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32>
func.func @conv_relu(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32> {
  %0 = cann.Conv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32>
  %1 = cann.Relu %0 : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  func.return %1 : tensor<1x8x8x4xf32>
}

// The conv output also feeds the function result: the unfused value is needed, nothing fuses.
// CHECK-LABEL: func.func @conv_escapes
// CHECK-NEXT:    cann.Conv2D
// CHECK-NEXT:    cann.BiasAdd
func.func @conv_escapes(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>, %b: tensor<4xf32>) -> (tensor<1x8x8x4xf32>, tensor<1x8x8x4xf32>) {
  %0 = cann.Conv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32>
  %1 = cann.BiasAdd %0, %b {data_format = "NHWC"} : (tensor<1x8x8x4xf32>, tensor<4xf32>) -> tensor<1x8x8x4xf32>
  func.return %0, %1 : tensor<1x8x8x4xf32>, tensor<1x8x8x4xf32>
}

// The biased conv feeds two Relus: bias fuses, the activation cannot.
// CHECK-LABEL: func.func @two_consumers
// CHECK-NEXT:    %[[F:.*]] = cann.FusedConv2D {{.*}}activation = "none"
// CHECK-NEXT:    cann.Relu %[[F]]
// CHECK-NEXT:    cann.Relu %[[F]]
func.func @two_consumers(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>, %b: tensor<4xf32>) -> (tensor<1x8x8x4xf32>, tensor<1x8x8x4xf32>) {
  %0 = cann.Conv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32>
  %1 = cann.BiasAdd %0, %b {data_format = "NHWC"} : (tensor<1x8x8x4xf32>, tensor<4xf32>) -> tensor<1x8x8x4xf32>
  %2 = cann.Relu %1 : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  %3 = cann.Relu %1 : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  func.return %2, %3 : tensor<1x8x8x4xf32>, tensor<1x8x8x4xf32>
}

// A BiasAdd whose data_format differs from the conv's is not the conv's channel bias.
// CHECK-LABEL: func.func @format_mismatch
// CHECK-NEXT:    cann.Conv2D
// CHECK-NEXT:    cann.BiasAdd
func.func @format_mismatch(%x: tensor<1x8x8x8xf32>, %w: tensor<3x3x8x8xf32>, %b: tensor<8xf32>) -> tensor<1x8x8x8xf32> {
  %0 = cann.Conv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x8x8x8xf32>, tensor<3x3x8x8xf32>) -> tensor<1x8x8x8xf32>
  %1 = cann.BiasAdd %0, %b {data_format = "NCHW"} : (tensor<1x8x8x8xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
  func.return %1 : tensor<1x8x8x8xf32>
}
