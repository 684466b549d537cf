// RUN: cann-opt --tf-to-cann %s | filecheck %s

// 3-D (NDHWC) convolution and pooling lowered onto the 2-D ops (compiler/conversions/tf_to_cann/conv3d.py).

// Conv3D SAME, stride 2 everywhere: PadD on D only (SAME's 1, 1), the 3 depth taps as strided
// slices stacked on channels, (N, Do) folded into the batch, one Conv2D with H/W's pads and
// strides and the filter [kh, kw, kd*C, O], reshaped back.
// CHECK-LABEL: func.func @conv3d_same_strided
// CHECK:         %[[P:.*]] = cann.PadD %x {paddings = array<i64: 0, 0, 1, 1, 0, 0, 0, 0, 0, 0>}
// CHECK:         %[[S0:.*]] = cann.StridedSliceD %[[P]] {begin = array<i64: 0, 0, 0, 0, 0>, end = array<i64: 1, 5, 8, 8, 3>, strides = array<i64: 1, 2, 1, 1, 1>
// CHECK:         %[[S1:.*]] = cann.StridedSliceD %[[P]] {begin = array<i64: 0, 1, 0, 0, 0>, end = array<i64: 1, 6, 8, 8, 3>
// CHECK:         %[[S2:.*]] = cann.StridedSliceD %[[P]] {begin = array<i64: 0, 2, 0, 0, 0>, end = array<i64: 1, 7, 8, 8, 3>
// CHECK:         %[[C:.*]] = cann.ConcatV2D %[[S0]], %[[S1]], %[[S2]] {concat_dim = 4 : i64, N = 3 : i64} {{.*}} -> tensor<1x3x8x8x9xf32>
// CHECK:         %[[X2:.*]] = cann.Reshape %[[C]] {shape = array<i64: 3, 8, 8, 9>}
// CHECK:         %[[WT:.*]] = cann.TransposeD %w {perm = array<i64: 1, 2, 0, 3, 4>}
// CHECK:         %[[W2:.*]] = cann.Reshape %[[WT]] {shape = array<i64: 3, 3, 9, 4>}
// CHECK:         %[[Y:.*]] = cann.Conv2D %[[X2]], %[[W2]] {strides = array<i64: 1, 2, 2, 1>, pads = array<i64: 0, 1, 0, 1>, dilations = array<i64: 1, 1, 1, 1>{{.*}} -> tensor<3x4x4x4xf32>
// CHECK:         cann.Reshape %[[Y]] {shape = array<i64: 1, 3, 4, 4, 4>}
// CHECK-NOT:     tf.
func.func @conv3d_same_strided(%x: tensor<1x5x8x8x3xf32>) -> tensor<1x3x4x4x4xf32> {
  %w = tf.Const dense<0.5> : tensor<3x3x3x3x4xf32>
  %y = tf.Conv3D %x, %w {T = f32, data_format = "NDHWC", dilations = array<i64: 1, 1, 1, 1, 1>, padding = "SAME", strides = array<i64: 1, 2, 2, 2, 1>} : (tensor<1x5x8x8x3xf32>, tensor<3x3x3x3x4xf32>) -> tensor<1x3x4x4x4xf32> loc("c3")
  func.return %y : tensor<1x3x4x4x4xf32>
}

// 3x1x1 with dilation 2 in depth, VALID, unit strides: no im2col; x viewed as [1, D*H, W, C] is one
// Conv2D whose 3 H taps are the depth taps (dilation 2 * H = 16 rows), the filter [kd, kw, C, O].
// CHECK-LABEL: func.func @conv3d_depth_only
// CHECK-NOT:     cann.StridedSliceD
// CHECK:         %[[X:.*]] = cann.Reshape %x {shape = array<i64: 1, 48, 8, 3>}
// CHECK:         %[[W:.*]] = cann.Reshape %w {shape = array<i64: 3, 1, 3, 4>}
// CHECK:         %[[Y:.*]] = cann.Conv2D %[[X]], %[[W]] {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 16, 1, 1>{{.*}} -> tensor<1x16x8x4xf32>
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

