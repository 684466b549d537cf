// The fusion report's list of pointwise kernels left on their own (compiler/transforms/fusion/
// auto.py): a FusedKernel that is a kernel of its own (BN-ReLU before a softmax: a reduction
// that is not InputFusable takes no prologue) is named with its reasons (a consumer that is a
// view is named with the ops reading through it); a FusedKernel that a conv runs as its
// epilogue is no kernel of its own and is not listed, also when a conv reads its result.
// RUN: cann-opt --fuse --fusion-report=- %s 2>&1 >/dev/null | filecheck %s --check-prefix=REPORT

// REPORT: pointwise ops left as kernels of their own (why no neighbour took them):
// REPORT-NEXT:   FusedKernel 'relu_gap' (fused kernel): consumer SoftmaxV2 'sm' is a reduction op that is not pointwise; producer ConcatV2D 'cat' is a injective op
// REPORT-NEXT:   Cast 'mask' (elementwise): consumer Reshape 'view' is a view op that is not pointwise; it is read through it by SoftmaxV2 'sm2' (reduction); its operands are graph inputs or constants
// REPORT-NOT:    'out'
builtin.module {
  func.func @main(%x: tensor<1x4x4x16xf32>, %r: tensor<1x4x4x16xf32>) -> (tensor<1x4x4x32xf32>, tensor<1x4x4x16xf32>) {
    %w = cann.Const dense<0.5> : tensor<1x1x16x16xf32>
    %s = cann.Const dense<2.0> : tensor<32xf32>
    %c = cann.Conv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x4x4x16xf32>, tensor<1x1x16x16xf32>) -> tensor<1x4x4x16xf32> loc("conv")
    %a = cann.Add %c, %r : (tensor<1x4x4x16xf32>, tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32> loc("add")
    %o = cann.Relu %a : (tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32> loc("out")
    %y = cann.Conv2D %o, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x4x4x16xf32>, tensor<1x1x16x16xf32>) -> tensor<1x4x4x16xf32> loc("next")
    %cat = cann.ConcatV2D %x, %y {concat_dim = 3 : i64, N = 2 : i64} : (tensor<1x4x4x16xf32>, tensor<1x4x4x16xf32>) -> tensor<1x4x4x32xf32> loc("cat")
    %m = cann.Mul %cat, %s : (tensor<1x4x4x32xf32>, tensor<32xf32>) -> tensor<1x4x4x32xf32> loc("bn")
    %g = cann.Relu %m : (tensor<1x4x4x32xf32>) -> tensor<1x4x4x32xf32> loc("relu_gap")
    %p = cann.SoftmaxV2 %g {axes = array<i64: -1>} : (tensor<1x4x4x32xf32>) -> tensor<1x4x4x32xf32> loc("sm")
    func.return %p, %o : tensor<1x4x4x32xf32>, tensor<1x4x4x16xf32>
  }
  func.func @through_view(%ids: tensor<1x16xi32>) -> tensor<1x1x16xf32> {
    %m = cann.Cast %ids {dst_type = f32} : (tensor<1x16xi32>) -> tensor<1x16xf32> loc("mask")
    %r = cann.Reshape %m {shape = array<i64: 1, 1, 16>} : (tensor<1x16xf32>) -> tensor<1x1x16xf32> loc("view")
    %s = cann.SoftmaxV2 %r {axes = array<i64: -1>} : (tensor<1x1x16xf32>) -> tensor<1x1x16xf32> loc("sm2")
    func.return %s : tensor<1x1x16xf32>
  }
}
