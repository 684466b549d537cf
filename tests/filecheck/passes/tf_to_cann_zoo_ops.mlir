// RUN: cann-opt --tf-to-cann %s | filecheck %s
// RUN: cann-opt --tf-to-cann %s | cann-opt --print-op-generic | cann-opt | filecheck %s
// The rows the model zoo needed (issue 12 item 7): BroadcastTo -> BroadcastToD (constant shape
// as an attribute); Tile -> Reshape + BroadcastToD + Reshape (UpSampling2D's nearest repeat;
// an axis of size 1 needs no reshape); Slice -> StridedSliceD (size -1 to the end);
// SpaceToBatchND / BatchToSpaceND (a dilated Conv1D) -> PadD / Reshape / TransposeD / Reshape
// (/ StridedSliceD for the crops); a grouped Conv2D -> DepthwiseConv2D when groups = channels
// (ConvNeXt), else one Conv2D with groups = G; Conv2DBackpropInput (Conv2DTranspose)
// -> zeros inserted by Reshape + PadD + Reshape, then a stride-1 Conv2D with the flipped,
// channel-swapped filter and pads d*(k-1) - pad (SAME, stride 2: [2, 0, 2, 0]).
// CHECK-LABEL: func.func @broadcast_to(
// CHECK-NEXT: %s = cann.Const dense<[4, 6]> : tensor<2xi32>
// CHECK-NEXT: %0 = cann.BroadcastToD %x {shape = array<i64: 4, 6>} : (tensor<1x6xf32>) -> tensor<4x6xf32>
// CHECK-NEXT: func.return %0 : tensor<4x6xf32>
func.func @broadcast_to(%x: tensor<1x6xf32>) -> tensor<4x6xf32> {
  %s = "tf.Const"() {value = dense<[4, 6]> : tensor<2xi32>} : () -> tensor<2xi32>
  %0 = "tf.BroadcastTo"(%x, %s) : (tensor<1x6xf32>, tensor<2xi32>) -> tensor<4x6xf32>
  func.return %0 : tensor<4x6xf32>
}

// CHECK-LABEL: func.func @tile(
// CHECK-NEXT: %m = cann.Const dense<[1, 1, 2, 1]> : tensor<4xi32>
// CHECK-NEXT: %0 = cann.BroadcastToD %x {shape = array<i64: 1, 5, 2, 3>} : (tensor<1x5x1x3xf32>) -> tensor<1x5x2x3xf32>
// CHECK-NEXT: func.return %0 : tensor<1x5x2x3xf32>
func.func @tile(%x: tensor<1x5x1x3xf32>) -> tensor<1x5x2x3xf32> {
  %m = "tf.Const"() {value = dense<[1, 1, 2, 1]> : tensor<4xi32>} : () -> tensor<4xi32>
  %0 = "tf.Tile"(%x, %m) : (tensor<1x5x1x3xf32>, tensor<4xi32>) -> tensor<1x5x2x3xf32>
  func.return %0 : tensor<1x5x2x3xf32>
}

// CHECK-LABEL: func.func @tile_inner(
// CHECK-NEXT: %m = cann.Const dense<[2, 3]> : tensor<2xi32>
// CHECK-NEXT: %0 = cann.Reshape %x {shape = array<i64: 1, 2, 1, 3>} : (tensor<2x3xf32>) -> tensor<1x2x1x3xf32>
// CHECK-NEXT: %1 = cann.BroadcastToD %0 {shape = array<i64: 2, 2, 3, 3>} : (tensor<1x2x1x3xf32>) -> tensor<2x2x3x3xf32>
// CHECK-NEXT: %2 = cann.Reshape %1 {shape = array<i64: 4, 9>} : (tensor<2x2x3x3xf32>) -> tensor<4x9xf32>
// CHECK-NEXT: func.return %2 : tensor<4x9xf32>
func.func @tile_inner(%x: tensor<2x3xf32>) -> tensor<4x9xf32> {
  %m = "tf.Const"() {value = dense<[2, 3]> : tensor<2xi32>} : () -> tensor<2xi32>
  %0 = "tf.Tile"(%x, %m) : (tensor<2x3xf32>, tensor<2xi32>) -> tensor<4x9xf32>
  func.return %0 : tensor<4x9xf32>
}

