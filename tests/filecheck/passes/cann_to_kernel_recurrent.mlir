// RUN: cann-opt %s | filecheck %s
// RUN: cann-opt %s --print-op-generic | cann-opt | filecheck %s
// RUN: cann-opt --assign-layouts --cann-to-kernel %s | filecheck %s --check-prefix=KERNEL

// cann.DynamicGRUV2 (CANN's rnn.h): x [T, B, I], weight_input [I, 3H], weight_hidden [H, 3H],
// the two biases [3H], init_h [B, H]; y and output_h [T, B, H].  Its textual form round-trips.
// CHECK-LABEL: func.func @gru(
// CHECK-NEXT: %y, %yh = cann.DynamicGRUV2 %x, %wi, %wh, %bi, %bh, %h {direction = "UNIDIRECTIONAL", time_major = 1 : i64, activation = "tanh", gate_order = "zrh", reset_after = 1 : i64} : (tensor<4x2x3xf32>, tensor<3x15xf32>, tensor<5x15xf32>, tensor<15xf32>, tensor<15xf32>, tensor<2x5xf32>) -> (tensor<4x2x5xf32>, tensor<4x2x5xf32>)

// Lowered: one kernel.cube for the layer; per step the z and r gates accumulate x_t and
// h_{t-1} in one L0C each, the new gate keeps its x and h parts apart (n = tanh(xn + r * hn));
// output_h is the kernel's y.
// KERNEL-LABEL: func.func @gru(
// KERNEL: %{{.*}} = kernel.cube %x, %wi, %wh, %bi, %bh, %h {kind = "DynamicGRUV2"
// KERNEL-SAME: timeStep = 4, batch = 2, inputSize = 3, hiddenSize = 5, gates = 3
// KERNEL: kernel.for %{{.*}} {extent = 4 : i64, step = 1 : i64, limit = 4 : i64}
// KERNEL-COUNT-4: kernel.fixpipe
// KERNEL: kernel.vec {{.*}} {fn = "Tanh"
// KERNEL: kernel.store {{.*}} {view = "nd"
// KERNEL: kernel.accumulate {{.*}} {fn = "Copy"}
// KERNEL-NOT: cann.DynamicGRUV2
// KERNEL: func.return
func.func @gru(%x: tensor<4x2x3xf32>, %wi: tensor<3x15xf32>, %wh: tensor<5x15xf32>, %bi: tensor<15xf32>, %bh: tensor<15xf32>, %h: tensor<2x5xf32>) -> tensor<4x2x5xf32> {
  %y, %yh = cann.DynamicGRUV2 %x, %wi, %wh, %bi, %bh, %h {direction = "UNIDIRECTIONAL", time_major = 1 : i64, activation = "tanh", gate_order = "zrh", reset_after = 1 : i64} : (tensor<4x2x3xf32>, tensor<3x15xf32>, tensor<5x15xf32>, tensor<15xf32>, tensor<15xf32>, tensor<2x5xf32>) -> (tensor<4x2x5xf32>, tensor<4x2x5xf32>)
  func.return %yh : tensor<4x2x5xf32>
}

// reset_after = false (Keras's GRU(reset_after=False)): n = tanh(W_in x + b_in + W_hn (r * h) +
// b_hn).  The kernel computes z and r first, moves r * h_{t-1} UB -> L1, and that tile (not
// h_{t-1}) is the A operand of the candidate's recurrent matmul: five fixpipes per step (z, r
// with x and h together; n with x and r * h together).
// CHECK-LABEL: func.func @gru_reset_before(
// CHECK-NEXT: cann.DynamicGRUV2 {{.*}}reset_after = 0 : i64
// KERNEL-LABEL: func.func @gru_reset_before(
// KERNEL: kernel.cube {{.*}} {kind = "DynamicGRUV2"
// KERNEL: kernel.for %{{.*}} {extent = 4 : i64, step = 1 : i64, limit = 4 : i64}
// KERNEL-COUNT-2: kernel.fixpipe
// KERNEL: %[[RH:.*]] = kernel.vec {{.*}} {fn = "Mul"
// KERNEL-NEXT: %[[RHL1:.*]] = kernel.load %[[RH]][] {view = "copy"{{.*}}} : memref<16x16xf32, #kernel.space<UB>> -> memref<16x16xf32, #kernel.space<L1>>
// KERNEL: kernel.load %[[RHL1]][] {view = "Zz"
// KERNEL: kernel.fixpipe
// KERNEL-NOT: kernel.fixpipe
// KERNEL: kernel.vec {{.*}} {fn = "Tanh"
// KERNEL: kernel.store {{.*}} {view = "nd"
func.func @gru_reset_before(%x: tensor<4x2x3xf32>, %wi: tensor<3x15xf32>, %wh: tensor<5x15xf32>, %bi: tensor<15xf32>, %bh: tensor<15xf32>, %h: tensor<2x5xf32>) -> tensor<4x2x5xf32> {
  %y, %yh = cann.DynamicGRUV2 %x, %wi, %wh, %bi, %bh, %h {direction = "UNIDIRECTIONAL", time_major = 1 : i64, activation = "tanh", gate_order = "zrh", reset_after = 0 : i64} : (tensor<4x2x3xf32>, tensor<3x15xf32>, tensor<5x15xf32>, tensor<15xf32>, tensor<15xf32>, tensor<2x5xf32>) -> (tensor<4x2x5xf32>, tensor<4x2x5xf32>)
  func.return %yh : tensor<4x2x5xf32>
}
