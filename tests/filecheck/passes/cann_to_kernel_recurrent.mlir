// RUN: cann-opt %s | filecheck %s
// RUN: cann-opt %s --print-op-generic | cann-opt | filecheck %s
// RUN: cann-opt --assign-layouts --cann-to-kernel %s | filecheck %s --check-prefix=KERNEL
// RUN: cann-opt --assign-layouts --cann-to-kernel %s | filecheck %s --check-prefix=RES

// The weights stay in L1 across the time steps: their GM -> L1 loads (weight_input 3x15 and
// weight_hidden 5x15, one tile per gate) come before the time loop, none inside it; the tiling
// says the weights are read once per block of 16 rows (weightReads = 1, not timeStep = 4).
// RES-LABEL: func.func @gru(
// RES: kernel.cube {{.*}}weightReads = 1
// RES-COUNT-3: memref<5x15xf32, #kernel.space<GM>> -> memref<16x16xf32, #kernel.space<L1>>
// RES: kernel.for %{{.*}} {extent = 4 : i64, step = 1 : i64, limit = 4 : i64}
// RES-NOT: memref<5x15xf32, #kernel.space<GM>> ->
// RES-NOT: memref<3x15xf32, #kernel.space<GM>> ->
// RES: func.return

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

// LSTM return_state: output_c read only at the step run last (row T-1) is the final c.  The
// kernel's result gets one more row, [T+1, B, H]: y's T rows (the time loop's stores), then the
// final c (stored once after the loop); y and the c row are StridedSliceD of it, which the
// memory plan makes views when 32-byte aligned; no second kernel computes c.
// KERNEL-LABEL: func.func @lstm_state(
// KERNEL: %[[R:.*]] = kernel.cube %x, %w, %b, %h, %h {kind = "DynamicRNN"
// KERNEL-SAME: -> tensor<4x1x8xf32>
// KERNEL: kernel.for %{{.*}} {extent = 3 : i64, step = 1 : i64, limit = 3 : i64}
// KERNEL: kernel.store {{.*}} {view = "nd", params = {batch = array<i64: 3>, rows = 1 : i64, cols = 8 : i64}}
// KERNEL: %[[ROW:.*]] = kernel.index {value = 3 : i64}
// KERNEL: kernel.store %{{.*}}, %{{.*}}[%[[ROW]], {{.*}} {view = "nd", params = {batch = array<i64: 4>
// KERNEL: %y = kernel.vec_kernel %[[R]] {kind = "StridedSliceD"
// KERNEL: kernel.load {{.*}} {view = "slice_flat", params = {start = array<i64: 0, 0, 0>, step = array<i64: 1, 1, 1>, count = array<i64: 3, 1, 8>}}
// KERNEL: %[[C:.*]] = kernel.vec_kernel %[[R]] {kind = "StridedSliceD"
// KERNEL: kernel.load {{.*}} {view = "slice_flat", params = {start = array<i64: 3, 0, 0>, step = array<i64: 1, 1, 1>, count = array<i64: 1, 1, 8>}}
// KERNEL: %c = kernel.view %[[C]] : (tensor<1x1x8xf32>) -> tensor<1x8xf32>
// KERNEL-NOT: cann.DynamicRNN
// KERNEL: func.return %y, %c
func.func @lstm_state(%x: tensor<3x1x3xf32>, %w: tensor<11x32xf32>, %b: tensor<32xf32>, %h: tensor<1x1x8xf32>) -> (tensor<3x1x8xf32>, tensor<1x8xf32>) {
  %y, %yh, %yc = cann.DynamicRNN %x, %w, %b, %h, %h {cell_type = "LSTM", direction = "UNIDIRECTIONAL", time_major = 1 : i64, activation = "tanh", forget_bias = 0.0 : f32, gate_order = "ifjo"} : (tensor<3x1x3xf32>, tensor<11x32xf32>, tensor<32xf32>, tensor<1x1x8xf32>, tensor<1x1x8xf32>) -> (tensor<3x1x8xf32>, tensor<3x1x8xf32>, tensor<3x1x8xf32>)
  %i = cann.Const dense<2> : tensor<i32>
  %c = cann.GatherV2D %yc, %i {axis = 0 : i64} : (tensor<3x1x8xf32>, tensor<i32>) -> tensor<1x8xf32>
  func.return %y, %c : tensor<3x1x8xf32>, tensor<1x8xf32>
}

