// RUN: cann-opt --fuse %s | filecheck %s
// RUN: cann-opt --fuse %s | cann-opt --fuse | filecheck %s --check-prefix=TWICE
// RUN: cann-opt --fuse %s | cann-opt | cann-opt --fuse | filecheck %s
// RUN: cann-opt --fuse='disable=SqueezeExciteFusionPass,SqueezeExciteKeepDimsFusionPass' %s | filecheck %s --check-prefix=OFF
// RUN: cann-opt --fuse --fusion-report=- %s 2>&1 >/dev/null | filecheck %s --check-prefix=REPORT

// Squeeze-excite (compiler/transforms/fusion/rules/30_squeeze_excite.rules): the gate's mean and two 1x1
// convs become one FusedSqueezeExcite, and the Mul by the gate goes into the next conv's input
// (FusedConv2DScaled).  Each constraint violated below keeps the unfused ops.
// REPORT-DAG: SqueezeExciteFusionPass {{.*}} on
// REPORT-DAG: SqueezeExciteKeepDimsFusionPass {{.*}} on
// REPORT-DAG: SqueezeExciteScaleConvFusionPass {{.*}} on

// The Keras form (GlobalAveragePooling2D + Reshape): the gate and the scaled projection conv.
// CHECK-LABEL: func.func @se
// CHECK-NEXT:    %[[G:.*]] = cann.FusedSqueezeExcite %x, %w1, %b1, %w2, %b2 {act1 = "Swish", act2 = "Sigmoid"} : (tensor<1x4x4x32xf32>, tensor<1x1x32x8xf32>, tensor<8xf32>, tensor<1x1x8x32xf32>, tensor<32xf32>) -> tensor<1x1x1x32xf32>
// CHECK-NEXT:    %[[Y:.*]] = cann.FusedConv2DScaled %x, %wp, %bp, %[[G]] {{.*}}activation = "none", post_activation = "none"} : (tensor<1x4x4x32xf32>, tensor<1x1x32x16xf32>, tensor<16xf32>, tensor<1x1x1x32xf32>) -> tensor<1x4x4x16xf32>
// CHECK-NEXT:    func.return %[[Y]]
// TWICE-LABEL: func.func @se
// TWICE-NEXT:    cann.FusedSqueezeExcite
// TWICE-NEXT:    cann.FusedConv2DScaled
// TWICE-NEXT:    func.return
// OFF-LABEL: func.func @se
// OFF-NEXT:    cann.ReduceMeanD
// OFF-NEXT:    cann.Reshape
// OFF-NEXT:    cann.FusedConv2D
// OFF-NEXT:    cann.FusedConv2D
// OFF-NEXT:    cann.FusedConv2DScaled
func.func @se(%x: tensor<1x4x4x32xf32>, %w1: tensor<1x1x32x8xf32>, %b1: tensor<8xf32>, %w2: tensor<1x1x8x32xf32>, %b2: tensor<32xf32>, %wp: tensor<1x1x32x16xf32>, %bp: tensor<16xf32>) -> tensor<1x4x4x16xf32> {
  %0 = cann.ReduceMeanD %x {axes = array<i64: 1, 2>, keep_dims = false} : (tensor<1x4x4x32xf32>) -> tensor<1x32xf32>
  %1 = cann.Reshape %0 {shape = array<i64: 1, 1, 1, 32>} : (tensor<1x32xf32>) -> tensor<1x1x1x32xf32>
  %2 = cann.FusedConv2D %1, %w1, %b1 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "Swish"} : (tensor<1x1x1x32xf32>, tensor<1x1x32x8xf32>, tensor<8xf32>) -> tensor<1x1x1x8xf32>
  %3 = cann.FusedConv2D %2, %w2, %b2 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "Sigmoid"} : (tensor<1x1x1x8xf32>, tensor<1x1x8x32xf32>, tensor<32xf32>) -> tensor<1x1x1x32xf32>
  %4 = cann.Mul %x, %3 : (tensor<1x4x4x32xf32>, tensor<1x1x1x32xf32>) -> tensor<1x4x4x32xf32>
  %5 = cann.FusedConv2D %4, %wp, %bp {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "none"} : (tensor<1x4x4x32xf32>, tensor<1x1x32x16xf32>, tensor<16xf32>) -> tensor<1x4x4x16xf32>
  func.return %5 : tensor<1x4x4x16xf32>
}


