// TF1 control flow (a tf.compat.v1.while_loop whose second variable grows, and a
// tf.compat.v1.cond) is functionalized on import: one StatelessWhile and one StatelessIf with
// generated functions; the loop's growing dim is `?`, the counter stays a scalar.
// RUN: cann-translate --import-graphdef %S/Inputs/tf1_control_flow.pbtxt --print-debuginfo | filecheck %s
// The printed form parses back, and cann-opt reads the GraphDef directly:
// RUN: cann-translate --import-graphdef %S/Inputs/tf1_control_flow.pbtxt --print-op-generic --print-debuginfo | cann-opt --print-debuginfo | filecheck %s
// RUN: cann-opt %S/Inputs/tf1_control_flow.pbtxt --print-debuginfo | filecheck %s
// No raw TF1 control-flow op is left:
// RUN: cann-translate --import-graphdef %S/Inputs/tf1_control_flow.pbtxt | not grep -E "tf\.(Switch|Merge|Enter|Exit|NextIteration|LoopCond) "

// CHECK:      func.func @main(%arg0: tensor<2x3xf32>{{.*}}) -> (tensor<?x3xf32>, tensor<2x3xf32>) attributes {tf.entry_function = {inputs = "x", outputs = "grown,picked"}}
// CHECK:        %[[X:.*]] = tf.Placeholder %arg0
// CHECK:        %[[ZERO:.*]] = tf.Const dense<0> : tensor<i32> loc("zero")
// CHECK-NEXT:   %{{.*}}, %[[GROWN:.*]] = tf.StatelessWhile %[[ZERO]], %[[X]] {T = [i32, f32], body = @loop_body, cond = @loop_cond, output_shapes = [#tf.shape<>, #tf.shape<?x3>], parallel_iterations = 10 : i64} : (tensor<i32>, tensor<2x3xf32>) -> (tensor<i32>, tensor<?x3xf32>) loc("loop")
// CHECK-NEXT:   tf.Identity %[[GROWN]] {T = f32} : (tensor<?x3xf32>) -> tensor<?x3xf32> loc("grown")
// CHECK:        %[[P:.*]] = tf.Greater
// CHECK-NEXT:   %[[IF:.*]] = tf.StatelessIf %[[P]], %[[P]], %[[X]], %[[X]] {Tcond = i1, Tin = [i1, f32, f32], Tout = [f32], else_branch = @branch_else, output_shapes = [#tf.shape<2x3>], then_branch = @branch_then} : (tensor<i1>, tensor<i1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32> loc("branch")

// CHECK:      func.func private @loop_cond(%arg0: tensor<i32>{{.*}}, %arg1: tensor<?x3xf32>{{.*}}) -> tensor<i1>
// CHECK-SAME:   tf.attrs = {_input_shapes = [#tf.shape<>, #tf.shape<?x3>]}
// CHECK:        %[[LIM:.*]] = tf.Const dense<3> : tensor<i32> loc("loop/Less/y")
// CHECK-NEXT:   %[[LT:.*]] = tf.Less %arg0, %[[LIM]] {T = i32} : (tensor<i32>, tensor<i32>) -> tensor<i1> loc("loop/Less")
// CHECK-NEXT:   func.return %[[LT]] : tensor<i1>

// CHECK:      func.func private @loop_body(%arg0: tensor<i32>{{.*}}, %arg1: tensor<?x3xf32>{{.*}}) -> (tensor<i32>, tensor<?x3xf32>)
// CHECK:        tf.ConcatV2 {{.*}} -> tensor<?x3xf32> loc("loop/concat")
// CHECK-NEXT:   func.return %{{.*}}, %{{.*}} : tensor<i32>, tensor<?x3xf32>

// CHECK:      func.func private @branch_then(%arg0: tensor<i1>{{.*}}, %arg1: tensor<2x3xf32>{{.*}}, %arg2: tensor<2x3xf32>{{.*}}) -> tensor<2x3xf32>
// CHECK:        tf.Mul %arg1, %{{.*}} loc("branch/mul")
// CHECK:      func.func private @branch_else(
// CHECK:        tf.Sub %arg2, %{{.*}} loc("branch/sub")