// CHECK-LABEL: func.func @slice(
// CHECK-NEXT: %b = cann.Const dense<1> : tensor<2xi32>
// CHECK-NEXT: %s = cann.Const dense<[2, -1]> : tensor<2xi32>
// CHECK-NEXT: %0 = cann.StridedSliceD %x {begin = array<i64: 1, 1>, end = array<i64: 3, 7>, strides = array<i64: 1, 1>, begin_mask = 0 : i64, end_mask = 0 : i64, ellipsis_mask = 0 : i64, new_axis_mask = 0 : i64, shrink_axis_mask = 0 : i64} : (tensor<5x7xf32>) -> tensor<2x6xf32>
// CHECK-NEXT: func.return %0 : tensor<2x6xf32>
func.func @slice(%x: tensor<5x7xf32>) -> tensor<2x6xf32> {
  %b = "tf.Const"() {value = dense<[1, 1]> : tensor<2xi32>} : () -> tensor<2xi32>
  %s = "tf.Const"() {value = dense<[2, -1]> : tensor<2xi32>} : () -> tensor<2xi32>
  %0 = "tf.Slice"(%x, %b, %s) : (tensor<5x7xf32>, tensor<2xi32>, tensor<2xi32>) -> tensor<2x6xf32>
  func.return %0 : tensor<2x6xf32>
}

// CHECK-LABEL: func.func @space_batch(
// CHECK-NEXT: %blk = cann.Const dense<2> : tensor<1xi32>
// CHECK-NEXT: %pad = cann.Const dense<[[1, 2]]> : tensor<1x2xi32>
// CHECK-NEXT: %crop = cann.Const dense<[[1, 2]]> : tensor<1x2xi32>
// CHECK-NEXT: %0 = cann.PadD %x {paddings = array<i64: 0, 0, 1, 2, 0, 0>} : (tensor<1x7x3xf32>) -> tensor<1x10x3xf32>
// CHECK-NEXT: %1 = cann.Reshape %0 {shape = array<i64: 1, 5, 2, 3>} : (tensor<1x10x3xf32>) -> tensor<1x5x2x3xf32>
// CHECK-NEXT: %2 = cann.TransposeD %1 {perm = array<i64: 2, 0, 1, 3>} : (tensor<1x5x2x3xf32>) -> tensor<2x1x5x3xf32>
// CHECK-NEXT: %3 = cann.Reshape %2 {shape = array<i64: 2, 5, 3>} : (tensor<2x1x5x3xf32>) -> tensor<2x5x3xf32>
// CHECK-NEXT: %4 = cann.Reshape %3 {shape = array<i64: 2, 1, 5, 3>} : (tensor<2x5x3xf32>) -> tensor<2x1x5x3xf32>
// CHECK-NEXT: %5 = cann.TransposeD %4 {perm = array<i64: 1, 2, 0, 3>} : (tensor<2x1x5x3xf32>) -> tensor<1x5x2x3xf32>
// CHECK-NEXT: %6 = cann.Reshape %5 {shape = array<i64: 1, 10, 3>} : (tensor<1x5x2x3xf32>) -> tensor<1x10x3xf32>
// CHECK-NEXT: %7 = cann.StridedSliceD %6 {begin = array<i64: 0, 1, 0>, end = array<i64: 1, 8, 3>, strides = array<i64: 1, 1, 1>, begin_mask = 0 : i64, end_mask = 0 : i64, ellipsis_mask = 0 : i64, new_axis_mask = 0 : i64, shrink_axis_mask = 0 : i64} : (tensor<1x10x3xf32>) -> tensor<1x7x3xf32>
// CHECK-NEXT: func.return %7 : tensor<1x7x3xf32>
func.func @space_batch(%x: tensor<1x7x3xf32>) -> tensor<1x7x3xf32> {
  %blk = "tf.Const"() {value = dense<[2]> : tensor<1xi32>} : () -> tensor<1xi32>
  %pad = "tf.Const"() {value = dense<[[1, 2]]> : tensor<1x2xi32>} : () -> tensor<1x2xi32>
  %crop = "tf.Const"() {value = dense<[[1, 2]]> : tensor<1x2xi32>} : () -> tensor<1x2xi32>
  %0 = "tf.SpaceToBatchND"(%x, %blk, %pad) : (tensor<1x7x3xf32>, tensor<1xi32>, tensor<1x2xi32>) -> tensor<2x5x3xf32>
  %1 = "tf.BatchToSpaceND"(%0, %blk, %crop) : (tensor<2x5x3xf32>, tensor<1xi32>, tensor<1x2xi32>) -> tensor<1x7x3xf32>
  func.return %1 : tensor<1x7x3xf32>
}

