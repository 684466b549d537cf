// RUN: cann-opt --cann-to-kernel %s | filecheck %s
// RUN: cann-opt --cann-to-kernel --plan-memory %s | filecheck %s --check-prefix=PLAN

// A TransData between a row-major value and a storage whose bytes are the same
// (cann.stored_as_origin: NC1HWC0 of C == C0 channels, one C1 block and no padding lanes;
// FRACTAL_NZ of [M, K] with K == C0 and M a multiple of 16) is a kernel.view: no launch.
// CHECK-LABEL: func.func @same_bytes
// CHECK-NEXT:    %[[R:.*]] = kernel.view %x : (tensor<1x128x16xf32>) -> tensor<1x1x128x16xf32>
// CHECK-NEXT:    kernel.view %[[R]] : (tensor<1x1x128x16xf32>) -> tensor<1x1x1x128x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 1, 128, 16]>>
// CHECK-NEXT:    kernel.view %m : (tensor<32x16xf32>) -> tensor<1x2x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [32, 16]>>
// CHECK-NOT:     kernel.transdata
// PLAN-LABEL: func.func @same_bytes
// PLAN-NOT:     kernel.transdata
func.func @same_bytes(%x: tensor<1x128x16xf32>, %m: tensor<32x16xf32>) -> (tensor<1x1x1x128x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 1, 128, 16]>>, tensor<1x2x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [32, 16]>>) {
  %r = cann.Reshape %x {shape = array<i64: 1, 1, 128, 16>} : (tensor<1x128x16xf32>) -> tensor<1x1x128x16xf32>
  %t = cann.TransData %r {src_format = "NHWC", dst_format = "NC1HWC0", groups = 1 : i64} : (tensor<1x1x128x16xf32>) -> tensor<1x1x1x128x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 1, 128, 16]>>
  %n = cann.TransData %m {src_format = "ND", dst_format = "FRACTAL_NZ", groups = 1 : i64} : (tensor<32x16xf32>) -> tensor<1x2x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [32, 16]>>
  func.return %t, %n : tensor<1x1x1x128x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 1, 128, 16]>>, tensor<1x2x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [32, 16]>>
}

// Padding lanes (C = 3 < C0) or padding rows (M = 20): the bytes differ, a kernel.transdata.
// PLAN-LABEL: func.func @padded
// CHECK-LABEL: func.func @padded
// CHECK:         kernel.transdata %x
// CHECK:         kernel.transdata %m
func.func @padded(%x: tensor<1x4x4x3xf32>, %m: tensor<20x16xf32>) -> (tensor<1x1x4x4x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 4, 4, 3]>>, tensor<1x2x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [20, 16]>>) {
  %t = cann.TransData %x {src_format = "NHWC", dst_format = "NC1HWC0", groups = 1 : i64} : (tensor<1x4x4x3xf32>) -> tensor<1x1x4x4x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 4, 4, 3]>>
  %n = cann.TransData %m {src_format = "ND", dst_format = "FRACTAL_NZ", groups = 1 : i64} : (tensor<20x16xf32>) -> tensor<1x2x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [20, 16]>>
  func.return %t, %n : tensor<1x1x4x4x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 4, 4, 3]>>, tensor<1x2x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [20, 16]>>
}