// The projection conv with its residual Add and Relu: the scaled conv, then its epilogue (the
// automatic fusion's cann.FusedKernel reading the conv's result as input #0).
// CHECK-LABEL: func.func @se_residual
// CHECK-NEXT:    %[[G:.*]] = cann.FusedSqueezeExcite %x
// CHECK-NEXT:    %[[C:.*]] = cann.FusedConv2DScaled %x, %wp, %bp, %[[G]] {{.*}}post_activation = "none"}
// CHECK-NEXT:    %[[Y:.*]] = cann.FusedKernel %[[C]], %r
// CHECK:           cann.Add
// CHECK-NEXT:      cann.Relu
// CHECK:         func.return %[[Y]]
func.func @se_residual(%x: tensor<1x4x4x32xf32>, %w1: tensor<1x1x32x8xf32>, %b1: tensor<8xf32>, %w2: tensor<1x1x8x32xf32>, %b2: tensor<32xf32>, %wp: tensor<1x1x32x16xf32>, %bp: tensor<16xf32>, %r: tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32> {
  %0 = cann.ReduceMeanD %x {axes = array<i64: 1, 2>, keep_dims = false} : (tensor<1x4x4x32xf32>) -> tensor<1x32xf32>
  %1 = cann.Reshape %0 {shape = array<i64: 1, 1, 1, 32>} : (tensor<1x32xf32>) -> tensor<1x1x1x32xf32>
  %2 = cann.FusedConv2D %1, %w1, %b1 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "Swish"} : (tensor<1x1x1x32xf32>, tensor<1x1x32x8xf32>, tensor<8xf32>) -> tensor<1x1x1x8xf32>
  %3 = cann.FusedConv2D %2, %w2, %b2 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "Sigmoid"} : (tensor<1x1x1x8xf32>, tensor<1x1x8x32xf32>, tensor<32xf32>) -> tensor<1x1x1x32xf32>
  %4 = cann.Mul %x, %3 : (tensor<1x4x4x32xf32>, tensor<1x1x1x32xf32>) -> tensor<1x4x4x32xf32>
  %5 = cann.FusedConv2D %4, %wp, %bp {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "none"} : (tensor<1x4x4x32xf32>, tensor<1x1x32x16xf32>, tensor<16xf32>) -> tensor<1x4x4x16xf32>
  %6 = cann.Add %5, %r : (tensor<1x4x4x16xf32>, tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32>
  %7 = cann.Relu %6 : (tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32>
  func.return %7 : tensor<1x4x4x16xf32>
}


// reduce_mean(keepdims=True): no Reshape.
// CHECK-LABEL: func.func @se_keep_dims
// CHECK-NEXT:    cann.FusedSqueezeExcite %x, %w1, %b1, %w2, %b2
// CHECK-NEXT:    cann.FusedConv2DScaled
// CHECK-NEXT:    func.return
func.func @se_keep_dims(%x: tensor<1x4x4x32xf32>, %w1: tensor<1x1x32x8xf32>, %b1: tensor<8xf32>, %w2: tensor<1x1x8x32xf32>, %b2: tensor<32xf32>, %wp: tensor<1x1x32x16xf32>, %bp: tensor<16xf32>) -> tensor<1x4x4x16xf32> {
  %1 = cann.ReduceMeanD %x {axes = array<i64: 1, 2>, keep_dims = true} : (tensor<1x4x4x32xf32>) -> tensor<1x1x1x32xf32>
 %2 = cann.FusedConv2D %1, %w1, %b1 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "Swish"} : (tensor<1x1x1x32xf32>, tensor<1x1x32x8xf32>, tensor<8xf32>) -> tensor<1x1x1x8xf32>
  %3 = cann.FusedConv2D %2, %w2, %b2 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "Sigmoid"} : (tensor<1x1x1x8xf32>, tensor<1x1x8x32xf32>, tensor<32xf32>) -> tensor<1x1x1x32xf32>
  %4 = cann.Mul %x, %3 : (tensor<1x4x4x32xf32>, tensor<1x1x1x32xf32>) -> tensor<1x4x4x32xf32>
  %5 = cann.FusedConv2D %4, %wp, %bp {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "none"} : (tensor<1x4x4x32xf32>, tensor<1x1x32x16xf32>, tensor<16xf32>) -> tensor<1x4x4x16xf32>
  func.return %5 : tensor<1x4x4x16xf32>
}


