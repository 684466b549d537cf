// RUN: cann-opt --canonicalize %s | filecheck %s
// RUN: cann-opt --canonicalize %s | cann-opt | filecheck %s

// xDSL's canonicalize runs the cann ops' canonicalization patterns
// (compiler/transforms/canonicalization.py): one function per rewrite.

// CHECK-LABEL: func.func @reshape_same_shape
// CHECK-NEXT: func.return %x
func.func @reshape_same_shape(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %0 = cann.Reshape %x {shape = array<i64: 2, 4>} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  func.return %0 : tensor<2x4xf32>
}

// CHECK-LABEL: func.func @reshape_of_reshape
// CHECK-NEXT: %[[R:.*]] = cann.Reshape %x {shape = array<i64: 4, 2>} : (tensor<2x4xf32>) -> tensor<4x2xf32>
// CHECK-NEXT: func.return %[[R]]
func.func @reshape_of_reshape(%x: tensor<2x4xf32>) -> tensor<4x2xf32> {
  %0 = cann.Reshape %x {shape = array<i64: 8>} : (tensor<2x4xf32>) -> tensor<8xf32>
  %1 = cann.Reshape %0 {shape = array<i64: 4, 2>} : (tensor<8xf32>) -> tensor<4x2xf32>
  func.return %1 : tensor<4x2xf32>
}

// CHECK-LABEL: func.func @transpose_identity
// CHECK-NEXT: func.return %x
func.func @transpose_identity(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %0 = cann.TransposeD %x {perm = array<i64: 0, 1>} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  func.return %0 : tensor<2x4xf32>
}

// Two transposes that compose to the identity disappear; two that do not are one.
// CHECK-LABEL: func.func @transpose_of_transpose
// CHECK-NEXT: %[[T:.*]] = cann.TransposeD %x {perm = array<i64: 1, 2, 0>} : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
// CHECK-NEXT: func.return %x, %[[T]]
func.func @transpose_of_transpose(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<3x4x2xf32>) {
  %0 = cann.TransposeD %x {perm = array<i64: 1, 0, 2>} : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
  %1 = cann.TransposeD %0 {perm = array<i64: 1, 0, 2>} : (tensor<3x2x4xf32>) -> tensor<2x3x4xf32>
  %2 = cann.TransposeD %0 {perm = array<i64: 0, 2, 1>} : (tensor<3x2x4xf32>) -> tensor<3x4x2xf32>
  func.return %1, %2 : tensor<2x3x4xf32>, tensor<3x4x2xf32>
}

// CHECK-LABEL: func.func @cast_same_type
// CHECK-NEXT: func.return %x
func.func @cast_same_type(%x: tensor<4xf16>) -> tensor<4xf16> {
  %0 = cann.Cast %x {dst_type = f16} : (tensor<4xf16>) -> tensor<4xf16>
  func.return %0 : tensor<4xf16>
}

// f16 -> f32 -> f16 gives back x; f32 -> f16 -> f32 rounds, so both casts stay.
// CHECK-LABEL: func.func @cast_of_cast
// CHECK-NEXT: %[[N:.*]] = cann.Cast %y {dst_type = f16}
// CHECK-NEXT: %[[W:.*]] = cann.Cast %[[N]] {dst_type = f32}
// CHECK-NEXT: func.return %x, %[[W]]
func.func @cast_of_cast(%x: tensor<4xf16>, %y: tensor<4xf32>) -> (tensor<4xf16>, tensor<4xf32>) {
  %0 = cann.Cast %x {dst_type = f32} : (tensor<4xf16>) -> tensor<4xf32>
  %1 = cann.Cast %0 {dst_type = f16} : (tensor<4xf32>) -> tensor<4xf16>
  %2 = cann.Cast %y {dst_type = f16} : (tensor<4xf32>) -> tensor<4xf16>
  %3 = cann.Cast %2 {dst_type = f32} : (tensor<4xf16>) -> tensor<4xf32>
  func.return %1, %3 : tensor<4xf16>, tensor<4xf32>
}

// CHECK-LABEL: func.func @transdata_of_inverse
// CHECK-NEXT: func.return %x
func.func @transdata_of_inverse(%x: tensor<1x8x8x3xf32>) -> tensor<1x8x8x3xf32> {
  %0 = cann.TransData %x {src_format = "NHWC", dst_format = "NC1HWC0", groups = 1 : i64} : (tensor<1x8x8x3xf32>) -> tensor<1x1x8x8x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 8, 8, 3]>>
  %1 = cann.TransData %0 {src_format = "NC1HWC0", dst_format = "NHWC", groups = 1 : i64} : (tensor<1x1x8x8x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 8, 8, 3]>>) -> tensor<1x8x8x3xf32>
  func.return %1 : tensor<1x8x8x3xf32>
}
