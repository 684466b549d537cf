// ConvPointwiseConvFusionPass (compiler/transforms/fusion/rules/00_conv.rules): a linear conv read
// only by a 1x1 stride-1 unpadded conv is one conv, filter W1 . W2 and bias b1 . W2 + b2, when that
// does no more multiply-adds than the two convs did.
// RUN: cann-opt --fuse='auto=false' %s | filecheck %s

// conv 1x1 (2 -> 2) + BiasAdd, then 1x1 (2 -> 1) + Add: W = [[1, 2], [3, 4]] . [[1], [10]] =
// [[21], [43]], b = [1, 2] . [[1], [10]] + 0.5 = 21.5; the second conv's geometry is the first's.
// CHECK-LABEL: func.func @linear_then_pointwise
// CHECK-DAG:     %[[W:.*]] = cann.Const dense<{{\[\[\[\[}}2.100000e+01], [4.300000e+01]]]]> : tensor<1x1x2x1xf32>
// CHECK-DAG:     %[[B:.*]] = cann.Const dense<2.150000e+01> : tensor<1xf32>
// CHECK:         %[[Y:.*]] = cann.FusedConv2D %x, %[[W]], %[[B]] {strides = array<i64: 1, 2, 2, 1>, pads = array<i64: 0, 0, 0, 0>, {{.*}}activation = "Sigmoid"}
// CHECK-NEXT:    func.return %[[Y]]
func.func @linear_then_pointwise(%x: tensor<1x4x4x2xf32>) -> tensor<1x2x2x1xf32> {
  %w1 = cann.Const dense<[[[[1.0, 2.0], [3.0, 4.0]]]]> : tensor<1x1x2x2xf32>
  %b1 = cann.Const dense<[1.0, 2.0]> : tensor<2xf32>
  %w2 = cann.Const dense<[[[[1.0], [10.0]]]]> : tensor<1x1x2x1xf32>
  %b2 = cann.Const dense<0.5> : tensor<1x1x1x1xf32>
  %0 = cann.Conv2D %x, %w1 {strides = array<i64: 1, 2, 2, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x4x4x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x2x2x2xf32>
  %1 = cann.BiasAdd %0, %b1 {data_format = "NHWC"} : (tensor<1x2x2x2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %2 = cann.Conv2D %1, %w2 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x2x2x2xf32>, tensor<1x1x2x1xf32>) -> tensor<1x2x2x1xf32>
  %3 = cann.Add %2, %b2 : (tensor<1x2x2x1xf32>, tensor<1x1x1x1xf32>) -> tensor<1x2x2x1xf32>
  %4 = cann.Sigmoid %3 : (tensor<1x2x2x1xf32>) -> tensor<1x2x2x1xf32>
  func.return %4 : tensor<1x2x2x1xf32>
}

// A ReLU between the convs: nothing folds.
// CHECK-LABEL: func.func @relu_between
// CHECK:         cann.FusedConv2D %x, %{{.*}} {{.*}}activation = "Relu"
// CHECK-NEXT:    cann.Conv2D
func.func @relu_between(%x: tensor<1x4x4x2xf32>) -> tensor<1x4x4x1xf32> {
  %w1 = cann.Const dense<[[[[1.0, 2.0], [3.0, 4.0]]]]> : tensor<1x1x2x2xf32>
  %w2 = cann.Const dense<[[[[1.0], [10.0]]]]> : tensor<1x1x2x1xf32>
  %0 = cann.Conv2D %x, %w1 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x4x4x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x4x4x2xf32>
  %1 = cann.Relu %0 : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  %2 = cann.Conv2D %1, %w2 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x4x4x2xf32>, tensor<1x1x2x1xf32>) -> tensor<1x4x4x1xf32>
  func.return %2 : tensor<1x4x4x1xf32>
}

// A 1x1 conv that widens 1 -> 8 channels after a 3x3 conv: the folded 3x3 conv would do
// 9*1*8 = 72 multiply-adds per pixel against 9*1*1 + 1*8 = 17: both convs stay.
// CHECK-LABEL: func.func @widening_pointwise
// CHECK:         cann.Conv2D %x
// CHECK-NEXT:    cann.Conv2D
func.func @widening_pointwise(%x: tensor<1x4x4x1xf32>) -> tensor<1x4x4x8xf32> {
  %w1 = cann.Const dense<1.0> : tensor<3x3x1x1xf32>
  %w2 = cann.Const dense<2.0> : tensor<1x1x1x8xf32>
  %0 = cann.Conv2D %x, %w1 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x4x4x1xf32>
  %1 = cann.Conv2D %0, %w2 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x4x4x1xf32>, tensor<1x1x1x8xf32>) -> tensor<1x4x4x8xf32>
  func.return %1 : tensor<1x4x4x8xf32>
}