// MaxPool3D 2x2x2 / 2 (VALID): HW first moves fewer elements here (MaxPool on the 6 depth planes,
// then 2 depth slices of the 7x7 results and one Maximum).
// CHECK-LABEL: func.func @maxpool3d
// CHECK:         cann.MaxPool {{.*}}ksize = array<i64: 1, 2, 2, 1>, strides = array<i64: 1, 2, 2, 1>, padding = "VALID"{{.*}} -> tensor<6x7x7x8xf32>
// CHECK:         %[[A:.*]] = cann.StridedSliceD {{.*}}begin = array<i64: 0, 0, 0, 0, 0>, end = array<i64: 1, 5, 7, 7, 8>, strides = array<i64: 1, 2, 1, 1, 1>
// CHECK:         %[[B:.*]] = cann.StridedSliceD {{.*}}begin = array<i64: 0, 1, 0, 0, 0>, end = array<i64: 1, 6, 7, 7, 8>, strides = array<i64: 1, 2, 1, 1, 1>
// CHECK:         cann.Maximum %[[A]], %[[B]] {{.*}} -> tensor<1x3x7x7x8xf32>
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
// PadD, Reshape), the filter flipped in D, H, W with its channels swapped, then the Conv3D
// decomposition at stride 1 (PadD on D, 3 taps, one Conv2D).
// CHECK-LABEL: func.func @conv3d_transpose
// CHECK:         cann.PadD {{.*}}paddings = array<i64: 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0>
// CHECK:         cann.Reshape {{.*}} -> tensor<1x4x8x8x4xf32>
// CHECK:         cann.StridedSliceD %w {{.*}}strides = array<i64: -1, -1, -1, 1, 1>, begin_mask = 31 : i64, end_mask = 31 : i64
// CHECK:         cann.TransposeD {{.*}}perm = array<i64: 0, 1, 2, 4, 3>
// CHECK:         cann.ConcatV2D {{.*}} -> tensor<1x4x8x8x12xf32>
// CHECK:         cann.Conv2D {{.*}}strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 2, 0, 2, 0>{{.*}} -> tensor<4x8x8x3xf32>
func.func @conv3d_transpose(%dy: tensor<1x2x4x4x4xf32>) -> tensor<1x4x8x8x3xf32> {
  %sz = tf.Const dense<[1, 4, 8, 8, 3]> : tensor<5xi32>
  %w = tf.Const dense<0.5> : tensor<3x3x3x3x4xf32>
  %y = "tf.Conv3DBackpropInputV2"(%sz, %w, %dy) {T = f32, Tshape = i32, data_format = "NDHWC", dilations = array<i64: 1, 1, 1, 1, 1>, padding = "SAME", strides = array<i64: 1, 2, 2, 2, 1>} : (tensor<5xi32>, tensor<3x3x3x3x4xf32>, tensor<1x2x4x4x4xf32>) -> tensor<1x4x8x8x3xf32>
  func.return %y : tensor<1x4x8x8x3xf32>
}
// Keras' dilated Conv3D (SpaceToBatchND block [2, 1, 1] -> Conv3D VALID -> BatchToSpaceND) is one
// Conv3D with dilation 2 in depth and explicit pads 2, 2 on D (dilated.py); being 3x1x1 it is
// then one Conv2D over D*H rows: dilation 2 * 4 rows, D's pads as 8 rows each side.
// CHECK-LABEL: func.func @keras_dilated_conv3d
// CHECK-NOT:     cann.TransposeD
// CHECK-NOT:     cann.PadD
// CHECK:         cann.Conv2D {{.*}}pads = array<i64: 8, 8, 0, 0>, dilations = array<i64: 1, 8, 1, 1>{{.*}} : (tensor<1x32x4x8xf32>, tensor<3x1x8x8xf32>) -> tensor<1x32x4x8xf32>
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
