// Shape computations on `?` dimensions (issue 16): keras-hub's PositionEmbedding slices its
// table to the sequence length of a `?` tensor and broadcasts it to that tensor's shape.
// tf-to-cann keeps the sizes computed from Shape as Ascend IR's tensor forms (cann.Shape,
// cann.Slice, cann.BroadcastTo); resolve-shapes, at concrete shapes (resolve_shapes_static.mlir: the
// function at sequence 5, as the dispatch makes it), turns them into constants and
// StridedSliceD / BroadcastToD.  A size computed from the data stays tf-to-cann's error naming the node
// (tf_to_cann_table_errors_more.mlir, 'slice_data_size').
// RUN: cann-opt --tf-to-cann %s | filecheck %s
// RUN: cann-opt --tf-to-cann %s --print-op-generic | cann-opt | filecheck %s
// RUN: not cann-opt --tf-to-cann --resolve-shapes %s 2>&1 | filecheck %s --check-prefix=ERR
// At `?` shapes the sizes are no constants: one error naming the node.
// ERR: resolve_shapes.mlir:[[# @LINE + 11]]:3: error: cann.Shape: its sizes are not constants at these shapes (a `?` dimension or the data) [node 'shape']
// ERR-NOT: error

// CHECK-LABEL: func.func @position_embedding
// CHECK: %[[S:.*]] = cann.Shape %x : (tensor<1x?x4xf32>) -> tensor<3xi32>
// CHECK: %[[N:.*]] = cann.StridedSliceD %[[S]]
// CHECK: %[[SIZE:.*]] = cann.ConcatV2D
// CHECK: %[[P:.*]] = cann.Slice %{{.*}}, %{{.*}}, %[[SIZE]] : (tensor<8x4xf32>, tensor<2xi32>, tensor<2xi32>) -> tensor<?x4xf32>
// CHECK: %[[B:.*]] = cann.BroadcastTo %[[P]], %[[S]] : (tensor<?x4xf32>, tensor<3xi32>) -> tensor<1x?x4xf32>
// CHECK: cann.Add %x, %[[B]] : (tensor<1x?x4xf32>, tensor<1x?x4xf32>) -> tensor<1x?x4xf32>
func.func @position_embedding(%x: tensor<1x?x4xf32>, %table: tensor<8x4xf32>) -> tensor<1x?x4xf32> {
  %shape = "tf.Shape"(%x) : (tensor<1x?x4xf32>) -> tensor<3xi32> loc("shape")
  %b = "tf.Const"() {value = dense<1> : tensor<1xi32>} : () -> tensor<1xi32>
  %e = "tf.Const"() {value = dense<2> : tensor<1xi32>} : () -> tensor<1xi32>
  %seq = "tf.StridedSlice"(%shape, %b, %e, %b) {begin_mask = 0 : i64, end_mask = 0 : i64, ellipsis_mask = 0 : i64, new_axis_mask = 0 : i64, shrink_axis_mask = 1 : i64} : (tensor<3xi32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<i32> loc("seq")
  %hidden = "tf.Const"() {value = dense<4> : tensor<i32>} : () -> tensor<i32>
  %size = "tf.Pack"(%seq, %hidden) {axis = 0 : i64} : (tensor<i32>, tensor<i32>) -> tensor<2xi32> loc("size")
  %zero = "tf.Const"() {value = dense<0> : tensor<2xi32>} : () -> tensor<2xi32>
  %pos = "tf.Slice"(%table, %zero, %size) : (tensor<8x4xf32>, tensor<2xi32>, tensor<2xi32>) -> tensor<?x4xf32> loc("slice")
  %bc = "tf.BroadcastTo"(%pos, %shape) : (tensor<?x4xf32>, tensor<3xi32>) -> tensor<1x?x4xf32> loc("broadcast")
  %0 = "tf.AddV2"(%x, %bc) : (tensor<1x?x4xf32>, tensor<1x?x4xf32>) -> tensor<1x?x4xf32>
  func.return %0 : tensor<1x?x4xf32>
}
