// RUN: cann-opt --tf-to-cann %s | filecheck %s

// A dilated Conv1D as TensorFlow runs it (SpaceToBatchND -> ExpandDims -> Conv2D VALID ->
// Squeeze -> BatchToSpaceND, block 2, paddings [2, 2]) is one Conv2D with dilation 2 along W and
// pads [2, 2] there (compiler/conversions/tf_to_cann/dilated.py): no PadD, no TransposeD.
// CHECK-LABEL: func.func @dilated_conv1d
// CHECK-NOT:     cann.TransposeD
// CHECK-NOT:     cann.PadD
// CHECK:         cann.Reshape %x {shape = array<i64: 1, 1, 16, 4>}
// CHECK:         cann.Conv2D {{.*}}pads = array<i64: 0, 0, 2, 2>, dilations = array<i64: 1, 1, 2, 1>{{.*}} -> tensor<1x1x16x8xf32>
// CHECK-NOT:     cann.TransposeD
func.func @dilated_conv1d(%x: tensor<1x16x4xf32>) -> tensor<1x16x8xf32> {
  %block = tf.Const dense<2> : tensor<1xi32>
  %pads = tf.Const dense<2> : tensor<1x2xi32>
  %crops = tf.Const dense<0> : tensor<1x2xi32>
  %d1 = tf.Const dense<-3> : tensor<i32>
  %w = tf.Const dense<0.5> : tensor<1x3x4x8xf32>
  %s = "tf.SpaceToBatchND"(%x, %block, %pads) {T = f32, Tblock_shape = i32, Tpaddings = i32} : (tensor<1x16x4xf32>, tensor<1xi32>, tensor<1x2xi32>) -> tensor<2x10x4xf32>
  %e = tf.ExpandDims %s, %d1 {T = f32, Tdim = i32} : (tensor<2x10x4xf32>, tensor<i32>) -> tensor<2x1x10x4xf32>
  %c = tf.Conv2D %e, %w {T = f32, data_format = "NHWC", dilations = array<i64: 1, 1, 1, 1>, explicit_paddings = array<i64>, padding = "VALID", strides = array<i64: 1, 1, 1, 1>, use_cudnn_on_gpu = true} : (tensor<2x1x10x4xf32>, tensor<1x3x4x8xf32>) -> tensor<2x1x8x8xf32>
  %q = tf.Squeeze %c {T = f32, squeeze_dims = array<i64: -3>} : (tensor<2x1x8x8xf32>) -> tensor<2x8x8xf32>
  %y = "tf.BatchToSpaceND"(%q, %block, %crops) {T = f32, Tblock_shape = i32, Tcrops = i32} : (tensor<2x8x8xf32>, tensor<1xi32>, tensor<1x2xi32>) -> tensor<1x16x8xf32>
  func.return %y : tensor<1x16x8xf32>
}

// Crops are taken off the pads (length 15, block 2: paddings [2, 3], crops [0, 1]).
// CHECK-LABEL: func.func @dilated_with_crops
// CHECK:         cann.Conv2D {{.*}}pads = array<i64: 0, 0, 2, 2>, dilations = array<i64: 1, 1, 2, 1>{{.*}} -> tensor<1x1x15x8xf32>
func.func @dilated_with_crops(%x: tensor<1x15x4xf32>) -> tensor<1x15x8xf32> {
  %block = tf.Const dense<2> : tensor<1xi32>
  %pads = tf.Const dense<[[2, 3]]> : tensor<1x2xi32>
  %crops = tf.Const dense<[[0, 1]]> : tensor<1x2xi32>
  %d1 = tf.Const dense<-3> : tensor<i32>
  %w = tf.Const dense<0.5> : tensor<1x3x4x8xf32>
  %s = "tf.SpaceToBatchND"(%x, %block, %pads) {T = f32, Tblock_shape = i32, Tpaddings = i32} : (tensor<1x15x4xf32>, tensor<1xi32>, tensor<1x2xi32>) -> tensor<2x10x4xf32>
  %e = tf.ExpandDims %s, %d1 {T = f32, Tdim = i32} : (tensor<2x10x4xf32>, tensor<i32>) -> tensor<2x1x10x4xf32>
  %c = tf.Conv2D %e, %w {T = f32, data_format = "NHWC", dilations = array<i64: 1, 1, 1, 1>, explicit_paddings = array<i64>, padding = "VALID", strides = array<i64: 1, 1, 1, 1>, use_cudnn_on_gpu = true} : (tensor<2x1x10x4xf32>, tensor<1x3x4x8xf32>) -> tensor<2x1x8x8xf32>
  %q = tf.Squeeze %c {T = f32, squeeze_dims = array<i64: -3>} : (tensor<2x1x8x8xf32>) -> tensor<2x8x8xf32>
  %y = "tf.BatchToSpaceND"(%q, %block, %crops) {T = f32, Tblock_shape = i32, Tcrops = i32} : (tensor<2x8x8xf32>, tensor<1xi32>, tensor<1x2xi32>) -> tensor<1x15x8xf32>
  func.return %y : tensor<1x15x8xf32>
}

// A 2-D space-to-batch conv (tf.nn.atrous_conv2d, rate 2): dilations on H and W.
// CHECK-LABEL: func.func @atrous_2d
// CHECK:         cann.Conv2D {{.*}}pads = array<i64: 2, 2, 2, 2>, dilations = array<i64: 1, 2, 2, 1>{{.*}} -> tensor<1x8x8x8xf32>
func.func @atrous_2d(%x: tensor<1x8x8x4xf32>) -> tensor<1x8x8x8xf32> {
  %block = tf.Const dense<2> : tensor<2xi32>
  %pads = tf.Const dense<2> : tensor<2x2xi32>
  %crops = tf.Const dense<0> : tensor<2x2xi32>
  %w = tf.Const dense<0.5> : tensor<3x3x4x8xf32>
  %s = "tf.SpaceToBatchND"(%x, %block, %pads) {T = f32, Tblock_shape = i32, Tpaddings = i32} : (tensor<1x8x8x4xf32>, tensor<2xi32>, tensor<2x2xi32>) -> tensor<4x6x6x4xf32>
  %c = tf.Conv2D %s, %w {T = f32, data_format = "NHWC", dilations = array<i64: 1, 1, 1, 1>, explicit_paddings = array<i64>, padding = "VALID", strides = array<i64: 1, 1, 1, 1>, use_cudnn_on_gpu = true} : (tensor<4x6x6x4xf32>, tensor<3x3x4x8xf32>) -> tensor<4x4x4x8xf32>
  %y = "tf.BatchToSpaceND"(%c, %block, %crops) {T = f32, Tblock_shape = i32, Tcrops = i32} : (tensor<4x4x4x8xf32>, tensor<2xi32>, tensor<2x2xi32>) -> tensor<1x8x8x8xf32>
  func.return %y : tensor<1x8x8x8xf32>
}

// A strided conv between them is not a dilated conv: the chain stays as TensorFlow wrote it.
// CHECK-LABEL: func.func @strided_stays
// CHECK:         cann.TransposeD
func.func @strided_stays(%x: tensor<1x8x8x4xf32>) -> tensor<1x4x4x8xf32> {
  %block = tf.Const dense<2> : tensor<2xi32>
  %pads = tf.Const dense<0> : tensor<2x2xi32>
  %w = tf.Const dense<0.5> : tensor<1x1x4x8xf32>
  %s = "tf.SpaceToBatchND"(%x, %block, %pads) {T = f32, Tblock_shape = i32, Tpaddings = i32} : (tensor<1x8x8x4xf32>, tensor<2xi32>, tensor<2x2xi32>) -> tensor<4x4x4x4xf32>
  %c = tf.Conv2D %s, %w {T = f32, data_format = "NHWC", dilations = array<i64: 1, 1, 1, 1>, explicit_paddings = array<i64>, padding = "VALID", strides = array<i64: 1, 2, 2, 1>, use_cudnn_on_gpu = true} : (tensor<4x4x4x4xf32>, tensor<1x1x4x8xf32>) -> tensor<4x2x2x8xf32>
  %y = "tf.BatchToSpaceND"(%c, %block, %pads) {T = f32, Tblock_shape = i32, Tcrops = i32} : (tensor<4x2x2x8xf32>, tensor<2xi32>, tensor<2x2xi32>) -> tensor<1x4x4x8xf32>
  func.return %y : tensor<1x4x4x8xf32>
}