// CHECK-LABEL: func.func @grouped_conv(
// CHECK-NEXT: %0 = cann.Reshape %wd {shape = array<i64: 3, 3, 4, 2>} : (tensor<3x3x1x8xf32>) -> tensor<3x3x4x2xf32>
// CHECK-NEXT: %1 = cann.DepthwiseConv2D %x, %0 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, data_format = "NHWC"} : (tensor<1x5x5x4xf32>, tensor<3x3x4x2xf32>) -> tensor<1x5x5x8xf32>
// CHECK-NEXT: %2 = cann.Conv2D %x, %wg {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 2 : i64, data_format = "NHWC"} : (tensor<1x5x5x4xf32>, tensor<1x1x2x6xf32>) -> tensor<1x5x5x6xf32>
// CHECK-NEXT: func.return %1, %2 : tensor<1x5x5x8xf32>, tensor<1x5x5x6xf32>
func.func @grouped_conv(%x: tensor<1x5x5x4xf32>, %wd: tensor<3x3x1x8xf32>, %wg: tensor<1x1x2x6xf32>) -> (tensor<1x5x5x8xf32>, tensor<1x5x5x6xf32>) {
  %0 = "tf.Conv2D"(%x, %wd) {strides = array<i64: 1, 1, 1, 1>, padding = "SAME", data_format = "NHWC", dilations = array<i64: 1, 1, 1, 1>} : (tensor<1x5x5x4xf32>, tensor<3x3x1x8xf32>) -> tensor<1x5x5x8xf32>
  %1 = "tf.Conv2D"(%x, %wg) {strides = array<i64: 1, 1, 1, 1>, padding = "VALID", data_format = "NHWC", dilations = array<i64: 1, 1, 1, 1>} : (tensor<1x5x5x4xf32>, tensor<1x1x2x6xf32>) -> tensor<1x5x5x6xf32>
  func.return %0, %1 : tensor<1x5x5x8xf32>, tensor<1x5x5x6xf32>
}

// CHECK-LABEL: func.func @conv_transpose(
// CHECK-NEXT: %s = cann.Const dense<[1, 6, 6, 2]> : tensor<4xi32>
// CHECK-NEXT: %0 = cann.Reshape %dy {shape = array<i64: 1, 3, 1, 3, 1, 4>} : (tensor<1x3x3x4xf32>) -> tensor<1x3x1x3x1x4xf32>
// CHECK-NEXT: %1 = cann.PadD %0 {paddings = array<i64: 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0>} : (tensor<1x3x1x3x1x4xf32>) -> tensor<1x3x2x3x2x4xf32>
// CHECK-NEXT: %2 = cann.Reshape %1 {shape = array<i64: 1, 6, 6, 4>} : (tensor<1x3x2x3x2x4xf32>) -> tensor<1x6x6x4xf32>
// CHECK-NEXT: %3 = cann.StridedSliceD %w {begin = array<i64: 0, 0, 0, 0>, end = array<i64: 0, 0, 0, 0>, strides = array<i64: -1, -1, 1, 1>, begin_mask = 15 : i64, end_mask = 15 : i64, ellipsis_mask = 0 : i64, new_axis_mask = 0 : i64, shrink_axis_mask = 0 : i64} : (tensor<3x3x2x4xf32>) -> tensor<3x3x2x4xf32>
// CHECK-NEXT: %4 = cann.TransposeD %3 {perm = array<i64: 0, 1, 3, 2>} : (tensor<3x3x2x4xf32>) -> tensor<3x3x4x2xf32>
// CHECK-NEXT: %5 = cann.Conv2D %2, %4 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 2, 0, 2, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x6x6x4xf32>, tensor<3x3x4x2xf32>) -> tensor<1x6x6x2xf32>
// CHECK-NEXT: func.return %5 : tensor<1x6x6x2xf32>
func.func @conv_transpose(%dy: tensor<1x3x3x4xf32>, %w: tensor<3x3x2x4xf32>) -> tensor<1x6x6x2xf32> {
  %s = "tf.Const"() {value = dense<[1, 6, 6, 2]> : tensor<4xi32>} : () -> tensor<4xi32>
  %0 = "tf.Conv2DBackpropInput"(%s, %w, %dy) {strides = array<i64: 1, 2, 2, 1>, padding = "SAME", data_format = "NHWC", dilations = array<i64: 1, 1, 1, 1>, explicit_paddings = array<i64>} : (tensor<4xi32>, tensor<3x3x2x4xf32>, tensor<1x3x3x4xf32>) -> tensor<1x6x6x2xf32>
  func.return %0 : tensor<1x6x6x2xf32>
}

