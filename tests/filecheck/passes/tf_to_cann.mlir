// RUN: cann-opt --tf-to-cann %s --print-debuginfo | filecheck %s
// RUN: cann-opt -p tf-to-cann %s --print-debuginfo | filecheck %s

// Placeholder and Identity forward their operands; every other node maps 1:1 and keeps its name.
// CHECK-LABEL: func.func @conv_block(%arg0: tensor<1x8x8x3xf32>
// CHECK-NEXT:    %[[W:.*]] = cann.Const dense<{{.*}}> : tensor<3x3x3x4xf32> loc("w")
// CHECK-NEXT:    %[[B:.*]] = cann.Const dense<{{.*}}> : tensor<4xf32> loc("b")
// CHECK-NEXT:    %[[C:.*]] = cann.Conv2D %arg0, %[[W]] {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : {{.*}} loc("conv")
// CHECK-NEXT:    %[[A:.*]] = cann.BiasAdd %[[C]], %[[B]] {data_format = "NHWC"} : {{.*}} loc("bias")
// CHECK-NEXT:    %[[R:.*]] = cann.Relu %[[A]] : {{.*}} loc("relu")
// CHECK-NEXT:    func.return %[[R]]
func.func @conv_block(%arg0: tensor<1x8x8x3xf32>) -> tensor<1x8x8x4xf32> {
  %0 = tf.Placeholder %arg0 : (tensor<1x8x8x3xf32>) -> tensor<1x8x8x3xf32> loc("x")
  %1 = tf.Const dense<0.5> : tensor<3x3x3x4xf32> loc("w")
  %2 = tf.Const dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32> loc("b")
  %3 = tf.Conv2D %0, %1 {strides = array<i64: 1, 1, 1, 1>, padding = "SAME", data_format = "NHWC", dilations = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32> loc("conv")
  %4 = tf.BiasAdd %3, %2 {data_format = "NHWC"} : (tensor<1x8x8x4xf32>, tensor<4xf32>) -> tensor<1x8x8x4xf32> loc("bias")
  %5 = tf.Relu %4 : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32> loc("relu")
  %6 = tf.Identity %5 : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32> loc("out")
  func.return %6 : tensor<1x8x8x4xf32>
}

// SAME with stride 2: in=9, k=3 -> tail 1 -> pad 2 = (1, 1); in=8 -> tail 0 -> pad 1 = (0, 1).
// CHECK-LABEL: func.func @same_stride2
// CHECK: cann.Conv2D {{.*}}strides = array<i64: 1, 2, 2, 1>, pads = array<i64: 1, 1, 0, 1>
func.func @same_stride2(%x: tensor<1x9x8x3xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<1x5x4x4xf32> {
  %0 = tf.Conv2D %x, %w {strides = array<i64: 1, 2, 2, 1>, padding = "SAME", data_format = "NHWC", dilations = array<i64: 1, 1, 1, 1>} : (tensor<1x9x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x5x4x4xf32>
  func.return %0 : tensor<1x5x4x4xf32>
}

// SAME with dilation 2: dk = 5 -> pad 4 = (2, 2).
// CHECK-LABEL: func.func @same_dilated
// CHECK: cann.Conv2D {{.*}}pads = array<i64: 2, 2, 2, 2>, dilations = array<i64: 1, 2, 2, 1>
func.func @same_dilated(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32> {
  %0 = tf.Conv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, padding = "SAME", data_format = "NHWC", dilations = array<i64: 1, 2, 2, 1>} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32>
  func.return %0 : tensor<1x8x8x4xf32>
}

// CHECK-LABEL: func.func @valid
// CHECK: cann.Conv2D {{.*}}pads = array<i64: 0, 0, 0, 0>
func.func @valid(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<1x6x6x4xf32> {
  %0 = tf.Conv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, padding = "VALID", data_format = "NHWC", dilations = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x6x6x4xf32>
  func.return %0 : tensor<1x6x6x4xf32>
}

// EXPLICIT paddings are given per dimension in data_format order: (N, H, W, C) -> [top, bottom, left, right].
// CHECK-LABEL: func.func @explicit
// CHECK: cann.Conv2D {{.*}}pads = array<i64: 1, 2, 3, 0>
func.func @explicit(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<1x9x9x4xf32> {
  %0 = tf.Conv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, padding = "EXPLICIT", explicit_paddings = array<i64: 0, 0, 1, 2, 3, 0, 0, 0>, data_format = "NHWC", dilations = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x9x9x4xf32>
  func.return %0 : tensor<1x9x9x4xf32>
}

// NCHW keeps its 4-tuples in NCHW order.
// CHECK-LABEL: func.func @nchw
// CHECK: cann.Conv2D {{.*}}strides = array<i64: 1, 1, 2, 2>, pads = array<i64: 0, 1, 0, 1>{{.*}}data_format = "NCHW"
// CHECK: cann.BiasAdd {{.*}}data_format = "NCHW"
func.func @nchw(%x: tensor<1x3x8x8xf32>, %w: tensor<3x3x3x4xf32>, %b: tensor<4xf32>) -> tensor<1x4x4x4xf32> {
  %0 = tf.Conv2D %x, %w {strides = array<i64: 1, 1, 2, 2>, padding = "SAME", data_format = "NCHW", dilations = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<3x3x3x4xf32>) -> tensor<1x4x4x4xf32>
  %1 = tf.BiasAdd %0, %b {data_format = "NCHW"} : (tensor<1x4x4x4xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  func.return %1 : tensor<1x4x4x4xf32>
}
