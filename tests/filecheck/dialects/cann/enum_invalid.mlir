// RUN: not cann-opt --split-input-file %s 2>&1 | filecheck %s

// Closed sets (dialects/common.py): a string naming no member of the property's enum is one
// verifier line listing the members.

// CHECK: enum_invalid.mlir:[[# @LINE + 2]]:3: error: cann.MaxPool: 'padding' must be one of SAME, VALID; got 'FULL'
func.func @pool_padding(%a: tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> {
  %0 = cann.MaxPool %a {ksize = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1, 1, 1>, padding = "FULL", data_format = "NHWC"} : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  func.return %0 : tensor<1x4x4x2xf32>
}

// -----

// CHECK: enum_invalid.mlir:[[# @LINE + 2]]:3: error: cann.MirrorPad: 'mode' must be one of REFLECT, SYMMETRIC; got 'EDGE'
func.func @mirror_pad_mode(%x: tensor<3x37xf32>) -> tensor<6x38xf32> {
  %b = cann.MirrorPad %x {paddings = array<i64: 1, 2, 0, 1>, mode = "EDGE"} : (tensor<3x37xf32>) -> tensor<6x38xf32>
  func.return %b : tensor<6x38xf32>
}

// -----

// CHECK: enum_invalid.mlir:[[# @LINE + 2]]:3: error: cann.FusedAttention: 'layout' must be one of BNSD, BSND; got 'SBH'
func.func @attention_layout(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %y = cann.FusedAttention %q, %k, %v {scale = 1.0 : f32, adj_k = 0 : i64, layout = "SBH"} : (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  func.return %y : tensor<2x4x8xf32>
}

// -----

// CHECK: enum_invalid.mlir:[[# @LINE + 2]]:3: error: cann.FusedAttention: 'mask_kind' must be one of add, select, greater; got 'mul'
func.func @attention_mask_kind(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>, %m: tensor<2x4x4xf32>) -> tensor<2x4x8xf32> {
  %y = cann.FusedAttention %q, %k, %v, %m {scale = 1.0 : f32, adj_k = 0 : i64, mask_kind = "mul"} : (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x4xf32>) -> tensor<2x4x8xf32>
  func.return %y : tensor<2x4x8xf32>
}

// -----

// CHECK: enum_invalid.mlir:[[# @LINE + 2]]:3: error: cann.TanhRNN: 'direction' must be one of UNIDIRECTIONAL, REDIRECTIONAL; got 'BIDIRECTIONAL'
func.func @rnn_direction(%x: tensor<4x2x3xf32>, %wx: tensor<3x5xf32>, %wh: tensor<5x5xf32>, %b: tensor<5xf32>, %h: tensor<2x5xf32>) -> tensor<4x2x5xf32> {
  %y = cann.TanhRNN %x, %wx, %wh, %b, %h {direction = "BIDIRECTIONAL", time_major = 1 : i64, activation = "tanh"} : (tensor<4x2x3xf32>, tensor<3x5xf32>, tensor<5x5xf32>, tensor<5xf32>, tensor<2x5xf32>) -> tensor<4x2x5xf32>
  func.return %y : tensor<4x2x5xf32>
}

// -----

// CHECK: enum_invalid.mlir:[[# @LINE + 2]]:3: error: cann.TanhRNN: 'activation' must be one of tanh, relu; got 'sigmoid'
func.func @rnn_activation(%x: tensor<4x2x3xf32>, %wx: tensor<3x5xf32>, %wh: tensor<5x5xf32>, %b: tensor<5xf32>, %h: tensor<2x5xf32>) -> tensor<4x2x5xf32> {
  %y = cann.TanhRNN %x, %wx, %wh, %b, %h {direction = "UNIDIRECTIONAL", time_major = 1 : i64, activation = "sigmoid"} : (tensor<4x2x3xf32>, tensor<3x5xf32>, tensor<5x5xf32>, tensor<5xf32>, tensor<2x5xf32>) -> tensor<4x2x5xf32>
  func.return %y : tensor<4x2x5xf32>
}

// -----

// CHECK: enum_invalid.mlir:[[# @LINE + 2]]:3: error: cann.Aipp: 'input_format' must be one of YUV420SP_U8, RGB888_U8, YUV400_U8; got 'RGB16'
func.func @aipp_format(%img: tensor<2x10x12x3xui8>) -> tensor<2x8x8x3xf16> {
  %y = cann.Aipp %img {input_format = "RGB16", src_hw = array<i64: 10, 12>, crop = array<i64: 1, 3, 8, 8>, pads = array<i64: 0, 0, 0, 0>, rbuv_swap = 1 : i64, csc = 0 : i64, matrix = array<i64: 298, 516, 0, 298, -100, -208, 298, 0, 409>, input_bias = array<i64: 16, 128, 128>, output_bias = array<i64: 16, 128, 128>, mean = array<i64: 120, 110, 100>, min_chn = array<f64: 0.0, 0.0, 0.0>, var_reci = array<f64: 1.0, 1.0, 1.0>, padding_value = 0.0 : f64} : (tensor<2x10x12x3xui8>) -> tensor<2x8x8x3xf16>
  func.return %y : tensor<2x8x8x3xf16>
}

