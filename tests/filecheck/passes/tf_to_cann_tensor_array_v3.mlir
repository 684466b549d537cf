// RUN: cann-opt --tf-to-cann %s | filecheck %s
// RUN: cann-opt --tf-to-cann %s | cann-opt | filecheck %s

// The TF1 TensorArrayV3 family (a graph-mode while_loop, functionalized: imported from the graph
// of tests/pytest/test_tensor_array_v3.py with cann-translate --import-graphdef) as buffers
// (compiler/conversions/tf_to_cann/tensor_array_v3.py): TensorArrayV3 is a preallocated
// [size, element] buffer and its flow a placeholder value; ScatterV3 (unstack) and WriteV3 are
// InplaceUpdate (WriteV3 one row at the loop counter), ReadV3 and GatherV3 (stack) GatherV2D,
// SizeV3 the constant size.  No TensorArray op and no resource type is left.
// CHECK-LABEL: func.func @main(
// CHECK-NOT: tf.TensorArray
// CHECK: cann.InplaceUpdate %{{.*}}, %{{.*}}, %arg0 : (tensor<5x4xf32>, tensor<5xi32>, tensor<5x4xf32>) -> tensor<5x4xf32> loc("TensorArrayUnstack/TensorArrayScatter/TensorArrayScatterV3")
// CHECK: cann.While
// CHECK: cann.GatherV2D %{{.*}}, %{{.*}} {axis = 0 : i64} : (tensor<5x4xf32>, tensor<5xi32>) -> tensor<5x4xf32> loc("TensorArrayStack/TensorArrayGatherV3")
// CHECK-LABEL: func.func private @while_body(
// CHECK-NOT: tf.TensorArray
// CHECK: cann.GatherV2D %arg4, %arg0 {axis = 0 : i64} : (tensor<5x4xf32>, tensor<i32>) -> tensor<4xf32> loc("while/TensorArrayReadV3")
// CHECK: cann.InplaceUpdate %arg1, %{{.*}}, %{{.*}} : (tensor<5x4xf32>, tensor<1xi32>, tensor<1x4xf32>) -> tensor<5x4xf32> loc("while/TensorArrayWrite/TensorArrayWriteV3")
// CHECK-NOT: !tf.resource