// The gate is a kernel's result and may have other consumers: both fusions still hold.
// CHECK-LABEL: func.func @se_gate_used
// CHECK-NEXT:    %[[G:.*]] = cann.FusedSqueezeExcite
// CHECK-NEXT:    %[[Y:.*]] = cann.FusedConv2DScaled %x, %wp, %bp, %[[G]]
// CHECK-NEXT:    func.return %[[Y]], %[[G]]
func.func @se_gate_used(%x: tensor<1x4x4x32xf32>, %w1: tensor<1x1x32x8xf32>, %b1: tensor<8xf32>, %w2: tensor<1x1x8x32xf32>, %b2: tensor<32xf32>, %wp: tensor<1x1x32x16xf32>, %bp: tensor<16xf32>) -> (tensor<1x4x4x16xf32>, tensor<1x1x1x32xf32>) {
  %0 = cann.ReduceMeanD %x {axes = array<i64: 1, 2>, keep_dims = false} : (tensor<1x4x4x32xf32>) -> tensor<1x32xf32>
  %1 = cann.Reshape %0 {shape = array<i64: 1, 1, 1, 32>} : (tensor<1x32xf32>) -> tensor<1x1x1x32xf32>
  %2 = cann.FusedConv2D %1, %w1, %b1 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "Swish"} : (tensor<1x1x1x32xf32>, tensor<1x1x32x8xf32>, tensor<8xf32>) -> tensor<1x1x1x8xf32>
  %3 = cann.FusedConv2D %2, %w2, %b2 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "Sigmoid"} : (tensor<1x1x1x8xf32>, tensor<1x1x8x32xf32>, tensor<32xf32>) -> tensor<1x1x1x32xf32>
  %4 = cann.Mul %x, %3 : (tensor<1x4x4x32xf32>, tensor<1x1x1x32xf32>) -> tensor<1x4x4x32xf32>
  %5 = cann.FusedConv2D %4, %wp, %bp {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "none"} : (tensor<1x4x4x32xf32>, tensor<1x1x32x16xf32>, tensor<16xf32>) -> tensor<1x4x4x16xf32>
  func.return %5, %3 : tensor<1x4x4x16xf32>, tensor<1x1x1x32xf32>
}


// The pooled mean is also a result: no gate kernel (the conv still takes the gate as a scale).
// CHECK-LABEL: func.func @se_pooled_used
// CHECK-NEXT:    cann.ReduceMeanD
// CHECK-NEXT:    cann.Reshape
// CHECK-NEXT:    cann.FusedConv2D
// CHECK-NEXT:    cann.FusedConv2D
// CHECK-NEXT:    cann.FusedConv2DScaled
func.func @se_pooled_used(%x: tensor<1x4x4x32xf32>, %w1: tensor<1x1x32x8xf32>, %b1: tensor<8xf32>, %w2: tensor<1x1x8x32xf32>, %b2: tensor<32xf32>, %wp: tensor<1x1x32x16xf32>, %bp: tensor<16xf32>) -> (tensor<1x4x4x16xf32>, tensor<1x32xf32>) {
  %0 = cann.ReduceMeanD %x {axes = array<i64: 1, 2>, keep_dims = false} : (tensor<1x4x4x32xf32>) -> tensor<1x32xf32>
  %1 = cann.Reshape %0 {shape = array<i64: 1, 1, 1, 32>} : (tensor<1x32xf32>) -> tensor<1x1x1x32xf32>
  %2 = cann.FusedConv2D %1, %w1, %b1 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "Swish"} : (tensor<1x1x1x32xf32>, tensor<1x1x32x8xf32>, tensor<8xf32>) -> tensor<1x1x1x8xf32>
  %3 = cann.FusedConv2D %2, %w2, %b2 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "Sigmoid"} : (tensor<1x1x1x8xf32>, tensor<1x1x8x32xf32>, tensor<32xf32>) -> tensor<1x1x1x32xf32>
  %4 = cann.Mul %x, %3 : (tensor<1x4x4x32xf32>, tensor<1x1x1x32xf32>) -> tensor<1x4x4x32xf32>
  %5 = cann.FusedConv2D %4, %wp, %bp {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "none"} : (tensor<1x4x4x32xf32>, tensor<1x1x32x16xf32>, tensor<16xf32>) -> tensor<1x4x4x16xf32>
  func.return %5, %0 : tensor<1x4x4x16xf32>, tensor<1x32xf32>
}


