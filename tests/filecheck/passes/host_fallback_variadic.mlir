// RUN: cann-opt --tf-to-cann --allow-host-fallback %s -o %t.mlir 2>%t.err
// RUN: filecheck %s < %t.mlir
// RUN: filecheck %s --check-prefix=STDERR < %t.err
// RUN: python -c "import numpy as np; np.save('%t.x.npy', np.arange(6, dtype=np.float32).reshape(2, 3)); np.save('%t.y.npy', np.ones((2, 3), np.float32)); np.save('%t.ax.npy', np.int32(0))"
// RUN: cann-run %t.mlir --input x=%t.x.npy --input y=%t.y.npy --input ax=%t.ax.npy | filecheck %s --check-prefix=OUT

// Host fallback of ops with a variadic input: AddN (no table row; N inputs) and ConcatV2 whose
// axis is not a constant (rejected by its row; N values + axis).  The host call keeps every
// operand and TF attribute, and runs TensorFlow's kernel with the inputs regrouped as its OpDef
// says (inputs = [x, y, x]; values = [addn, y], axis).

// CHECK: %[[N:.*]] = cann.HostCall %x, %y, %x {op_type = "AddN", tf_attrs = {N = 3 : i64, T = f32}} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: cann.HostCall %[[N]], %y, %ax {op_type = "ConcatV2", tf_attrs = {N = 2 : i64, T = f32, Tidx = i32}} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<i32>) -> tensor<4x3xf32>

// STDERR: tf-to-cann: 2 op(s) fall back to the host (--allow-host-fallback):
// STDERR-NEXT: tf.AddN has no CANN lowering [node 'addn']
// STDERR-NEXT: tf.ConcatV2 cannot be legalized: input 2 (axis) must be a constant [node 'concat']

// x + y + x = 2 * [0..5] + 1; concat along axis 0 with ones.
// OUT: addn: shape=[2, 3] dtype=float32 min=1 max=11 mean=6
// OUT-NEXT: concat: shape=[4, 3] dtype=float32 min=1 max=11 mean=3.5
func.func @main(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>, %ax: tensor<i32>) -> (tensor<2x3xf32>, tensor<4x3xf32>) attributes {tf.entry_function = {inputs = "x,y,ax", outputs = "addn,concat"}} {
  %0 = "tf.AddN"(%x, %y, %x) {N = 3 : i64, T = f32} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32> loc("addn")
  %1 = "tf.ConcatV2"(%0, %y, %ax) {N = 2 : i64, T = f32, Tidx = i32} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<i32>) -> tensor<4x3xf32> loc("concat")
  func.return %0, %1 : tensor<2x3xf32>, tensor<4x3xf32>
}