builtin.module {
  func.func @main(%arg0: tensor<5x4xf32>) -> tensor<5x4xf32> attributes {tf.entry_function = {inputs = "x", outputs = "out"}} {
    %0 = tf.Placeholder %arg0 {_output_shapes = [#tf.shape<5x4>], shape = #tf.shape<5x4>} : (tensor<5x4xf32>) -> tensor<5x4xf32> loc("x")
    %1 = tf.Const dense<5> : tensor<i32> attributes {_output_shapes = [#tf.shape<>]} loc("TensorArray/size")
    %2, %3 = "tf.TensorArrayV3"(%1) {_output_shapes = [#tf.shape<2>, #tf.shape<>], clear_after_read = true, dtype = f32, dynamic_size = false, element_shape = #tf.shape<4>, identical_element_shapes = true, tensor_array_name = ""} : (tensor<i32>) -> (tensor<2x!tf.resource>, tensor<f32>) loc("TensorArray")
    %4 = tf.Const dense<[5, 4]> : tensor<2xi32> attributes {_output_shapes = [#tf.shape<2>]} loc("TensorArrayUnstack/Shape")
    %5 = tf.Const dense<0> : tensor<1xi32> attributes {_output_shapes = [#tf.shape<1>]} loc("TensorArrayUnstack/strided_slice/stack")
    %6 = tf.Const dense<1> : tensor<1xi32> attributes {_output_shapes = [#tf.shape<1>]} loc("TensorArrayUnstack/strided_slice/stack_1")
    %7 = tf.Const dense<1> : tensor<1xi32> attributes {_output_shapes = [#tf.shape<1>]} loc("TensorArrayUnstack/strided_slice/stack_2")
    %8 = tf.StridedSlice %4, %5, %6, %7 {_output_shapes = [#tf.shape<>], Index = i32, T = i32, begin_mask = 0 : i64, ellipsis_mask = 0 : i64, end_mask = 0 : i64, new_axis_mask = 0 : i64, shrink_axis_mask = 1 : i64} : (tensor<2xi32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<i32> loc("TensorArrayUnstack/strided_slice")
    %9 = tf.Const dense<0> : tensor<i32> attributes {_output_shapes = [#tf.shape<>]} loc("TensorArrayUnstack/range/start")
    %10 = tf.Const dense<1> : tensor<i32> attributes {_output_shapes = [#tf.shape<>]} loc("TensorArrayUnstack/range/delta")
    %11 = tf.Range %9, %8, %10 {_output_shapes = [#tf.shape<5>], Tidx = i32} : (tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<5xi32> loc("TensorArrayUnstack/range")
    %12 = "tf.TensorArrayScatterV3"(%2, %11, %0, %3) {T = f32, _class = ["loc:@x"], _output_shapes = [#tf.shape<>]} : (tensor<2x!tf.resource>, tensor<5xi32>, tensor<5x4xf32>, tensor<f32>) -> tensor<f32> loc("TensorArrayUnstack/TensorArrayScatter/TensorArrayScatterV3")
    %13 = tf.Const dense<5> : tensor<i32> attributes {_output_shapes = [#tf.shape<>]} loc("TensorArray_1/size")
    %14, %15 = "tf.TensorArrayV3"(%13) {_output_shapes = [#tf.shape<2>, #tf.shape<>], clear_after_read = true, dtype = f32, dynamic_size = false, element_shape = #tf.shape<4>, identical_element_shapes = true, tensor_array_name = ""} : (tensor<i32>) -> (tensor<2x!tf.resource>, tensor<f32>) loc("TensorArray_1")
    %16 = tf.Const dense<0> : tensor<i32> attributes {_output_shapes = [#tf.shape<>]} loc("Const")
    %17, %18, %19, %20, %21 = tf.While %16, %15, %14, %2, %12 {T = [i32, f32, !tf.resource, !tf.resource, f32], body = @while_body, cond = @while_cond, output_shapes = [#tf.shape<>, #tf.shape<>, #tf.shape<2>, #tf.shape<2>, #tf.shape<>], parallel_iterations = 10 : i64} : (tensor<i32>, tensor<f32>, tensor<2x!tf.resource>, tensor<2x!tf.resource>, tensor<f32>) -> (tensor<i32>, tensor<f32>, tensor<2x!tf.resource>, tensor<2x!tf.resource>, tensor<f32>) loc("while")
    %22 = tf.Const dense<5> : tensor<i32> attributes {_output_shapes = [#tf.shape<>], _class = ["loc:@TensorArray_1"]} loc("TensorArrayStack/Const")
    %23 = tf.Const dense<0> : tensor<i32> attributes {_output_shapes = [#tf.shape<>], _class = ["loc:@TensorArray_1"]} loc("TensorArrayStack/range/start")
    %24 = tf.Const dense<1> : tensor<i32> attributes {_output_shapes = [#tf.shape<>], _class = ["loc:@TensorArray_1"]} loc("TensorArrayStack/range/delta")
    %25 = tf.Range %23, %22, %24 {_class = ["loc:@TensorArray_1"], _output_shapes = [#tf.shape<5>], Tidx = i32} : (tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<5xi32> loc("TensorArrayStack/range")
    %26 = "tf.TensorArrayGatherV3"(%14, %25, %18) {_class = ["loc:@TensorArray_1"], _output_shapes = [#tf.shape<5x4>], dtype = f32, element_shape = #tf.shape<4>} : (tensor<2x!tf.resource>, tensor<5xi32>, tensor<f32>) -> tensor<5x4xf32> loc("TensorArrayStack/TensorArrayGatherV3")
    %27 = tf.Identity %26 {_output_shapes = [#tf.shape<5x4>], T = f32} : (tensor<5x4xf32>) -> tensor<5x4xf32> loc("out")
    func.return %27 : tensor<5x4xf32>
  }
  func.func private @while_cond(%arg0: tensor<i32>, %arg1: tensor<f32>, %arg2: tensor<2x!tf.resource>, %arg3: tensor<2x!tf.resource>, %arg4: tensor<f32>) -> tensor<i1> attributes {tf.signature = {inputs = "arg0,arg1,arg2,arg3,arg4", outputs = "output_0"}, tf.attrs = {_input_shapes = [#tf.shape<>, #tf.shape<>, #tf.shape<2>, #tf.shape<2>, #tf.shape<>]}, tf.arg_attrs = {"0" = {}, "1" = {}, "2" = {}, "3" = {}, "4" = {}}} {
    %0 = tf.Const dense<5> : tensor<i32> loc("while/Less/y")
    %1 = tf.Less %arg0, %0 {T = i32} : (tensor<i32>, tensor<i32>) -> tensor<i1> loc("while/Less")
    func.return %1 : tensor<i1>
  }
  func.func private @while_body(%arg0: tensor<i32>, %arg1: tensor<f32>, %arg2: tensor<2x!tf.resource>, %arg3: tensor<2x!tf.resource>, %arg4: tensor<f32>) -> (tensor<i32>, tensor<f32>, tensor<2x!tf.resource>, tensor<2x!tf.resource>, tensor<f32>) attributes {tf.signature = {inputs = "arg0,arg1,arg2,arg3,arg4", outputs = "output_0,output_1,output_2,output_3,output_4"}, tf.stateful = true, tf.attrs = {_input_shapes = [#tf.shape<>, #tf.shape<>, #tf.shape<2>, #tf.shape<2>, #tf.shape<>]}, tf.arg_attrs = {"0" = {}, "1" = {}, "2" = {}, "3" = {}, "4" = {}}} {
    %0 = tf.Identity %arg0 {T = i32} : (tensor<i32>) -> tensor<i32> loc("while/Identity")
    %1 = tf.Identity %arg1 {T = f32} : (tensor<f32>) -> tensor<f32> loc("while/Identity_1")
    %2 = "tf.TensorArraySizeV3"(%arg2, %1) : (tensor<2x!tf.resource>, tensor<f32>) -> tensor<i32> loc("while/TensorArraySizeV3")
    %3 = tf.Const dense<1> : tensor<i32> attributes {tf.control_inputs = ["while/Identity"]} loc("while/add/y")
    %4 = tf.AddV2 %0, %3 {T = i32} : (tensor<i32>, tensor<i32>) -> tensor<i32> loc("while/add")
    %5 = "tf.TensorArrayReadV3"(%arg3, %0, %arg4) {dtype = f32} : (tensor<2x!tf.resource>, tensor<i32>, tensor<f32>) -> tensor<*xf32> loc("while/TensorArrayReadV3")
    %6 = tf.Tanh %5 {T = f32} : (tensor<*xf32>) -> tensor<*xf32> loc("while/Tanh")
    %7 = tf.Cast %2 {DstT = f32, SrcT = i32, Truncate = false} : (tensor<i32>) -> tensor<f32> loc("while/Cast")
    %8 = tf.Mul %6, %7 {T = f32} : (tensor<*xf32>, tensor<f32>) -> tensor<*xf32> loc("while/mul")
    %9 = "tf.TensorArrayWriteV3"(%arg2, %0, %8, %1) {T = f32, _class = ["loc:@while/mul"]} : (tensor<2x!tf.resource>, tensor<i32>, tensor<*xf32>, tensor<f32>) -> tensor<f32> loc("while/TensorArrayWrite/TensorArrayWriteV3")
    func.return %4, %9, %arg2, %arg3, %arg4 : tensor<i32>, tensor<f32>, tensor<2x!tf.resource>, tensor<2x!tf.resource>, tensor<f32>
  }
}