// The hidden activation is also a result: no gate kernel.
// CHECK-LABEL: func.func @se_hidden_used
// CHECK-NOT:     cann.FusedSqueezeExcite
// CHECK:         cann.FusedConv2DScaled
func.func @se_hidden_used(%x: tensor<1x4x4x32xf32>, %w1: tensor<1x1x32x8xf32>, %b1: tensor<8xf32>, %w2: tensor<1x1x8x32xf32>, %b2: tensor<32xf32>, %wp: tensor<1x1x32x16xf32>, %bp: tensor<16xf32>) -> (tensor<1x4x4x16xf32>, tensor<1x1x1x8xf32>) {
  %0 = cann.ReduceMeanD %x {axes = array<i64: 1, 2>, keep_dims = false} : (tensor<1x4x4x32xf32>) -> tensor<1x32xf32>
  %1 = cann.Reshape %0 {shape = array<i64: 1, 1, 1, 32>} : (tensor<1x32xf32>) -> tensor<1x1x1x32xf32>
  %2 = cann.FusedConv2D %1, %w1, %b1 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "Swish"} : (tensor<1x1x1x32xf32>, tensor<1x1x32x8xf32>, tensor<8xf32>) -> tensor<1x1x1x8xf32>
  %3 = cann.FusedConv2D %2, %w2, %b2 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "Sigmoid"} : (tensor<1x1x1x8xf32>, tensor<1x1x8x32xf32>, tensor<32xf32>) -> tensor<1x1x1x32xf32>
  %4 = cann.Mul %x, %3 : (tensor<1x4x4x32xf32>, tensor<1x1x1x32xf32>) -> tensor<1x4x4x32xf32>
  %5 = cann.FusedConv2D %4, %wp, %bp {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "none"} : (tensor<1x4x4x32xf32>, tensor<1x1x32x16xf32>, tensor<16xf32>) -> tensor<1x4x4x16xf32>
  func.return %5, %2 : tensor<1x4x4x16xf32>, tensor<1x1x1x8xf32>
}


// The scaled input x * gate is also a result: the Mul stays, the conv is not scaled.
// CHECK-LABEL: func.func @se_mul_used
// CHECK-NEXT:    %[[G:.*]] = cann.FusedSqueezeExcite
// CHECK-NEXT:    %[[M:.*]] = cann.Mul %x, %[[G]]
// CHECK-NEXT:    cann.FusedConv2D %[[M]], %wp, %bp
func.func @se_mul_used(%x: tensor<1x4x4x32xf32>, %w1: tensor<1x1x32x8xf32>, %b1: tensor<8xf32>, %w2: tensor<1x1x8x32xf32>, %b2: tensor<32xf32>, %wp: tensor<1x1x32x16xf32>, %bp: tensor<16xf32>) -> (tensor<1x4x4x16xf32>, tensor<1x4x4x32xf32>) {
  %0 = cann.ReduceMeanD %x {axes = array<i64: 1, 2>, keep_dims = false} : (tensor<1x4x4x32xf32>) -> tensor<1x32xf32>
  %1 = cann.Reshape %0 {shape = array<i64: 1, 1, 1, 32>} : (tensor<1x32xf32>) -> tensor<1x1x1x32xf32>
  %2 = cann.FusedConv2D %1, %w1, %b1 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "Swish"} : (tensor<1x1x1x32xf32>, tensor<1x1x32x8xf32>, tensor<8xf32>) -> tensor<1x1x1x8xf32>
  %3 = cann.FusedConv2D %2, %w2, %b2 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "Sigmoid"} : (tensor<1x1x1x8xf32>, tensor<1x1x8x32xf32>, tensor<32xf32>) -> tensor<1x1x1x32xf32>
  %4 = cann.Mul %x, %3 : (tensor<1x4x4x32xf32>, tensor<1x1x1x32xf32>) -> tensor<1x4x4x32xf32>
  %5 = cann.FusedConv2D %4, %wp, %bp {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "none"} : (tensor<1x4x4x32xf32>, tensor<1x1x32x16xf32>, tensor<16xf32>) -> tensor<1x4x4x16xf32>
  func.return %5, %4 : tensor<1x4x4x16xf32>, tensor<1x4x4x32xf32>
}


