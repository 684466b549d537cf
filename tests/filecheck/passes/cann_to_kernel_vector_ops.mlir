// RUN: cann-opt --assign-layouts --cann-to-kernel %s | filecheck %s
// RUN: cann-opt --assign-layouts --cann-to-kernel %s | cann-opt --print-op-generic | cann-opt | filecheck %s

// Cast: each operand loaded in its own element type, converted in UB, stored flat.
// CHECK-LABEL: func.func @cast
// CHECK: kernel.vec_kernel {{.*}}kind = "Elementwise"
// CHECK: kernel.load {{.*}}view = "flat"{{.*}} -> memref<{{[0-9]+}}xf32, #kernel.space<UB>>
// CHECK-NEXT: kernel.vec {{.*}}fn = "Cast"{{.*}} -> memref<{{[0-9]+}}xf16, #kernel.space<UB>>
// CHECK-NEXT: kernel.store {{.*}}view = "flat"
func.func @cast(%x: tensor<3x70xf32>) -> tensor<3x70xf16> {
  %y = cann.Cast %x {dst_type = f16} : (tensor<3x70xf32>) -> tensor<3x70xf16>
  func.return %y : tensor<3x70xf16>
}

// SelectV2: the i1 condition is a byte mask tile; operands broadcast flat (row-major).
// CHECK-LABEL: func.func @select
// CHECK: kernel.load {{.*}}view = "flat"{{.*}} -> memref<{{[0-9]+}}xi1, #kernel.space<UB>>
// CHECK: kernel.vec {{.*}}fn = "SelectV2"
func.func @select(%c: tensor<70xi1>, %a: tensor<3x70xf32>, %b: tensor<3x70xf32>) -> tensor<3x70xf32> {
  %y = cann.SelectV2 %c, %a, %b : (tensor<70xi1>, tensor<3x70xf32>, tensor<3x70xf32>) -> tensor<3x70xf32>
  func.return %y : tensor<3x70xf32>
}

// FusedKernel: the body's ops run as kernel.vec on each UB tile, inputs loaded when first used
// (a broadcast [40] row flat against the row-major result), a scalar constant duplicated.
// CHECK-LABEL: func.func @fused
// CHECK: kernel.vec_kernel {{.*}}kind = "Elementwise"
// CHECK: %[[A:.*]] = kernel.load {{.*}}view = "flat", params = {shape = array<i64: 4, 40>}
// CHECK-NEXT: %[[B:.*]] = kernel.load {{.*}}view = "flat", params = {shape = array<i64: 4, 40>}} : memref<40xf32
// CHECK-NEXT: %[[S:.*]] = kernel.vec %[[A]], %[[B]] {fn = "Add", attrs = {}}
// CHECK-NEXT: %[[C:.*]] = kernel.vec {fn = "Duplicate", attrs = {value = 2.000000e+00 : f32}}
// CHECK-NEXT: %[[M:.*]] = kernel.vec %[[S]], %[[C]] {fn = "Mul", attrs = {}}
// CHECK-NEXT: %[[R:.*]] = kernel.vec %[[M]] {fn = "Relu", attrs = {}}
// CHECK-NEXT: kernel.store %[[R]]
func.func @fused(%a: tensor<4x40xf32>, %b: tensor<40xf32>) -> tensor<4x40xf32> {
  %y = cann.FusedKernel %a, %b : (tensor<4x40xf32>, tensor<40xf32>) -> tensor<4x40xf32> {
  ^bb0(%x: tensor<4x40xf32>, %z: tensor<40xf32>):
    %s = cann.Add %x, %z : (tensor<4x40xf32>, tensor<40xf32>) -> tensor<4x40xf32>
    %c = cann.Const dense<2.0> : tensor<f32>
    %m = cann.Mul %s, %c : (tensor<4x40xf32>, tensor<f32>) -> tensor<4x40xf32>
    %r = cann.Relu %m : (tensor<4x40xf32>) -> tensor<4x40xf32>
    cann.Yield %r : tensor<4x40xf32>
  }
  func.return %y : tensor<4x40xf32>
}

// BNInfer runs on NC1HWC0 (assign-layouts: per channel, any format): the four parameters
// loaded per lane (C1*C0 channels), then
// (x - mean) * rsqrt(var + eps) * scale + offset in UB.
// CHECK-LABEL: func.func @bn
// CHECK: kernel.vec_kernel {{.*}}kind = "Elementwise"
// CHECK: kernel.load {{.*}}view = "flat"
// CHECK-COUNT-4: kernel.load {{.*}}view = "channel_flat", params = {shape = array<i64: 1, 2, 4, 4, 16>, layout = 1 : i64}
// CHECK: kernel.vec {{.*}}fn = "Sub"
// CHECK-NEXT: kernel.vec {{.*}}fn = "Adds", attrs = {value = 1.000000e-03 : f32}
// CHECK-NEXT: kernel.vec {{.*}}fn = "Rsqrt"
// CHECK-NEXT: kernel.vec {{.*}}fn = "Mul"
// CHECK-NEXT: kernel.vec {{.*}}fn = "Mul"
// CHECK-NEXT: kernel.vec {{.*}}fn = "Add"
// CHECK-NEXT: kernel.store {{.*}}view = "flat"
func.func @bn(%x: tensor<1x4x4x3xf32>) -> tensor<1x4x4x20xf32> {
  %w = cann.Const dense<0.5> : tensor<1x1x3x20xf32>
  %c = cann.Conv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x4x4x3xf32>, tensor<1x1x3x20xf32>) -> tensor<1x4x4x20xf32>
  %p = cann.Const dense<0.75> : tensor<20xf32>
  %y = cann.BNInfer %c, %p, %p, %p, %p {epsilon = 1.0e-03 : f32, data_format = "NHWC"} : (tensor<1x4x4x20xf32>, tensor<20xf32>, tensor<20xf32>, tensor<20xf32>, tensor<20xf32>) -> tensor<1x4x4x20xf32>
  func.return %y : tensor<1x4x4x20xf32>
}
