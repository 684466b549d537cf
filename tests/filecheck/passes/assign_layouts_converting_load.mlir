// RUN: cann-opt --assign-layouts %s | filecheck %s
// RUN: cann-opt --assign-layouts --cann-to-kernel %s | filecheck %s --check-prefix=KERNEL

// A conversion ND -> NC1HWC0 read by a conv's x costs the layout assignment nothing
// (converts_on_load: the cube kernel's GM -> L1 loads convert on the way, FoldInputTransData),
// so an input normalisation (a per-channel Mul) stays on the 3-channel NHWC input instead of
// converting the input to 16-lane NC1HWC0 first; the TransData sits before the conv and
// cann-to-kernel folds it into the conv's loads of the Mul's NHWC result.
// CHECK-LABEL: func.func @norm_conv
// CHECK:         %[[M:.*]] = cann.Mul %x, %{{.*}} : (tensor<1x8x8x3xf32>, tensor<3xf32>) -> tensor<1x8x8x3xf32>
// CHECK-NEXT:    %[[T:.*]] = cann.TransData %[[M]] {src_format = "NHWC", dst_format = "NC1HWC0"
// CHECK:         cann.Conv2D %[[T]]

// KERNEL-LABEL: func.func @norm_conv
// KERNEL-NOT:     kernel.transdata
// KERNEL:         %[[M:.*]] = kernel.vec_kernel %x
// KERNEL-NOT:     kernel.transdata
// KERNEL:         kernel.cube %[[M]], {{.*}}kind = "Conv2D"
// KERNEL:         kernel.load {{.*}}view = "from_origin"{{.*}}dst_view = "fmap", src_format = "NHWC", dst_format = "NC1HWC0"
func.func @norm_conv(%x: tensor<1x8x8x3xf32>) -> tensor<1x8x8x4xf32> {
  %s = cann.Const dense<[0.5, 0.25, 2.0]> : tensor<3xf32>
  %w = cann.Const dense<0.125> : tensor<3x3x3x4xf32>
  %m = cann.Mul %x, %s : (tensor<1x8x8x3xf32>, tensor<3xf32>) -> tensor<1x8x8x3xf32>
  %y = cann.Conv2D %m, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32>
  func.return %y : tensor<1x8x8x4xf32>
}
