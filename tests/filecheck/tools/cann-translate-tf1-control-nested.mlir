// TF1 control flow as the issue found it: a tf.compat.v1.while_loop whose body holds a
// tf.compat.v1.cond on the loop counter that reads a loop invariant (an is_constant Enter); the
// cond's unread switch_t / switch_f go with it.  One StatelessWhile (the invariant is its last
// variable, passed through the body), one StatelessIf inside the body.
// RUN: cann-translate --import-graphdef %S/Inputs/tf1_cond_in_loop.pbtxt --print-debuginfo | filecheck %s
// RUN: cann-translate --import-graphdef %S/Inputs/tf1_cond_in_loop.pbtxt | not grep -E "tf\.(Switch|Merge|Enter|Exit|NextIteration|LoopCond) "

// CHECK:      func.func @main(%arg0: tensor<2x3xf32>{{.*}}) -> tensor<2x3xf32>
// CHECK:        %[[Y:.*]] = tf.Mul {{.*}} loc("mul")
// CHECK:        %{{.*}}, %[[A:.*]], %{{.*}} = tf.StatelessWhile %{{.*}}, %{{.*}}, %[[Y]] {T = [i32, f32, f32], body = @while_body, cond = @while_cond, output_shapes = [#tf.shape<>, #tf.shape<2x3>, #tf.shape<2x3>]{{.*}} loc("while")
// CHECK-NEXT:   tf.Identity %[[A]] {{.*}} loc("out")
// CHECK:      func.func private @while_cond_then(
// CHECK:        tf.AddV2 %arg0, %arg1 {{.*}} loc("while/cond/add")
// CHECK:      func.func private @while_cond_else(
// CHECK:        tf.Sub %arg2, %arg3 {{.*}} loc("while/cond/sub")
// CHECK:      func.func private @while_body(%arg0: tensor<i32>{{.*}}, %arg1: tensor<2x3xf32>{{.*}}, %arg2: tensor<2x3xf32>{{.*}})
// CHECK:        %[[P:.*]] = tf.Greater {{.*}} loc("while/Greater")
// CHECK-NOT:    switch_t
// CHECK:        %[[IF:.*]] = tf.StatelessIf %{{.*}}, %{{.*}}, %arg2, %{{.*}}, %arg2 {{.*}}else_branch = @while_cond_else{{.*}}then_branch = @while_cond_then{{.*}} loc("while/cond")
// CHECK-NEXT:   func.return %{{.*}}, %[[IF]], %arg2 : tensor<i32>, tensor<2x3xf32>, tensor<2x3xf32>
