// The built-in fusion rules (compiler/transforms/fusion/rules/*.rules): where each fires, and where a
// violated constraint must keep it from firing.
// The automatic fusion of pointwise ops is off (`auto=false`, fuse_chains.mlir and
// fuse_epilogue.mlir cover it) so the ops the rules leave stay visible.
// RUN: cann-opt --fuse='auto=false' %s | filecheck %s
// RUN: cann-opt --fuse='auto=false' %s | cann-opt --fuse='auto=false' | filecheck %s
// RUN: cann-opt --fuse='report=%t.json auto=false' %s -o /dev/null && filecheck %s --check-prefix=REPORT < %t.json

// Conv + Keras BN (Mul, Add on constants) + residual Add + Relu: the scale folded into the
// filter and the shift into the bias; the residual Add and Relu are left to the automatic
// fusion (fuse_epilogue.mlir).
// CHECK-LABEL: func.func @conv_bn_residual_relu
// CHECK-NEXT:    %[[W:.*]] = cann.Const dense<{{\[\[\[\[}}2.000000e-01, 6.000000e-01, 1.200000e+00], [8.000000e-01, 1.500000e+00, 2.400000e+00]]]]>
// CHECK-NEXT:    %[[B:.*]] = cann.Const dense<[5.000000e-01, -5.000000e-01, 1.000000e+00]>
// CHECK-NEXT:    %[[C:.*]] = cann.FusedConv2D %x, %[[W]], %[[B]] {{{.*}}activation = "none"}
// CHECK-NEXT:    %[[A:.*]] = cann.Add %r, %[[C]]
// CHECK-NEXT:    %[[Y:.*]] = cann.Relu %[[A]]
// CHECK-NEXT:    func.return %[[Y]]
func.func @conv_bn_residual_relu(%x: tensor<1x4x4x2xf32>, %r: tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32> {
  %w = cann.Const dense<[[[[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]]]]> : tensor<1x1x2x3xf32>
  %s = cann.Const dense<[[[[2.0, 3.0, 4.0]]]]> : tensor<1x1x1x3xf32>
  %t = cann.Const dense<[0.5, -0.5, 1.0]> : tensor<3xf32>
  %0 = cann.Conv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x4x4x2xf32>, tensor<1x1x2x3xf32>) -> tensor<1x4x4x3xf32>
  %1 = cann.Mul %0, %s : (tensor<1x4x4x3xf32>, tensor<1x1x1x3xf32>) -> tensor<1x4x4x3xf32>
  %2 = cann.Add %1, %t : (tensor<1x4x4x3xf32>, tensor<3xf32>) -> tensor<1x4x4x3xf32>
  %3 = cann.Add %r, %2 : (tensor<1x4x4x3xf32>, tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  %4 = cann.Relu %3 : (tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  func.return %4 : tensor<1x4x4x3xf32>
}

// The BN output also feeds a second branch: the scale cannot fold (ConvScaleFusionPass
// rejected: no_external_consumer); the conv result is needed as it is.
// CHECK-LABEL: func.func @bn_output_escapes
// CHECK:         cann.Conv2D
// CHECK-NEXT:    cann.Mul
// CHECK:         func.return
// REPORT: "rule": "ConvScaleFusionPass"
// REPORT: "rejected_candidates"
// REPORT: "constraint": "no_external_consumer(c)"
func.func @bn_output_escapes(%x: tensor<1x4x4x2xf32>) -> (tensor<1x4x4x3xf32>, tensor<1x4x4x3xf32>) {
  %w = cann.Const dense<[[[[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]]]]> : tensor<1x1x2x3xf32>
  %s = cann.Const dense<[2.0, 3.0, 4.0]> : tensor<3xf32>
  %0 = cann.Conv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x4x4x2xf32>, tensor<1x1x2x3xf32>) -> tensor<1x4x4x3xf32>
  %1 = cann.Mul %0, %s : (tensor<1x4x4x3xf32>, tensor<3xf32>) -> tensor<1x4x4x3xf32>
  func.return %0, %1 : tensor<1x4x4x3xf32>, tensor<1x4x4x3xf32>
}

// A scale that is not a constant (or not per channel) does not fold.
// CHECK-LABEL: func.func @scale_not_const
// CHECK:         cann.Conv2D
// CHECK-NEXT:    cann.Mul
func.func @scale_not_const(%x: tensor<1x4x4x2xf32>, %s: tensor<3xf32>) -> tensor<1x4x4x3xf32> {
  %w = cann.Const dense<[[[[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]]]]> : tensor<1x1x2x3xf32>
  %0 = cann.Conv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x4x4x2xf32>, tensor<1x1x2x3xf32>) -> tensor<1x4x4x3xf32>
  %1 = cann.Mul %0, %s : (tensor<1x4x4x3xf32>, tensor<3xf32>) -> tensor<1x4x4x3xf32>
  func.return %1 : tensor<1x4x4x3xf32>
}

