// TensorLists are buffers: tf-to-cann first gives every !tf.variant handle the type of the
// buffer it stands for (Reserve: its constant element_shape and num_elements; FromTensor: the
// tensor), through the While's loop variables and the body's arguments and results; then
// Reserve is a buffer of zeros, FromTensor the tensor, GetItem a GatherV2D of row i, SetItem an
// InplaceUpdate of row i (the buffer written in place), Stack the buffer, Length / ElementShape
// constants.
// RUN: cann-opt --tf-to-cann %s | filecheck %s
// RUN: cann-opt --tf-to-cann %s | cann-opt | filecheck %s

// CHECK:      func.func @main(%{{.*}}: tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<i32>, tensor<1xi32>)
// CHECK-DAG:    %[[ZEROS:.*]] = cann.Const dense<0.000000e+00> : tensor<4x2xf32>
// CHECK:        %{{.*}}, %{{.*}}, %[[OUT:.*]] = cann.While %{{.*}}, %{{.*}}, %[[ZEROS]] {{.*}}body = @body{{.*}} : (tensor<i32>, tensor<4x2xf32>, tensor<4x2xf32>) -> (tensor<i32>, tensor<4x2xf32>, tensor<4x2xf32>)
// CHECK-DAG:    cann.Const dense<4> : tensor<i32>
// CHECK-DAG:    cann.Const dense<2> : tensor<1xi32>
// CHECK:        func.return %[[OUT]], %{{.*}}, %{{.*}} : tensor<4x2xf32>, tensor<i32>, tensor<1xi32>
// CHECK:      func.func private @body(%[[I:.*]]: tensor<i32>, %[[L:.*]]: tensor<4x2xf32>, %[[O:.*]]: tensor<4x2xf32>) -> (tensor<i32>, tensor<4x2xf32>, tensor<4x2xf32>)
// CHECK:        %[[ROW:.*]] = cann.GatherV2D %[[L]], %[[I]] {axis = 0 : i64} : (tensor<4x2xf32>, tensor<i32>) -> tensor<2xf32>
// CHECK:        %[[Y:.*]] = cann.Mul %[[ROW]]
// CHECK:        %[[IDX:.*]] = cann.Reshape %[[I]] {shape = array<i64: 1>} : (tensor<i32>) -> tensor<1xi32>
// CHECK:        %[[ITEM:.*]] = cann.Reshape %[[Y]] {shape = array<i64: 1, 2>}
// CHECK:        %[[NEW:.*]] = cann.InplaceUpdate %[[O]], %[[IDX]], %[[ITEM]] : (tensor<4x2xf32>, tensor<1xi32>, tensor<1x2xf32>) -> tensor<4x2xf32>
// CHECK:        func.return %{{.*}}, %[[L]], %[[NEW]] : tensor<i32>, tensor<4x2xf32>, tensor<4x2xf32>
// CHECK:      func.func private @cond(%{{.*}}: tensor<i32>, %{{.*}}: tensor<4x2xf32>, %{{.*}}: tensor<4x2xf32>) -> tensor<i1>

func.func @main(%x: tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<i32>, tensor<1xi32>) {
  %es = tf.Const dense<2> : tensor<1xi32>
  %n = tf.Const dense<4> : tensor<i32>
  %zero = tf.Const dense<0> : tensor<i32>
  %in = "tf.TensorListFromTensor"(%x, %es) {element_dtype = f32, shape_type = i32} : (tensor<4x2xf32>, tensor<1xi32>) -> tensor<!tf.variant>
  %res = "tf.TensorListReserve"(%es, %n) {element_dtype = f32, shape_type = i32} : (tensor<1xi32>, tensor<i32>) -> tensor<!tf.variant>
  %i, %l, %o = tf.StatelessWhile %zero, %in, %res {T = [i32, !tf.variant, !tf.variant], body = @body, cond = @cond, output_shapes = [#tf.shape<>, #tf.shape<>, #tf.shape<>], parallel_iterations = 10 : i64} : (tensor<i32>, tensor<!tf.variant>, tensor<!tf.variant>) -> (tensor<i32>, tensor<!tf.variant>, tensor<!tf.variant>)
  %s = "tf.TensorListStack"(%o, %es) {element_dtype = f32, num_elements = 4 : i64} : (tensor<!tf.variant>, tensor<1xi32>) -> tensor<4x2xf32>
  %len = "tf.TensorListLength"(%o) : (tensor<!tf.variant>) -> tensor<i32>
  %shape = "tf.TensorListElementShape"(%o) {shape_type = i32} : (tensor<!tf.variant>) -> tensor<1xi32>
  func.return %s, %len, %shape : tensor<4x2xf32>, tensor<i32>, tensor<1xi32>
}
func.func private @body(%i: tensor<i32>, %l: tensor<!tf.variant>, %o: tensor<!tf.variant>) -> (tensor<i32>, tensor<!tf.variant>, tensor<!tf.variant>) {
  %es = tf.Const dense<2> : tensor<1xi32>
  %one = tf.Const dense<1> : tensor<i32>
  %two = tf.Const dense<2.0> : tensor<f32>
  %row = "tf.TensorListGetItem"(%l, %i, %es) {element_dtype = f32} : (tensor<!tf.variant>, tensor<i32>, tensor<1xi32>) -> tensor<2xf32>
  %y = tf.Mul %row, %two {T = f32} : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  %o2 = "tf.TensorListSetItem"(%o, %i, %y) {element_dtype = f32} : (tensor<!tf.variant>, tensor<i32>, tensor<2xf32>) -> tensor<!tf.variant>
  %i2 = tf.AddV2 %i, %one {T = i32} : (tensor<i32>, tensor<i32>) -> tensor<i32>
  func.return %i2, %l, %o2 : tensor<i32>, tensor<!tf.variant>, tensor<!tf.variant>
}
func.func private @cond(%i: tensor<i32>, %l: tensor<!tf.variant>, %o: tensor<!tf.variant>) -> tensor<i1> {
  %n = tf.Const dense<4> : tensor<i32>
  %p = tf.Less %i, %n {T = i32} : (tensor<i32>, tensor<i32>) -> tensor<i1>
  func.return %p : tensor<i1>
}
