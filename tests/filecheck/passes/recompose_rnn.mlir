// RUN: cann-opt --recompose-rnn %s | filecheck %s
// RUN: cann-opt --recompose-rnn %s | cann-opt | filecheck %s
// RUN: cann-opt --recompose-rnn --assign-layouts --cann-to-kernel %s | filecheck %s --check-prefix=KERNEL
// RUN: not cann-opt %S/Inputs/recurrent_errors.mlir 2>&1 | filecheck %s --check-prefix=ERR

// A gate order CANN's DynamicRNN does not take is a verifier error naming the op and the value.
// ERR: recurrent_errors.mlir:2:3: error: cann.DynamicRNN: 'gate_order' must be one of ijfo, ifjo; got 'iofj'

// The While a Keras LSTM(2) emits on a [1, 3, 3] input (after tf-to-cann and cann-cleanup):
// time < 3 and the step counter < 3, x_t = GatherV2D(X, time), z = x_t @ W + h @ U + b, split
// into i, f, j, o (Keras's order), c' = f*c + i*tanh(j), h' = o*tanh(c'), h' written to row
// `time` of the output buffer.  recompose-rnn makes it one cann.DynamicRNN (gate order "ifjo",
// w = [W; U]), the buffer its y, the final h y's last row.
// CHECK-LABEL: func.func @main(
// CHECK-NOT: cann.While
// CHECK: %[[W:.*]] = cann.Const dense<{{.*}}> : tensor<5x8xf32>
// CHECK: %[[Y:.*]], %{{.*}}, %{{.*}} = cann.DynamicRNN %x, %[[W]], %{{.*}}, %{{.*}}, %{{.*}} {cell_type = "LSTM", direction = "UNIDIRECTIONAL", time_major = 1 : i64, activation = "tanh", forget_bias = 0.000000e+00 : f32, gate_order = "ifjo"} : (tensor<3x1x3xf32>, tensor<5x8xf32>, tensor<8xf32>, tensor<1x1x2xf32>, tensor<1x1x2xf32>) -> (tensor<3x1x2xf32>, tensor<3x1x2xf32>, tensor<3x1x2xf32>)
// CHECK: %[[LAST:.*]] = cann.GatherV2D %[[Y]], %{{.*}} {axis = 0 : i64} : (tensor<3x1x2xf32>, tensor<i32>) -> tensor<1x2xf32>
// CHECK: func.return %[[Y]], %[[LAST]]
// CHECK-NOT: func.func private @body

