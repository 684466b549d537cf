// A Mul by a scalar constant read only by convs folds into their filters (compiler/transforms/
// fusion/scalar_scale.py): conv(x * k, w) = conv(x, w * k); also into a scaled conv's scale
// (MobileNetV3's hard-sigmoid 1/6 behind the squeeze-excite kernel).  A Mul read elsewhere too
// stays.
// RUN: cann-opt --fuse %s | filecheck %s
// RUN: cann-opt --fuse=disable=AutomaticUBFusion %s | filecheck %s --check-prefix=OFF

// CHECK-LABEL: func.func @folded
// CHECK-NOT:     cann.Mul
// CHECK:         %[[W:.*]] = cann.Const dense<1.000000e+00> : tensor<1x1x16x8xf32>
// CHECK:         cann.Conv2D %x, %[[W]]
// CHECK-LABEL: func.func @kept
// CHECK:         cann.Mul
// OFF-LABEL: func.func @folded
// OFF:           cann.Mul
builtin.module {
  func.func @folded(%x: tensor<1x4x4x16xf32>) -> tensor<1x4x4x8xf32> {
    %k = cann.Const dense<0.5> : tensor<f32>
    %w = cann.Const dense<2.0> : tensor<1x1x16x8xf32>
    %m = cann.Mul %x, %k : (tensor<1x4x4x16xf32>, tensor<f32>) -> tensor<1x4x4x16xf32> loc("scale")
    %y = cann.Conv2D %m, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x4x4x16xf32>, tensor<1x1x16x8xf32>) -> tensor<1x4x4x8xf32> loc("conv")
    func.return %y : tensor<1x4x4x8xf32>
  }
  func.func @kept(%x: tensor<1x4x4x16xf32>) -> (tensor<1x4x4x8xf32>, tensor<1x4x4x16xf32>) {
    %k = cann.Const dense<0.5> : tensor<f32>
    %w = cann.Const dense<2.0> : tensor<1x1x16x8xf32>
    %m = cann.Mul %x, %k : (tensor<1x4x4x16xf32>, tensor<f32>) -> tensor<1x4x4x16xf32> loc("scale2")
    %y = cann.Conv2D %m, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x4x4x16xf32>, tensor<1x1x16x8xf32>) -> tensor<1x4x4x8xf32> loc("conv2")
    func.return %y, %m : tensor<1x4x4x8xf32>, tensor<1x4x4x16xf32>
  }
}