// BNInfer after a conv folds (FusedBatchNormV3's form).
// CHECK-LABEL: func.func @conv_bninfer
// CHECK:         cann.FusedConv2D %x, %{{.*}}, %{{.*}} {{{.*}}activation = "none"}
// CHECK-NEXT:    func.return
func.func @conv_bninfer(%x: tensor<1x4x4x2xf32>) -> tensor<1x4x4x3xf32> {
  %w = cann.Const dense<[[[[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]]]]> : tensor<1x1x2x3xf32>
  %g = cann.Const dense<[2.0, 3.0, 4.0]> : tensor<3xf32>
  %be = cann.Const dense<[0.5, -0.5, 1.0]> : tensor<3xf32>
  %m = cann.Const dense<[0.1, 0.2, 0.3]> : tensor<3xf32>
  %v = cann.Const dense<[1.0, 2.0, 0.5]> : tensor<3xf32>
  %0 = cann.Conv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x4x4x2xf32>, tensor<1x1x2x3xf32>) -> tensor<1x4x4x3xf32>
  %1 = cann.BNInfer %0, %g, %be, %m, %v {epsilon = 1.0e-3 : f32, data_format = "NHWC"} : (tensor<1x4x4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x4x4x3xf32>
  func.return %1 : tensor<1x4x4x3xf32>
}

// Swish x * sigmoid(x) on a conv: one FusedConv2D(Swish); the conv feeds both, inside the match.
// CHECK-LABEL: func.func @conv_swish
// CHECK-NEXT:    cann.FusedConv2D %x, %w {{{.*}}activation = "Swish"}
// CHECK-NEXT:    func.return
func.func @conv_swish(%x: tensor<1x4x4x2xf32>, %w: tensor<1x1x2x3xf32>) -> tensor<1x4x4x3xf32> {
  %0 = cann.Conv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x4x4x2xf32>, tensor<1x1x2x3xf32>) -> tensor<1x4x4x3xf32>
  %1 = cann.Sigmoid %0 : (tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  %2 = cann.Mul %1, %0 : (tensor<1x4x4x3xf32>, tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  func.return %2 : tensor<1x4x4x3xf32>
}

// Relu6 on a depthwise conv with a BiasAdd.
// CHECK-LABEL: func.func @depthwise_bias_relu6
// CHECK-NEXT:    cann.FusedDepthwiseConv2D %x, %w, %b {{{.*}}activation = "Relu6"}
// CHECK-NEXT:    func.return
func.func @depthwise_bias_relu6(%x: tensor<1x4x4x2xf32>, %w: tensor<3x3x2x1xf32>, %b: tensor<2xf32>) -> tensor<1x4x4x2xf32> {
  %0 = cann.DepthwiseConv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, data_format = "NHWC"} : (tensor<1x4x4x2xf32>, tensor<3x3x2x1xf32>) -> tensor<1x4x4x2xf32>
  %1 = cann.BiasAdd %0, %b {data_format = "NHWC"} : (tensor<1x4x4x2xf32>, tensor<2xf32>) -> tensor<1x4x4x2xf32>
  %2 = cann.Relu6 %1 : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  func.return %2 : tensor<1x4x4x2xf32>
}