// The mean also runs over N (axes 0, 1, 2): not a squeeze-excite gate.
// CHECK-LABEL: func.func @se_mean_over_batch
// CHECK-NEXT:    cann.ReduceMeanD %x {axes = array<i64: 0, 1, 2>
// CHECK-NEXT:    cann.FusedConv2D
// CHECK-NEXT:    cann.FusedConv2D
func.func @se_mean_over_batch(%x: tensor<1x4x4x32xf32>, %w1: tensor<1x1x32x8xf32>, %b1: tensor<8xf32>, %w2: tensor<1x1x8x32xf32>, %b2: tensor<32xf32>, %wp: tensor<1x1x32x16xf32>, %bp: tensor<16xf32>) -> tensor<1x4x4x16xf32> {
  %1 = cann.ReduceMeanD %x {axes = array<i64: 0, 1, 2>, keep_dims = true} : (tensor<1x4x4x32xf32>) -> tensor<1x1x1x32xf32>
 %2 = cann.FusedConv2D %1, %w1, %b1 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "Swish"} : (tensor<1x1x1x32xf32>, tensor<1x1x32x8xf32>, tensor<8xf32>) -> tensor<1x1x1x8xf32>
  %3 = cann.FusedConv2D %2, %w2, %b2 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "Sigmoid"} : (tensor<1x1x1x8xf32>, tensor<1x1x8x32xf32>, tensor<32xf32>) -> tensor<1x1x1x32xf32>
  %4 = cann.Mul %x, %3 : (tensor<1x4x4x32xf32>, tensor<1x1x1x32xf32>) -> tensor<1x4x4x32xf32>
  %5 = cann.FusedConv2D %4, %wp, %bp {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "none"} : (tensor<1x4x4x32xf32>, tensor<1x1x32x16xf32>, tensor<16xf32>) -> tensor<1x4x4x16xf32>
  func.return %5 : tensor<1x4x4x16xf32>
}


// A scale that varies along H ([1, 4, 1, 32]) is not per (batch, channel): the Mul stays.
// CHECK-LABEL: func.func @scale_not_hw_only
// CHECK-NEXT:    cann.Mul %x, %g
// CHECK-NEXT:    cann.FusedConv2D
func.func @scale_not_hw_only(%x: tensor<1x4x4x32xf32>, %g: tensor<1x4x1x32xf32>, %wp: tensor<1x1x32x16xf32>, %bp: tensor<16xf32>) -> tensor<1x4x4x16xf32> {
  %4 = cann.Mul %x, %g : (tensor<1x4x4x32xf32>, tensor<1x4x1x32xf32>) -> tensor<1x4x4x32xf32>
  %5 = cann.FusedConv2D %4, %wp, %bp {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "none"} : (tensor<1x4x4x32xf32>, tensor<1x1x32x16xf32>, tensor<16xf32>) -> tensor<1x4x4x16xf32>
  func.return %5 : tensor<1x4x4x16xf32>
}


// A 3x3 squeeze conv (padded) is not pointwise: no gate kernel.
// CHECK-LABEL: func.func @se_conv_not_1x1
// CHECK-NOT:     cann.FusedSqueezeExcite
// CHECK:         cann.FusedConv2DScaled
func.func @se_conv_not_1x1(%x: tensor<1x4x4x32xf32>, %w1: tensor<3x3x32x8xf32>, %b1: tensor<8xf32>, %w2: tensor<1x1x8x32xf32>, %b2: tensor<32xf32>, %wp: tensor<1x1x32x16xf32>, %bp: tensor<16xf32>) -> tensor<1x4x4x16xf32> {
  %0 = cann.ReduceMeanD %x {axes = array<i64: 1, 2>, keep_dims = false} : (tensor<1x4x4x32xf32>) -> tensor<1x32xf32>
  %1 = cann.Reshape %0 {shape = array<i64: 1, 1, 1, 32>} : (tensor<1x32xf32>) -> tensor<1x1x1x32xf32>
  %2 = cann.FusedConv2D %1, %w1, %b1 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "Swish"} : (tensor<1x1x1x32xf32>, tensor<3x3x32x8xf32>, tensor<8xf32>) -> tensor<1x1x1x8xf32>
  %3 = cann.FusedConv2D %2, %w2, %b2 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "Sigmoid"} : (tensor<1x1x1x8xf32>, tensor<1x1x8x32xf32>, tensor<32xf32>) -> tensor<1x1x1x32xf32>
  %4 = cann.Mul %x, %3 : (tensor<1x4x4x32xf32>, tensor<1x1x1x32xf32>) -> tensor<1x4x4x32xf32>
  %5 = cann.FusedConv2D %4, %wp, %bp {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "none"} : (tensor<1x4x4x32xf32>, tensor<1x1x32x16xf32>, tensor<16xf32>) -> tensor<1x4x4x16xf32>
  func.return %5 : tensor<1x4x4x16xf32>
}
