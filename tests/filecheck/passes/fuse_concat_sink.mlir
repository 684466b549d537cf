// A pointwise op of a concat's result moves into the concat's inputs where each input's producer
// takes it (compiler/transforms/fusion/concat_sink.py): NASNet's adjust block, a BatchNorm
// (Mul, Add by channel vectors) of the concat of two 1x1 convs, read by a pool and a ReLU that no
// neighbour could take it from.  Each conv gets its part of the vectors and the rules fold it
// into its filter and bias: the BatchNorm is no kernel.
// RUN: cann-opt --fuse %s | filecheck %s
// RUN: cann-opt --fuse='disable=ConcatPointwiseSinkFusion' %s | filecheck %s --check-prefix=OFF

// CHECK-LABEL: func.func @bn_of_concat
// CHECK:         %[[B0:.*]] = cann.Const dense<[5.000000e-01, -5.000000e-01, 1.500000e+00, -1.500000e+00]> : tensor<4xf32>
// CHECK:         %[[A:.*]] = cann.FusedConv2D %x, %{{.*}}, %[[B0]]
// CHECK:         %[[B1:.*]] = cann.Const dense<[2.500000e+00, -2.500000e+00, 3.500000e+00, -3.500000e+00]> : tensor<4xf32>
// CHECK:         %[[B:.*]] = cann.FusedConv2D %x, %{{.*}}, %[[B1]]
// CHECK:         %[[C:.*]] = cann.ConcatV2D %[[A]], %[[B]] {concat_dim = 3 : i64, N = 2 : i64}
// CHECK-NEXT:    cann.AvgPool %[[C]]
// CHECK-NOT:     cann.FusedKernel %[[C]], 
// CHECK:         cann.FusedKernel %[[C]] {prologue}
// CHECK-NEXT:    ^{{.*}}
// CHECK-NEXT:      cann.Relu
// OFF-LABEL: func.func @bn_of_concat
// OFF:         %[[C:.*]] = cann.ConcatV2D
// OFF:         cann.FusedKernel %[[C]], %s, %o
// OFF:           cann.Mul
// OFF-NEXT:      cann.Add
func.func @bn_of_concat(%x: tensor<1x8x8x8xf32>) -> (tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>) {
  %w0 = cann.Const dense<0.25> : tensor<1x1x8x4xf32>
  %w1 = cann.Const dense<-0.125> : tensor<1x1x8x4xf32>
  %a = cann.Conv2D %x, %w0 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x8x8x8xf32>, tensor<1x1x8x4xf32>) -> tensor<1x8x8x4xf32>
  %b = cann.Conv2D %x, %w1 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x8x8x8xf32>, tensor<1x1x8x4xf32>) -> tensor<1x8x8x4xf32>
  %c = cann.ConcatV2D %a, %b {concat_dim = 3 : i64, N = 2 : i64} : (tensor<1x8x8x4xf32>, tensor<1x8x8x4xf32>) -> tensor<1x8x8x8xf32>
  %s = cann.Const dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>
  %o = cann.Const dense<[0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 3.5, -3.5]> : tensor<8xf32>
  %m = cann.Mul %c, %s : (tensor<1x8x8x8xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
  %bn = cann.Add %m, %o : (tensor<1x8x8x8xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
  %p = cann.AvgPool %bn {ksize = array<i64: 1, 3, 3, 1>, strides = array<i64: 1, 1, 1, 1>, padding = "SAME", data_format = "NHWC"} : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %r = cann.Relu %bn : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %w = cann.Const dense<0.5> : tensor<1x1x8x8xf32>
  %y = cann.Conv2D %r, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x8x8x8xf32>, tensor<1x1x8x8xf32>) -> tensor<1x8x8x8xf32>
  func.return %p, %y : tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>
}

