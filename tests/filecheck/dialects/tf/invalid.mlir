// RUN: not cann-opt --split-input-file %s 2>&1 | filecheck %s

// One deliberately invalid op per chunk; the driver reports every chunk's errors, one line per
// failing op: <file>:<line>:<col>: error: <message> [node '<name>'].

func.func @conv_strides(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32> {
  // CHECK: {{.*}}invalid.mlir:8:3: error: tf.Conv2D: 'strides' must have 4 values, got 3 [node 'conv1']
  %y = tf.Conv2D %x, %w {strides = array<i64: 1, 1, 1>, padding = "SAME", data_format = "NHWC", dilations = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32> loc("conv1")
  func.return %y : tensor<1x8x8x4xf32>
}

// -----

func.func @conv_dilations(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32> {
  // CHECK-NEXT: {{.*}}invalid.mlir:16:3: error: tf.Conv2D: 'dilations' must have 4 values, got 2
  %y = tf.Conv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, padding = "SAME", data_format = "NHWC", dilations = array<i64: 1, 1>} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32>
  func.return %y : tensor<1x8x8x4xf32>
}

// -----

func.func @conv_padding(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32> {
  // CHECK-NEXT: {{.*}}invalid.mlir:24:3: error: tf.Conv2D: 'padding' must be one of SAME, VALID, EXPLICIT; got 'FULL' [node 'conv2']
  %y = tf.Conv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, padding = "FULL", data_format = "NHWC", dilations = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32> loc("conv2")
  func.return %y : tensor<1x8x8x4xf32>
}

// -----

func.func @conv_explicit_missing(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32> {
  // CHECK-NEXT: {{.*}}invalid.mlir:32:3: error: tf.Conv2D: padding EXPLICIT needs 'explicit_paddings'
  %y = tf.Conv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, padding = "EXPLICIT", data_format = "NHWC", dilations = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32>
  func.return %y : tensor<1x8x8x4xf32>
}

// -----

func.func @conv_explicit_len(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32> {
  // CHECK-NEXT: {{.*}}invalid.mlir:40:3: error: tf.Conv2D: 'explicit_paddings' must have 8 values, got 4
  %y = tf.Conv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, padding = "EXPLICIT", data_format = "NHWC", dilations = array<i64: 1, 1, 1, 1>, explicit_paddings = array<i64: 0, 0, 1, 1>} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32>
  func.return %y : tensor<1x8x8x4xf32>
}

// -----

func.func @conv_data_format(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32> {
  // CHECK-NEXT: {{.*}}invalid.mlir:48:3: error: tf.Conv2D: 'data_format' must be one of NHWC, NCHW; got 'NDHWC'
  %y = tf.Conv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, padding = "SAME", data_format = "NDHWC", dilations = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32>
  func.return %y : tensor<1x8x8x4xf32>
}

// -----

func.func @conv_channels(%x: tensor<1x8x8x5xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32> {
  // CHECK-NEXT: {{.*}}invalid.mlir:56:3: error: tf.Conv2D: input has 5 channels but the filter (HWCN) expects 3 (or a multiple of it, for a grouped conv) [node 'conv3']
  %y = tf.Conv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, padding = "SAME", data_format = "NHWC", dilations = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x5xf32>, tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32> loc("conv3")
  func.return %y : tensor<1x8x8x4xf32>
}

// -----

func.func @conv_channels_nchw(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<1x4x8x3xf32> {
  // CHECK-NEXT: {{.*}}invalid.mlir:64:3: error: tf.Conv2D: input has 8 channels but the filter (HWCN) expects 3
  %y = tf.Conv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, padding = "SAME", data_format = "NCHW", dilations = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x4x8x3xf32>
  func.return %y : tensor<1x4x8x3xf32>
}

// -----

func.func @conv_rank(%x: tensor<8x8x3xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32> {
  // CHECK-NEXT: {{.*}}invalid.mlir:72:3: error: tf.Conv2D: input must have rank 4, got rank 3
  %y = tf.Conv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, padding = "SAME", data_format = "NHWC", dilations = array<i64: 1, 1, 1, 1>} : (tensor<8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32>
  func.return %y : tensor<1x8x8x4xf32>
}

// -----

func.func @conv_filter_rank(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4x1xf32>) -> tensor<1x8x8x4xf32> {
  // CHECK-NEXT: {{.*}}invalid.mlir:80:3: error: tf.Conv2D: filter must have rank 4, got rank 5
  %y = tf.Conv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, padding = "SAME", data_format = "NHWC", dilations = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4x1xf32>) -> tensor<1x8x8x4xf32>
  func.return %y : tensor<1x8x8x4xf32>
}

// -----

func.func @conv_element_type(%x: tensor<1x8x8x3xf16>, %w: tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32> {
  // CHECK-NEXT: {{.*}}invalid.mlir:88:3: error: tf.Conv2D: operands and results must have one element type, got f16, f32
  %y = tf.Conv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, padding = "SAME", data_format = "NHWC", dilations = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x3xf16>, tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32>
  func.return %y : tensor<1x8x8x4xf32>
}

// -----

func.func @bias_length(%x: tensor<1x8x8x4xf32>, %b: tensor<3xf32>) -> tensor<1x8x8x4xf32> {
  // CHECK-NEXT: {{.*}}invalid.mlir:96:3: error: tf.BiasAdd: bias has 3 elements, channels are 4 [node 'bias']
  %y = tf.BiasAdd %x, %b {data_format = "NHWC"} : (tensor<1x8x8x4xf32>, tensor<3xf32>) -> tensor<1x8x8x4xf32> loc("bias")
  func.return %y : tensor<1x8x8x4xf32>
}

// -----

func.func @bias_length_nchw(%x: tensor<1x4x8x8xf32>, %b: tensor<8xf32>) -> tensor<1x4x8x8xf32> {
  // CHECK-NEXT: {{.*}}invalid.mlir:104:3: error: tf.BiasAdd: bias has 8 elements, channels are 4
  %y = tf.BiasAdd %x, %b {data_format = "NCHW"} : (tensor<1x4x8x8xf32>, tensor<8xf32>) -> tensor<1x4x8x8xf32>
  func.return %y : tensor<1x4x8x8xf32>
}

// -----

func.func @bias_rank(%x: tensor<1x8x8x4xf32>, %b: tensor<1x4xf32>) -> tensor<1x8x8x4xf32> {
  // CHECK-NEXT: {{.*}}invalid.mlir:112:3: error: tf.BiasAdd: bias must have rank 1, got rank 2
  %y = tf.BiasAdd %x, %b {data_format = "NHWC"} : (tensor<1x8x8x4xf32>, tensor<1x4xf32>) -> tensor<1x8x8x4xf32>
  func.return %y : tensor<1x8x8x4xf32>
}

// -----

func.func @bias_value_rank(%x: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK-NEXT: {{.*}}invalid.mlir:120:3: error: tf.BiasAdd: value must have rank at least 2
  %y = tf.BiasAdd %x, %b {data_format = "NHWC"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

func.func @bias_data_format(%x: tensor<1x8x8x4xf32>, %b: tensor<4xf32>) -> tensor<1x8x8x4xf32> {
  // CHECK-NEXT: {{.*}}invalid.mlir:128:3: error: tf.BiasAdd: 'data_format' must be one of NHWC, NCHW; got 'ND'
  %y = tf.BiasAdd %x, %b {data_format = "ND"} : (tensor<1x8x8x4xf32>, tensor<4xf32>) -> tensor<1x8x8x4xf32>
  func.return %y : tensor<1x8x8x4xf32>
}

// -----

func.func @placeholder(%arg0: tensor<1x8x8x3xf32>) -> tensor<1x8x8x4xf32> {
  // CHECK-NEXT: {{.*}}invalid.mlir:136:3: error: tf.Placeholder: result type must equal the argument type [node 'x']
  %x = tf.Placeholder %arg0 : (tensor<1x8x8x3xf32>) -> tensor<1x8x8x4xf32> loc("x")
  func.return %x : tensor<1x8x8x4xf32>
}

// -----

func.func @relu(%x: tensor<4xf32>) -> tensor<4xf16> {
  // CHECK-NEXT: {{.*}}invalid.mlir:144:3: error: tf.Relu: result type must equal the operand type
  %y = tf.Relu %x : (tensor<4xf32>) -> tensor<4xf16>
  func.return %y : tensor<4xf16>
}

// -----

func.func @identity(%x: tensor<4xf32>) -> tensor<5xf32> {
  // CHECK-NEXT: {{.*}}invalid.mlir:152:3: error: tf.Identity: result type must equal the operand type
  %y = tf.Identity %x : (tensor<4xf32>) -> tensor<5xf32>
  func.return %y : tensor<5xf32>
}

// -----

func.func @const_generic() -> tensor<4xf32> {
  // CHECK-NEXT: {{.*}}invalid.mlir:160:3: error: tf.Const: value type tensor<3xf32> differs from result type tensor<4xf32>
  %c = "tf.Const"() <{value = dense<1.0> : tensor<3xf32>}> : () -> tensor<4xf32>
  func.return %c : tensor<4xf32>
}

// CHECK-NOT: error:
