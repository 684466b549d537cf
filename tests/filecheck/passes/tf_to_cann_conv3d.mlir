// RUN: cann-opt --tf-to-cann %s | filecheck %s

// 3-D (NDHWC) convolution and pooling (compiler/conversions/tf_to_cann/conv3d.py): a Conv3D with
// kd > 1 is one cann.Conv3D on the (N*D) batch views of x and y (the bytes of NDC1HWC0).

// Conv3D SAME, stride 2 everywhere: no pad, slice or concat; x viewed as [N*D, H, W, C], one
// cann.Conv3D with H/W's pads and strides, depth = [D_in, D_out, kd, sd, dd, SAME's 1, 1] and the
// DHWCN filter as it is; the result viewed back as [N, Do, Ho, Wo, O].
// CHECK-LABEL: func.func @conv3d_same_strided
// CHECK-NOT:     cann.PadD
// CHECK:         %[[X:.*]] = cann.Reshape %x {shape = array<i64: 5, 8, 8, 3>}
// CHECK:         %[[Y:.*]] = cann.Conv3D %[[X]], %w {strides = array<i64: 1, 2, 2, 1>, pads = array<i64: 0, 1, 0, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", depth = array<i64: 5, 3, 3, 2, 1, 1, 1>} : (tensor<5x8x8x3xf32>, tensor<3x3x3x3x4xf32>) -> tensor<3x4x4x4xf32>
// CHECK:         cann.Reshape %[[Y]] {shape = array<i64: 1, 3, 4, 4, 4>}
// CHECK-NOT:     cann.StridedSliceD
// CHECK-NOT:     cann.ConcatV2D
// CHECK-NOT:     tf.
func.func @conv3d_same_strided(%x: tensor<1x5x8x8x3xf32>) -> tensor<1x3x4x4x4xf32> {
  %w = tf.Const dense<0.5> : tensor<3x3x3x3x4xf32>
  %y = tf.Conv3D %x, %w {T = f32, data_format = "NDHWC", dilations = array<i64: 1, 1, 1, 1, 1>, padding = "SAME", strides = array<i64: 1, 2, 2, 2, 1>} : (tensor<1x5x8x8x3xf32>, tensor<3x3x3x3x4xf32>) -> tensor<1x3x4x4x4xf32> loc("c3")
  func.return %y : tensor<1x3x4x4x4xf32>
}

// 3x1x1 with dilation 2 in depth, VALID, unit strides: one Conv3D, dilation 2 in its depth params.
// CHECK-LABEL: func.func @conv3d_depth_only
// CHECK-NOT:     cann.StridedSliceD
// CHECK:         %[[X:.*]] = cann.Reshape %x {shape = array<i64: 6, 8, 8, 3>}
// CHECK:         %[[Y:.*]] = cann.Conv3D %[[X]], %w {{{.*}}depth = array<i64: 6, 2, 3, 1, 2, 0, 0>} {{.*}} -> tensor<2x8x8x4xf32>
// CHECK:         cann.Reshape %[[Y]] {shape = array<i64: 1, 2, 8, 8, 4>}
func.func @conv3d_depth_only(%x: tensor<1x6x8x8x3xf32>) -> tensor<1x2x8x8x4xf32> {
  %w = tf.Const dense<0.5> : tensor<3x1x1x3x4xf32>
  %y = tf.Conv3D %x, %w {T = f32, data_format = "NDHWC", dilations = array<i64: 1, 2, 1, 1, 1>, padding = "VALID", strides = array<i64: 1, 1, 1, 1, 1>} : (tensor<1x6x8x8x3xf32>, tensor<3x1x1x3x4xf32>) -> tensor<1x2x8x8x4xf32>
  func.return %y : tensor<1x2x8x8x4xf32>
}

// 1x3x3, stride 1: no slice, no concat: x is only viewed as the batch of N*D images.
// CHECK-LABEL: func.func @conv3d_1x3x3
// CHECK-NOT:     cann.StridedSliceD
// CHECK-NOT:     cann.ConcatV2D
// CHECK:         %[[X:.*]] = cann.Reshape %x {shape = array<i64: 8, 8, 8, 3>}
// CHECK:         cann.Conv2D %[[X]], {{.*}} -> tensor<8x6x6x4xf32>
func.func @conv3d_1x3x3(%x: tensor<2x4x8x8x3xf32>) -> tensor<2x4x6x6x4xf32> {
  %w = tf.Const dense<0.5> : tensor<1x3x3x3x4xf32>
  %y = tf.Conv3D %x, %w {T = f32, data_format = "NDHWC", dilations = array<i64: 1, 1, 1, 1, 1>, padding = "VALID", strides = array<i64: 1, 1, 1, 1, 1>} : (tensor<2x4x8x8x3xf32>, tensor<1x3x3x3x4xf32>) -> tensor<2x4x6x6x4xf32>
  func.return %y : tensor<2x4x6x6x4xf32>
}

// MaxPool3D 2x2x2 / 2 (VALID): HW first moves fewer elements here (MaxPool on the 6 depth planes),
// then, the depth windows tiling D (kd = sd, no pad), one ReduceMaxD over the window axis of the
// view [1, 3, 2, 7, 7, 8]: no slices.
// CHECK-LABEL: func.func @maxpool3d
// CHECK:         cann.MaxPool {{.*}}ksize = array<i64: 1, 2, 2, 1>, strides = array<i64: 1, 2, 2, 1>, padding = "VALID"{{.*}} -> tensor<6x7x7x8xf32>
// CHECK-NOT:     cann.StridedSliceD
// CHECK:         %[[V:.*]] = cann.Reshape {{.*}}shape = array<i64: 1, 3, 2, 7, 7, 8>
// CHECK:         cann.ReduceMaxD %[[V]] {axes = array<i64: 2>, keep_dims = false} {{.*}} -> tensor<1x3x7x7x8xf32>
func.func @maxpool3d(%x: tensor<1x6x14x14x8xf32>) -> tensor<1x3x7x7x8xf32> {
  %y = tf.MaxPool3D %x {T = f32, data_format = "NDHWC", ksize = array<i64: 1, 2, 2, 2, 1>, padding = "VALID", strides = array<i64: 1, 2, 2, 2, 1>} : (tensor<1x6x14x14x8xf32>) -> tensor<1x3x7x7x8xf32>
  func.return %y : tensor<1x3x7x7x8xf32>
}

// A depth-only SAME max pool pads D with float32's lowest value (never the maximum) and runs no 2-D pool.
// CHECK-LABEL: func.func @maxpool3d_same
// CHECK:         cann.PadV2D %x {paddings = array<i64: 0, 0, 1, 1, 0, 0, 0, 0, 0, 0>, constant_values = -3.40282347e+38 : f32}
// CHECK-COUNT-3: cann.StridedSliceD
// CHECK-COUNT-2: cann.Maximum
// CHECK-NOT:     cann.MaxPool
func.func @maxpool3d_same(%x: tensor<1x5x4x4x8xf32>) -> tensor<1x3x4x4x8xf32> {
  %y = tf.MaxPool3D %x {T = f32, data_format = "NDHWC", ksize = array<i64: 1, 3, 1, 1, 1>, padding = "SAME", strides = array<i64: 1, 2, 1, 1, 1>} : (tensor<1x5x4x4x8xf32>) -> tensor<1x3x4x4x8xf32>
  func.return %y : tensor<1x3x4x4x8xf32>
}

// AvgPool3D SAME: AvgPool over H, W (its SAME counts the valid HW elements), then the depth sum of
// the zero-padded taps times 1 / the valid depth count per output depth (2, 3, 2 -> a [1, 3, 1, 1, 1]
// constant).
// CHECK-LABEL: func.func @avgpool3d_same
// CHECK:         cann.AvgPool {{.*}}padding = "SAME"{{.*}} -> tensor<5x4x4x8xf32>
// CHECK:         cann.PadD {{.*}}paddings = array<i64: 0, 0, 1, 1, 0, 0, 0, 0, 0, 0>
// CHECK-COUNT-2: cann.Add
// CHECK:         %[[R:.*]] = cann.Const dense<{{.*}}5.000000e-01{{.*}}0.333333343{{.*}}5.000000e-01{{.*}}> : tensor<1x3x1x1x1xf32>
// CHECK:         cann.Mul %{{.*}}, %[[R]]
func.func @avgpool3d_same(%x: tensor<1x5x8x8x8xf32>) -> tensor<1x3x4x4x8xf32> {
  %y = tf.AvgPool3D %x {T = f32, data_format = "NDHWC", ksize = array<i64: 1, 3, 3, 3, 1>, padding = "SAME", strides = array<i64: 1, 2, 2, 2, 1>} : (tensor<1x5x8x8x8xf32>) -> tensor<1x3x4x4x8xf32>
  func.return %y : tensor<1x3x4x4x8xf32>
}

// Conv3DBackpropInputV2 (Conv3DTranspose) stride 2: one zero after each element of D, H, W (Reshape,
// PadD, Reshape), the filter flipped in D, H, W with its channels swapped, then one Conv3D at
// stride 1 (pads 2, 0 on D, H, W).
// CHECK-LABEL: func.func @conv3d_transpose
// CHECK:         cann.PadD {{.*}}paddings = array<i64: 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0>
// CHECK:         cann.Reshape {{.*}} -> tensor<1x4x8x8x4xf32>
// CHECK:         cann.StridedSliceD %w {{.*}}strides = array<i64: -1, -1, -1, 1, 1>, begin_mask = 31 : i64, end_mask = 31 : i64
// CHECK:         cann.TransposeD {{.*}}perm = array<i64: 0, 1, 2, 4, 3>
// CHECK:         cann.Conv3D {{.*}}strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 2, 0, 2, 0>{{.*}}depth = array<i64: 4, 4, 3, 1, 1, 2, 0>{{.*}} -> tensor<4x8x8x3xf32>
func.func @conv3d_transpose(%dy: tensor<1x2x4x4x4xf32>) -> tensor<1x4x8x8x3xf32> {
  %sz = tf.Const dense<[1, 4, 8, 8, 3]> : tensor<5xi32>
  %w = tf.Const dense<0.5> : tensor<3x3x3x3x4xf32>
  %y = "tf.Conv3DBackpropInputV2"(%sz, %w, %dy) {T = f32, Tshape = i32, data_format = "NDHWC", dilations = array<i64: 1, 1, 1, 1, 1>, padding = "SAME", strides = array<i64: 1, 2, 2, 2, 1>} : (tensor<5xi32>, tensor<3x3x3x3x4xf32>, tensor<1x2x4x4x4xf32>) -> tensor<1x4x8x8x3xf32>
  func.return %y : tensor<1x4x8x8x3xf32>
}
// Keras' dilated Conv3D (SpaceToBatchND block [2, 1, 1] -> Conv3D VALID -> BatchToSpaceND) is one
// Conv3D with dilation 2 in depth and explicit pads 2, 2 on D (dilated.py): one cann.Conv3D.
// CHECK-LABEL: func.func @keras_dilated_conv3d
// CHECK-NOT:     cann.TransposeD
// CHECK-NOT:     cann.PadD
// CHECK:         cann.Conv3D {{.*}}pads = array<i64: 0, 0, 0, 0>{{.*}}depth = array<i64: 8, 8, 3, 1, 2, 2, 2>{{.*}} : (tensor<8x4x4x8xf32>, tensor<3x1x1x8x8xf32>) -> tensor<8x4x4x8xf32>
// CHECK-NOT:     cann.TransposeD
func.func @keras_dilated_conv3d(%x: tensor<1x8x4x4x8xf32>) -> tensor<1x8x4x4x8xf32> {
  %block = tf.Const dense<[2, 1, 1]> : tensor<3xi32>
  %pads = tf.Const dense<[[2, 2], [0, 0], [0, 0]]> : tensor<3x2xi32>
  %crops = tf.Const dense<0> : tensor<3x2xi32>
  %w = tf.Const dense<0.5> : tensor<3x1x1x8x8xf32>
  %s = "tf.SpaceToBatchND"(%x, %block, %pads) {T = f32, Tblock_shape = i32, Tpaddings = i32} : (tensor<1x8x4x4x8xf32>, tensor<3xi32>, tensor<3x2xi32>) -> tensor<2x6x4x4x8xf32>
  %c = tf.Conv3D %s, %w {T = f32, data_format = "NDHWC", dilations = array<i64: 1, 1, 1, 1, 1>, padding = "VALID", strides = array<i64: 1, 1, 1, 1, 1>} : (tensor<2x6x4x4x8xf32>, tensor<3x1x1x8x8xf32>) -> tensor<2x4x4x4x8xf32>
  %y = "tf.BatchToSpaceND"(%c, %block, %crops) {T = f32, Tblock_shape = i32, Tcrops = i32} : (tensor<2x4x4x4x8xf32>, tensor<3xi32>, tensor<3x2xi32>) -> tensor<1x8x4x4x8xf32>
  func.return %y : tensor<1x8x4x4x8xf32>
}