// One kernel for the layer: a time loop of 3 steps, the gate matmuls (x_t and h_{t-1} into one
// L0C per gate) on the cube, the state in UB carried by kernel.accumulate.
// KERNEL-LABEL: func.func @main(
// KERNEL-COUNT-1: kernel.cube
// KERNEL-SAME: kind = "DynamicRNN"
// KERNEL-SAME: timeStep = 3, batch = 1, inputSize = 3, hiddenSize = 2, gates = 4
// KERNEL: kernel.for %{{.*}} {extent = 3 : i64, step = 1 : i64, limit = 3 : i64}
// KERNEL: kernel.load {{.*}} {view = "copy"{{.*}}} : memref<16x16xf32, #kernel.space<UB>> -> memref<16x16xf32, #kernel.space<L1>>
// KERNEL: kernel.mmad
// KERNEL: kernel.fixpipe
// KERNEL: kernel.vec {{.*}} {fn = "Sigmoid"
// KERNEL: kernel.accumulate {{.*}} {fn = "Mul"}
// KERNEL: kernel.accumulate {{.*}} {fn = "Add"}
// KERNEL: kernel.store
// KERNEL: kernel.accumulate {{.*}} {fn = "Copy"}
// KERNEL-NOT: kernel.while
func.func @main(%x: tensor<3x1x3xf32>) -> (tensor<3x1x2xf32>, tensor<1x2xf32>) {
  %zero = cann.Const dense<0> : tensor<i32>
  %n = cann.Const dense<3> : tensor<i32>
  %buf = cann.Const dense<0.0> : tensor<3x1x2xf32>
  %h0 = cann.Const dense<0.0> : tensor<1x2xf32>
  %w = cann.Const dense<[[0.1, -0.2, 0.3, 0.05, -0.4, 0.2, 0.15, -0.1], [0.2, 0.1, -0.3, 0.25, 0.3, -0.2, 0.05, 0.4], [-0.1, 0.3, 0.2, -0.15, 0.1, 0.4, -0.25, 0.2]]> : tensor<3x8xf32>
  %u = cann.Const dense<[[0.3, 0.1, -0.2, 0.4, 0.2, -0.1, 0.1, 0.3], [-0.2, 0.25, 0.1, -0.3, 0.15, 0.2, -0.4, 0.1]]> : tensor<2x8xf32>
  %b = cann.Const dense<[0.01, -0.02, 1.0, 1.0, 0.03, 0.0, -0.01, 0.02]> : tensor<8xf32>
  %r:10 = cann.While %x, %zero, %n, %zero, %buf, %h0, %h0, %w, %u, %b {cond = @cond, body = @body} : (tensor<3x1x3xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<3x1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>, tensor<3x8xf32>, tensor<2x8xf32>, tensor<8xf32>) -> (tensor<3x1x3xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<3x1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>, tensor<3x8xf32>, tensor<2x8xf32>, tensor<8xf32>)
  func.return %r#4, %r#5 : tensor<3x1x2xf32>, tensor<1x2xf32>
}
func.func private @cond(%X: tensor<3x1x3xf32>, %i: tensor<i32>, %n: tensor<i32>, %t: tensor<i32>, %buf: tensor<3x1x2xf32>, %h: tensor<1x2xf32>, %c: tensor<1x2xf32>, %w: tensor<3x8xf32>, %u: tensor<2x8xf32>, %b: tensor<8xf32>) -> tensor<i1> {
  %three = cann.Const dense<3> : tensor<i32>
  %0 = cann.Less %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
  %1 = cann.Less %t, %three : (tensor<i32>, tensor<i32>) -> tensor<i1>
  %2 = cann.LogicalAnd %0, %1 : (tensor<i1>, tensor<i1>) -> tensor<i1>
  func.return %2 : tensor<i1>
}
func.func private @body(%X: tensor<3x1x3xf32>, %i: tensor<i32>, %n: tensor<i32>, %t: tensor<i32>, %buf: tensor<3x1x2xf32>, %h: tensor<1x2xf32>, %c: tensor<1x2xf32>, %w: tensor<3x8xf32>, %u: tensor<2x8xf32>, %b: tensor<8xf32>) -> (tensor<3x1x3xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<3x1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>, tensor<3x8xf32>, tensor<2x8xf32>, tensor<8xf32>) {
  %one = cann.Const dense<1> : tensor<i32>
  %i1 = cann.Add %i, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
  %t1 = cann.Add %t, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
  %xt = cann.GatherV2D %X, %t {axis = 0 : i64} : (tensor<3x1x3xf32>, tensor<i32>) -> tensor<1x3xf32>
  %a = cann.MatMulV2 %xt, %w {transpose_x1 = false, transpose_x2 = false} : (tensor<1x3xf32>, tensor<3x8xf32>) -> tensor<1x8xf32>
  %r = cann.MatMulV2 %h, %u {transpose_x1 = false, transpose_x2 = false} : (tensor<1x2xf32>, tensor<2x8xf32>) -> tensor<1x8xf32>
  %s = cann.Add %a, %r : (tensor<1x8xf32>, tensor<1x8xf32>) -> tensor<1x8xf32>
  %z = cann.BiasAdd %s, %b {data_format = "NHWC"} : (tensor<1x8xf32>, tensor<8xf32>) -> tensor<1x8xf32>
  %zi, %zf, %zj, %zo = cann.SplitD %z {split_dim = 1 : i64, num_split = 4 : i64} : (tensor<1x8xf32>) -> (tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>)
  %ig = cann.Sigmoid %zi : (tensor<1x2xf32>) -> tensor<1x2xf32>
  %fg = cann.Sigmoid %zf : (tensor<1x2xf32>) -> tensor<1x2xf32>
  %jg = cann.Tanh %zj : (tensor<1x2xf32>) -> tensor<1x2xf32>
  %og = cann.Sigmoid %zo : (tensor<1x2xf32>) -> tensor<1x2xf32>
  %fc = cann.Mul %fg, %c : (tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<1x2xf32>
  %ij = cann.Mul %ig, %jg : (tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<1x2xf32>
  %c1 = cann.Add %fc, %ij : (tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<1x2xf32>
  %tc = cann.Tanh %c1 : (tensor<1x2xf32>) -> tensor<1x2xf32>
  %h1 = cann.Mul %og, %tc : (tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<1x2xf32>
  %iota = cann.Const dense<[[[0]], [[1]], [[2]]]> : tensor<3x1x1xi32>
  %m = cann.Equal %iota, %t : (tensor<3x1x1xi32>, tensor<i32>) -> tensor<3x1x1xi1>
  %item = cann.Reshape %h1 {shape = array<i64: 1, 1, 2>} : (tensor<1x2xf32>) -> tensor<1x1x2xf32>
  %buf1 = cann.SelectV2 %m, %item, %buf : (tensor<3x1x1xi1>, tensor<1x1x2xf32>, tensor<3x1x2xf32>) -> tensor<3x1x2xf32>
  func.return %X, %i1, %n, %t1, %buf1, %h1, %c1, %w, %u, %b : tensor<3x1x3xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<3x1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>, tensor<3x8xf32>, tensor<2x8xf32>, tensor<8xf32>
}
