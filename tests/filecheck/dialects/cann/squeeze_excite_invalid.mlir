// RUN: not cann-opt --split-input-file %s 2>&1 | filecheck %s
// RUN: not cann-opt --cann-to-kernel %S/../../passes/cann_to_kernel_squeeze_excite.mlir 2>&1 | filecheck %s --check-prefix=LOWER

// The squeeze-excite ops' verifiers (dialects/cann/), one invalid op per chunk.
// LOWER: error: cann.FusedSqueezeExcite: x and the gate must be NC1HWC0 and the weights ND, got x ND and gate ND; run assign-layouts first [node 'se/gate']
// LOWER: error: cann.FusedConv2DScaled: x must be NC1HWC0 and the filter FRACTAL_Z; run assign-layouts before cann-to-kernel [node 'se/project']

func.func @se_w2_shape(%x: tensor<1x4x4x32xf32>, %w1: tensor<1x1x32x8xf32>, %b1: tensor<8xf32>, %w2: tensor<1x1x8x16xf32>, %b2: tensor<32xf32>) -> tensor<1x1x1x32xf32> {
  // CHECK: {{.*}}squeeze_excite_invalid.mlir:10:3: error: cann.FusedSqueezeExcite: w1 must be [1, 1, 32, Cr] and w2 [1, 1, Cr, 32], got [1, 1, 32, 8] and [1, 1, 8, 16] [node 'se']
  %g = cann.FusedSqueezeExcite %x, %w1, %b1, %w2, %b2 {act1 = "Swish", act2 = "Sigmoid"} : (tensor<1x4x4x32xf32>, tensor<1x1x32x8xf32>, tensor<8xf32>, tensor<1x1x8x16xf32>, tensor<32xf32>) -> tensor<1x1x1x32xf32> loc("se")
  func.return %g : tensor<1x1x1x32xf32>
}

// -----

func.func @se_act(%x: tensor<1x4x4x32xf32>, %w1: tensor<1x1x32x8xf32>, %b1: tensor<8xf32>, %w2: tensor<1x1x8x32xf32>, %b2: tensor<32xf32>) -> tensor<1x1x1x32xf32> {
  // CHECK-NEXT: {{.*}}squeeze_excite_invalid.mlir:18:3: error: cann.FusedSqueezeExcite: 'act2'
  %g = cann.FusedSqueezeExcite %x, %w1, %b1, %w2, %b2 {act1 = "Swish", act2 = "Softmax"} : (tensor<1x4x4x32xf32>, tensor<1x1x32x8xf32>, tensor<8xf32>, tensor<1x1x8x32xf32>, tensor<32xf32>) -> tensor<1x1x1x32xf32>
  func.return %g : tensor<1x1x1x32xf32>
}

// -----

func.func @scale_shape(%x: tensor<1x4x4x32xf32>, %w: tensor<1x1x32x16xf32>, %b: tensor<16xf32>, %s: tensor<1x4x1x32xf32>) -> tensor<1x4x4x16xf32> {
  // CHECK-NEXT: {{.*}}squeeze_excite_invalid.mlir:26:3: error: cann.FusedConv2DScaled: scale must be [1, 1, 1, 32] (per batch and input channel), got [1, 4, 1, 32]
  %y = cann.FusedConv2DScaled %x, %w, %b, %s {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "none", post_activation = "none"} : (tensor<1x4x4x32xf32>, tensor<1x1x32x16xf32>, tensor<16xf32>, tensor<1x4x1x32xf32>) -> tensor<1x4x4x16xf32>
  func.return %y : tensor<1x4x4x16xf32>
}

// -----

func.func @post_without_residual(%x: tensor<1x4x4x32xf32>, %w: tensor<1x1x32x16xf32>, %b: tensor<16xf32>, %s: tensor<1x1x1x32xf32>) -> tensor<1x4x4x16xf32> {
  // CHECK-NEXT: {{.*}}squeeze_excite_invalid.mlir:34:3: error: cann.FusedConv2DScaled: post_activation needs a residual
  %y = cann.FusedConv2DScaled %x, %w, %b, %s {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "none", post_activation = "Relu"} : (tensor<1x4x4x32xf32>, tensor<1x1x32x16xf32>, tensor<16xf32>, tensor<1x1x1x32xf32>) -> tensor<1x4x4x16xf32>
  func.return %y : tensor<1x4x4x16xf32>
}
