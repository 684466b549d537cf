// RUN: cann-opt --cann-to-kernel %s | filecheck %s
// RUN: cann-opt --cann-to-kernel %s | cann-opt | filecheck %s
// RUN: cann-opt --cann-to-kernel %s | cann-opt --print-op-generic | cann-opt | filecheck %s

// A TransData to the row-major origin whose source is the single-use result of a vector kernel
// is no kernel of its own: the kernel stores its tiles through the `to_origin` view (its own
// view kept as `src_view`, the TransData's formats as its src_format / dst_format) straight
// into the ND / NHWC result; padding is not stored.

// A softmax on FRACTAL_NZ (rows and columns off the 16 grid): its nz_origin_rows store
// becomes a to_origin store into the [20, 35] result.
// CHECK-LABEL: func.func @softmax_nz
// CHECK-NEXT: %t = kernel.vec_kernel %x {kind = "SoftmaxV2"{{.*}} -> tensor<20x35xf32> {
// CHECK: ^{{.*}}(%{{.*}}: memref<3x2x16x16xf32, #kernel.space<GM>>, %{{.*}}: memref<20x35xf32, #kernel.space<GM>>):
// CHECK: kernel.store {{.*}}view = "to_origin", params = {rows = 20 : i64, cols = 35 : i64, src_shape = array<i64: 3, 2, 16, 16>}, src_view = "nz_origin_rows", src_format = "FRACTAL_NZ", dst_format = "ND"}{{.*}}memref<20x35xf32, #kernel.space<GM>>
// CHECK-NOT: kernel.transdata
// CHECK: func.return %t : tensor<20x35xf32>
func.func @softmax_nz(%x: tensor<3x2x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [20, 35]>>) -> tensor<20x35xf32> {
  %y = cann.SoftmaxV2 %x {axes = array<i64: -1>} : (tensor<3x2x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [20, 35]>>) -> tensor<3x2x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [20, 35]>>
  %t = cann.TransData %y {src_format = "FRACTAL_NZ", dst_format = "ND", groups = 1 : i64} : (tensor<3x2x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [20, 35]>>) -> tensor<20x35xf32>
  func.return %t : tensor<20x35xf32>
}

// An elementwise kernel on NC1HWC0 (3 channels of 16 lanes): its flat store becomes a
// to_origin store into the NHWC result.
// CHECK-LABEL: func.func @relu_nc1hwc0
// CHECK-NEXT: %t = kernel.vec_kernel %x {kind = "Elementwise"{{.*}} -> tensor<1x4x4x3xf32> {
// CHECK: kernel.store {{.*}}view = "to_origin", params = {src_shape = array<i64: 1, 1, 4, 4, 16>}, src_view = "flat", src_format = "NC1HWC0", dst_format = "NHWC"}{{.*}}memref<1x4x4x3xf32, #kernel.space<GM>>
// CHECK-NOT: kernel.transdata
// CHECK: func.return %t
func.func @relu_nc1hwc0(%x: tensor<1x1x4x4x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 4, 4, 3]>>) -> tensor<1x4x4x3xf32> {
  %y = cann.Relu %x : (tensor<1x1x4x4x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 4, 4, 3]>>) -> tensor<1x1x4x4x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 4, 4, 3]>>
  %t = cann.TransData %y {src_format = "NC1HWC0", dst_format = "NHWC", groups = 1 : i64} : (tensor<1x1x4x4x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 4, 4, 3]>>) -> tensor<1x4x4x3xf32>
  func.return %t : tensor<1x4x4x3xf32>
}

// The kernel's result is also a function result: the TransData stays a kernel.
// CHECK-LABEL: func.func @two_uses
// CHECK: kernel.store {{.*}}view = "flat"
// CHECK: kernel.transdata %y {src_format = "NC1HWC0", dst_format = "NHWC"
func.func @two_uses(%x: tensor<1x1x4x4x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 4, 4, 3]>>) -> (tensor<1x4x4x3xf32>, tensor<1x1x4x4x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 4, 4, 3]>>) {
  %y = cann.Relu %x : (tensor<1x1x4x4x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 4, 4, 3]>>) -> tensor<1x1x4x4x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 4, 4, 3]>>
  %t = cann.TransData %y {src_format = "NC1HWC0", dst_format = "NHWC", groups = 1 : i64} : (tensor<1x1x4x4x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 4, 4, 3]>>) -> tensor<1x4x4x3xf32>
  func.return %t, %y : tensor<1x4x4x3xf32>, tensor<1x1x4x4x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 4, 4, 3]>>
}
