// RUN: not cann-opt --split-input-file %s 2>&1 | filecheck %s

// CHECK: library_invalid.mlir:[[# @LINE + 2]]:3: error: cann.MatMulV2: contraction sizes differ: x1 gives 3, x2 gives 4
func.func @f(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> tensor<2x5xf32> {
  %0 = cann.MatMulV2 %a, %b {transpose_x1 = false, transpose_x2 = false} : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  func.return %0 : tensor<2x5xf32>
}
// -----
// CHECK: library_invalid.mlir:[[# @LINE + 2]]:3: error: cann.Add: shapes 2x3, 4 do not broadcast
func.func @f(%a: tensor<2x3xf32>, %b: tensor<4xf32>) -> tensor<2x3xf32> {
  %0 = cann.Add %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}
// -----
// CHECK: library_invalid.mlir:[[# @LINE + 2]]:3: error: cann.TransposeD: perm [0, 0] is not a permutation of rank 2
func.func @f(%a: tensor<2x3xf32>) -> tensor<2x2xf32> {
  %0 = cann.TransposeD %a {perm = array<i64: 0, 0>} : (tensor<2x3xf32>) -> tensor<2x2xf32>
  func.return %0 : tensor<2x2xf32>
}
// -----
// CHECK: library_invalid.mlir:[[# @LINE + 2]]:3: error: cann.Reshape: cannot reshape 2x3 (6 elements) to 4x2
func.func @f(%a: tensor<2x3xf32>) -> tensor<4x2xf32> {
  %0 = cann.Reshape %a {shape = array<i64: 4, 2>} : (tensor<2x3xf32>) -> tensor<4x2xf32>
  func.return %0 : tensor<4x2xf32>
}
// -----
// CHECK: library_invalid.mlir:[[# @LINE + 2]]:3: error: cann.ReduceMeanD: result shape must be 2, got 3
func.func @f(%a: tensor<2x3xf32>) -> tensor<3xf32> {
  %0 = cann.ReduceMeanD %a {axes = array<i64: 1>, keep_dims = false} : (tensor<2x3xf32>) -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}
// -----
// CHECK: library_invalid.mlir:[[# @LINE + 2]]:3: error: cann.MaxPool: window 5 is larger than the input (4)
func.func @f(%a: tensor<1x4x4x2xf32>) -> tensor<1x1x1x2xf32> {
  %0 = cann.MaxPool %a {ksize = array<i64: 1, 5, 5, 1>, strides = array<i64: 1, 1, 1, 1>, padding = "VALID", data_format = "NHWC"} : (tensor<1x4x4x2xf32>) -> tensor<1x1x1x2xf32>
  func.return %0 : tensor<1x1x1x2xf32>
}
// -----
// CHECK: library_invalid.mlir:[[# @LINE + 2]]:3: error: cann.DepthwiseConv2D: y must have 6 channels (Cin x multiplier), got 3
func.func @f(%x: tensor<1x4x4x3xf32>, %w: tensor<3x3x3x2xf32>) -> tensor<1x4x4x3xf32> {
  %0 = cann.DepthwiseConv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, data_format = "NHWC"} : (tensor<1x4x4x3xf32>, tensor<3x3x3x2xf32>) -> tensor<1x4x4x3xf32>
  func.return %0 : tensor<1x4x4x3xf32>
}
// -----
// CHECK: library_invalid.mlir:[[# @LINE + 2]]:3: error: cann.Cast: dst_type f16 differs from the result's element type f32
func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = cann.Cast %a {dst_type = f16} : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