// A residual Add whose other operand is a constant is a bias, not a residual; a residual Add
// of a different type does not fuse either.
// CHECK-LABEL: func.func @residual_broadcast
// CHECK:         cann.Conv2D
// CHECK-NEXT:    cann.Add
func.func @residual_broadcast(%x: tensor<1x4x4x2xf32>, %w: tensor<1x1x2x3xf32>, %r: tensor<1x1x1x3xf32>) -> tensor<1x4x4x3xf32> {
  %0 = cann.Conv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x4x4x2xf32>, tensor<1x1x2x3xf32>) -> tensor<1x4x4x3xf32>
  %1 = cann.Add %0, %r : (tensor<1x4x4x3xf32>, tensor<1x1x1x3xf32>) -> tensor<1x4x4x3xf32>
  func.return %1 : tensor<1x4x4x3xf32>
}

// A Conv3D (the (N*D) batch view, DHWCN filter) folds Keras BN's scale into its filter's output
// channels and the shift, then BiasAdd, into its bias (Conv3DScaleFusionPass,
// Conv3DAddConstFusion, Conv3DBiasaddFusion); it stays a Conv3D with its depth geometry.
// CHECK-LABEL: func.func @conv3d_bn_bias
// CHECK-NEXT:    %[[W:.*]] = cann.Const dense<{{\[\[\[\[\[}}2.000000e-01, 6.000000e-01], [8.000000e-01, 1.500000e+00]]]], {{\[\[\[\[}}1.000000e+00, 2.400000e+00], [1.400000e+00, 3.750000e+00]]]]]>
// CHECK-NEXT:    %[[B:.*]] = cann.Const dense<[1.500000e+00, 5.000000e-01]>
// CHECK-NEXT:    %[[C:.*]] = cann.Conv3D %x, %[[W]], %[[B]] {{{.*}}depth = array<i64: 4, 3, 2, 1, 1, 0, 0>} : (tensor<12x4x4x2xf32>, tensor<2x1x1x2x2xf32>, tensor<2xf32>) -> tensor<9x4x4x2xf32>
// CHECK-NEXT:    func.return %[[C]]
func.func @conv3d_bn_bias(%x: tensor<12x4x4x2xf32>) -> tensor<9x4x4x2xf32> {
  %w = cann.Const dense<[[[[[0.1, 0.2], [0.4, 0.5]]]], [[[[0.5, 0.8], [0.7, 1.25]]]]]> : tensor<2x1x1x2x2xf32>
  %s = cann.Const dense<[2.0, 3.0]> : tensor<2xf32>
  %t = cann.Const dense<[0.5, -0.5]> : tensor<2xf32>
  %b = cann.Const dense<[1.0, 1.0]> : tensor<2xf32>
  %0 = cann.Conv3D %x, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", depth = array<i64: 4, 3, 2, 1, 1, 0, 0>} : (tensor<12x4x4x2xf32>, tensor<2x1x1x2x2xf32>) -> tensor<9x4x4x2xf32>
  %1 = cann.Mul %0, %s : (tensor<9x4x4x2xf32>, tensor<2xf32>) -> tensor<9x4x4x2xf32>
  %2 = cann.Add %1, %t : (tensor<9x4x4x2xf32>, tensor<2xf32>) -> tensor<9x4x4x2xf32>
  %3 = cann.BiasAdd %2, %b {data_format = "NHWC"} : (tensor<9x4x4x2xf32>, tensor<2xf32>) -> tensor<9x4x4x2xf32>
  func.return %3 : tensor<9x4x4x2xf32>
}
