// RUN: cann-opt %s | filecheck %s
// RUN: cann-opt %s --print-op-generic | cann-opt | filecheck %s

// Every TensorFlow attribute kind in its printed form, typed ops, a generic op (no typed class),
// control inputs, and functional control flow referring to functions by symbol.

func.func @main(%arg0: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %x = tf.Placeholder %arg0 {shape = #tf.shape<?x4>} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %s = tf.Const #tf.strings<["a", "\FF\00", "", "xyz"] : tensor<2x2x!tf.string>>
  %q = tf.Const #tf.tensor_proto<"08081204120208014A080000803F00000040"> : tensor<1xcomplex<f32>>
  %u = "tf.MyCustomOp"(%x) {i = -7 : i64, f = 2.500000e-01 : f32, b = true, s = "hello", raw = #tf.bytes<"\FF\00">, t = bf16, ts = !tf.string, sh = #tf.shape<1x?>, sh_unknown = #tf.shape<*>, sh_scalar = #tf.shape<>, fn = @some_fn, fn_attrs = #tf.func<@other_fn, {k = 3 : i64}>, li = array<i64: 1, 2>, lt = [i8, f16], lsh = [#tf.shape<2>, #tf.shape<*>], tf.control_inputs = ["x"]} : (tensor<?x4xf32>) -> tensor<*xf32>
  "tf.NoOp"() {tf.control_inputs = ["x"]} : () -> ()
  %c = tf.Const dense<true> : tensor<i1>
  %r = tf.StatelessIf %c, %x {Tcond = i1, Tin = [f32], Tout = [f32], then_branch = @then, else_branch = @else, output_shapes = [#tf.shape<?x4>]} : (tensor<i1>, tensor<?x4xf32>) -> tensor<?x4xf32>
  %c32 = tf.Const dense<1> : tensor<i32>
  %a, %b = tf.Split %c32, %r {num_split = 2 : i64, T = f32} : (tensor<i32>, tensor<?x4xf32>) -> (tensor<?x2xf32>, tensor<?x2xf32>)
  func.return %r : tensor<?x4xf32>
}
func.func private @then(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {
  func.return %a : tensor<?x4xf32>
}
func.func private @else(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %n = tf.Neg %a {T = f32} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  func.return %n : tensor<?x4xf32>
}

// CHECK:      tf.Placeholder %arg0 {shape = #tf.shape<?x4>}
// CHECK-NEXT: tf.Const #tf.strings<["a", "\FF\00", "", "xyz"] : tensor<2x2x!tf.string>>
// CHECK-NEXT: tf.Const #tf.tensor_proto<"08081204120208014A080000803F00000040"> : tensor<1xcomplex<f32>>
// CHECK-NEXT: "tf.MyCustomOp"(%{{.*}}) {i = -7 : i64, f = 2.500000e-01 : f32, b = true, s = "hello", raw = #tf.bytes<"\FF\00">, t = bf16, ts = !tf.string, sh = #tf.shape<1x?>, sh_unknown = #tf.shape<*>, sh_scalar = #tf.shape<>, fn = @some_fn, fn_attrs = #tf.func<@other_fn, {k = 3 : i64}>, li = array<i64: 1, 2>, lt = [i8, f16], lsh = [#tf.shape<2>, #tf.shape<*>], tf.control_inputs = ["x"]} : (tensor<?x4xf32>) -> tensor<*xf32>
// CHECK-NEXT: "tf.NoOp"() {{(<{}> )?}}{tf.control_inputs = ["x"]} : () -> ()
// CHECK:      tf.StatelessIf %{{.*}}, %{{.*}} {Tcond = i1, Tin = [f32], Tout = [f32], then_branch = @then, else_branch = @else, output_shapes = [#tf.shape<?x4>]}
// CHECK:      %{{.*}}, %{{.*}} = tf.Split %{{.*}}, %{{.*}} {num_split = 2 : i64, T = f32}
// CHECK:      func.func private @else
// CHECK-NEXT:   tf.Neg