// A piece no op computes (a function argument): nothing would take the op, which stays after
// the concat (one kernel, not one per piece).
// CHECK-LABEL: func.func @piece_is_an_argument
// CHECK:         %[[C:.*]] = cann.ConcatV2D %{{.*}}, %b
// CHECK:         cann.FusedKernel %[[C]], %s, %o
func.func @piece_is_an_argument(%x: tensor<1x8x8x8xf32>, %b: tensor<1x8x8x4xf32>) -> tensor<1x8x8x8xf32> {
  %w0 = cann.Const dense<0.25> : tensor<1x1x8x4xf32>
  %a = cann.Conv2D %x, %w0 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x8x8x8xf32>, tensor<1x1x8x4xf32>) -> tensor<1x8x8x4xf32>
  %c = cann.ConcatV2D %a, %b {concat_dim = 3 : i64, N = 2 : i64} : (tensor<1x8x8x4xf32>, tensor<1x8x8x4xf32>) -> tensor<1x8x8x8xf32>
  %s = cann.Const dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>
  %o = cann.Const dense<[0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 3.5, -3.5]> : tensor<8xf32>
  %m = cann.Mul %c, %s : (tensor<1x8x8x8xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
  %bn = cann.Add %m, %o : (tensor<1x8x8x8xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
  %p = cann.AvgPool %bn {ksize = array<i64: 1, 3, 3, 1>, strides = array<i64: 1, 1, 1, 1>, padding = "SAME", data_format = "NHWC"} : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  func.return %p : tensor<1x8x8x8xf32>
}

// Pieces from pools: a scalar Add moves into each (the pools' epilogues); a Mul by a channel
// vector stays after the concat (a pool's epilogue loads only tensors of its shape).
// CHECK-LABEL: func.func @pools
// CHECK:         %[[P:.*]] = cann.FusedKernel %{{.*}} : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
// CHECK:           cann.Add
// CHECK:         %[[Q:.*]] = cann.FusedKernel %{{.*}} : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
// CHECK:           cann.Add
// CHECK:         %[[C:.*]] = cann.ConcatV2D %[[P]], %[[Q]]
// CHECK:         %[[D:.*]] = cann.ConcatV2D %a2, %b2
// CHECK:         cann.FusedKernel %[[D]], %s, %[[C]]
// CHECK-NEXT:    ^{{.*}}
// CHECK-NEXT:      cann.Mul
func.func @pools(%x: tensor<1x8x8x4xf32>, %z: tensor<1x8x8x4xf32>) -> tensor<1x4x4x8xf32> {
  %a = cann.AvgPool %x {ksize = array<i64: 1, 2, 2, 1>, strides = array<i64: 1, 2, 2, 1>, padding = "VALID", data_format = "NHWC"} : (tensor<1x8x8x4xf32>) -> tensor<1x4x4x4xf32>
  %b = cann.MaxPool %z {ksize = array<i64: 1, 2, 2, 1>, strides = array<i64: 1, 2, 2, 1>, padding = "VALID", data_format = "NHWC"} : (tensor<1x8x8x4xf32>) -> tensor<1x4x4x4xf32>
  %c = cann.ConcatV2D %a, %b {concat_dim = 3 : i64, N = 2 : i64} : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x8xf32>
  %k = cann.Const dense<0.5> : tensor<f32>
  %p = cann.Add %c, %k : (tensor<1x4x4x8xf32>, tensor<f32>) -> tensor<1x4x4x8xf32>
  %a2 = cann.AvgPool %x {ksize = array<i64: 1, 2, 2, 1>, strides = array<i64: 1, 2, 2, 1>, padding = "VALID", data_format = "NHWC"} : (tensor<1x8x8x4xf32>) -> tensor<1x4x4x4xf32>
  %b2 = cann.MaxPool %z {ksize = array<i64: 1, 2, 2, 1>, strides = array<i64: 1, 2, 2, 1>, padding = "VALID", data_format = "NHWC"} : (tensor<1x8x8x4xf32>) -> tensor<1x4x4x4xf32>
  %d = cann.ConcatV2D %a2, %b2 {concat_dim = 3 : i64, N = 2 : i64} : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x8xf32>
  %s = cann.Const dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>
  %m = cann.Mul %d, %s : (tensor<1x4x4x8xf32>, tensor<8xf32>) -> tensor<1x4x4x8xf32>
  %r = cann.Add %p, %m : (tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  func.return %r : tensor<1x4x4x8xf32>
}