// seq_length (CANN's DynamicRNN: a 0/1 float mask [T, B, H]; a Keras mask): per step the mask
// tile is loaded (GM -> UB, row t), c = c + (c' - c) * m and h = h + (h' - h) * m keep the state
// at a masked step; output_h (the kept h) is the kernel's result.
// CHECK-LABEL: func.func @lstm_masked(
// CHECK-NEXT: cann.DynamicRNN %x, %w, %b, %h, %h, %m {
// KERNEL-LABEL: func.func @lstm_masked(
// KERNEL: kernel.cube %x, %w, %b, %h, %h, %m {kind = "DynamicRNN"
// KERNEL: ^bb0({{.*}}, %[[M:.*]]: memref<3x1x8xf32, #kernel.space<GM>>, %[[Y:.*]]: memref<3x1x8xf32, #kernel.space<GM>>):
// KERNEL: kernel.for %{{.*}} {extent = 3 : i64, step = 1 : i64, limit = 3 : i64}
// KERNEL-NEXT: ^bb0(%[[T:.*]]: index):
// KERNEL: %[[MT:.*]] = kernel.load %[[M]][%[[T]], {{.*}} {view = "nd"
// KERNEL: %[[DC:.*]] = kernel.vec {{.*}} {fn = "Sub"
// KERNEL-NEXT: %[[DCM:.*]] = kernel.vec %[[DC]], %[[MT]] {fn = "Mul"
// KERNEL-NEXT: %[[CK:.*]] = kernel.vec {{.*}}, %[[DCM]] {fn = "Add"
// KERNEL-NEXT: kernel.accumulate %{{.*}}, %[[CK]] {fn = "Copy"}
// KERNEL: %[[DH:.*]] = kernel.vec {{.*}} {fn = "Sub"
// KERNEL-NEXT: %[[DHM:.*]] = kernel.vec %[[DH]], %[[MT]] {fn = "Mul"
// KERNEL-NEXT: %[[HK:.*]] = kernel.vec {{.*}}, %[[DHM]] {fn = "Add"
// KERNEL-NEXT: kernel.index
// KERNEL-NEXT: kernel.store %[[HK]], %[[Y]][%[[T]]
// KERNEL-NEXT: kernel.accumulate %{{.*}}, %[[HK]] {fn = "Copy"}
func.func @lstm_masked(%x: tensor<3x1x3xf32>, %w: tensor<11x32xf32>, %b: tensor<32xf32>, %h: tensor<1x1x8xf32>, %m: tensor<3x1x8xf32>) -> tensor<3x1x8xf32> {
  %y, %yh, %yc = cann.DynamicRNN %x, %w, %b, %h, %h, %m {cell_type = "LSTM", direction = "UNIDIRECTIONAL", time_major = 1 : i64, activation = "tanh", forget_bias = 0.0 : f32, gate_order = "ifjo"} : (tensor<3x1x3xf32>, tensor<11x32xf32>, tensor<32xf32>, tensor<1x1x8xf32>, tensor<1x1x8xf32>, tensor<3x1x8xf32>) -> (tensor<3x1x8xf32>, tensor<3x1x8xf32>, tensor<3x1x8xf32>)
  func.return %yh : tensor<3x1x8xf32>
}

// cann.TanhRNN (a Keras SimpleRNN; this project's own op, not a CANN operator): one kernel,
// kind SimpleRNN, per step one L0C accumulating x_t W_x and h_{t-1} W_h, + b, tanh, stored.
// CHECK-LABEL: func.func @simple_rnn(
// CHECK-NEXT: %y = cann.TanhRNN %x, %wx, %wh, %b, %h {direction = "UNIDIRECTIONAL", time_major = 1 : i64, activation = "tanh"}
// KERNEL-LABEL: func.func @simple_rnn(
// KERNEL: %y = kernel.cube %x, %wx, %wh, %b, %h {kind = "SimpleRNN"
// KERNEL-SAME: timeStep = 4, batch = 2, inputSize = 3, hiddenSize = 5, gates = 1
// KERNEL: kernel.for %{{.*}} {extent = 4 : i64, step = 1 : i64, limit = 4 : i64}
// KERNEL-COUNT-2: kernel.mmad
// KERNEL-NEXT: kernel.fixpipe
// KERNEL-NOT: kernel.fixpipe
// KERNEL: kernel.vec {{.*}} {fn = "Tanh"
// KERNEL-NEXT: kernel.index
// KERNEL-NEXT: kernel.store
// KERNEL-NEXT: kernel.accumulate {{.*}} {fn = "Copy"}
// KERNEL-NOT: cann.TanhRNN
func.func @simple_rnn(%x: tensor<4x2x3xf32>, %wx: tensor<3x5xf32>, %wh: tensor<5x5xf32>, %b: tensor<5xf32>, %h: tensor<2x5xf32>) -> tensor<4x2x5xf32> {
  %y = cann.TanhRNN %x, %wx, %wh, %b, %h {direction = "UNIDIRECTIONAL", time_major = 1 : i64, activation = "tanh"} : (tensor<4x2x3xf32>, tensor<3x5xf32>, tensor<5x5xf32>, tensor<5xf32>, tensor<2x5xf32>) -> tensor<4x2x5xf32>
  func.return %y : tensor<4x2x5xf32>
}
