// Shapes inside functions: a tf.function traced with an unknown-rank input (tf.while_loop whose
// body holds a tf.cond with a matmul in each branch), imported with --input-shape x:2,3.  The
// body, cond and branch functions get their argument shapes from their call sites and from loop
// invariance, the control ops their result shapes; tf-to-cann then legalizes every function.
// RUN: cann-translate --import-graphdef %S/Inputs/while_cond_unknown_shapes.pbtxt --input-shape x:2,3 --print-debuginfo | filecheck %s
// RUN: cann-translate --import-graphdef %S/Inputs/while_cond_unknown_shapes.pbtxt --input-shape x:2,3 | cann-opt --tf-to-cann | filecheck %s --check-prefix=CANN

// CHECK:      func.func @main(%arg0: tensor<2x3xf32>{{.*}}) -> tensor<2x3xf32>
// CHECK:        tf.StatelessWhile {{.*}}_output_shapes = [#tf.shape<>, #tf.shape<>, #tf.shape<>, #tf.shape<2x3>]{{.*}} -> (tensor<i32>, tensor<i32>, tensor<i32>, tensor<2x3xf32>) loc("while")
// CHECK:      func.func private @while_cond_true_{{[0-9]+}}(%{{.*}}: tensor<2x3xf32>{{.*}}) -> tensor<2x3xf32>
// CHECK-SAME:   _input_shapes = [#tf.shape<2x3>]
// CHECK:        tf.BatchMatMulV2 {{.*}} : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x3xf32> loc("while/cond/MatMul")
// CHECK:      func.func private @while_body_{{[0-9]+}}({{.*}}, %while_placeholder_1: tensor<2x3xf32>{{.*}}) -> (tensor<i32>, tensor<i32>, tensor<i32>, tensor<2x3xf32>)
// CHECK:        tf.StatelessIf {{.*}} : (tensor<i1>, tensor<2x3xf32>) -> tensor<2x3xf32> loc("while/cond")
// CHECK:      func.func private @while_cond_{{[0-9]+}}({{.*}}, %while_placeholder_1: tensor<2x3xf32>{{.*}}) -> tensor<i1>
// CHECK:      func.func private @while_cond_false_{{[0-9]+}}(%{{.*}}: tensor<2x3xf32>{{.*}}) -> tensor<2x3xf32>

// CANN:       cann.While
// CANN:       cann.If {{.*}} : (tensor<i1>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CANN:       cann.BatchMatMulV2
// CANN-NOT:   tensor<*x
