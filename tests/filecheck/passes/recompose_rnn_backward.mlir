// RUN: cann-opt --recompose-rnn %s | filecheck %s
// RUN: cann-opt --recompose-rnn %s | filecheck %s --check-prefix=GONE
// RUN: cann-opt --recompose-rnn --assign-layouts --cann-to-kernel %s | filecheck %s --check-prefix=KERNEL

// Keras's backward LSTM (go_backwards, a Bidirectional layer's second half): the sequence is
// reversed before the loop (ReverseV2, legalized as GatherV2D of [2, 1, 0] on the time axis)
// and the output sequence reversed back after it (here through a transpose to batch-major, as
// Bidirectional does).  recompose-rnn makes the loop one DynamicRNN with direction
// REDIRECTIONAL on the unreversed input: both reversals are gone, the sequence output is y
// itself (the two transposes remain), the final h is y's row 0 (the last step run).
// CHECK-LABEL: func.func @main(
// CHECK-NOT: cann.While
// CHECK: %[[Y:.*]], %{{.*}}, %{{.*}} = cann.DynamicRNN %x0, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {cell_type = "LSTM", direction = "REDIRECTIONAL"
// CHECK: %[[ROW:.*]] = cann.Const dense<0> : tensor<i32>
// CHECK: %[[LAST:.*]] = cann.GatherV2D %[[Y]], %[[ROW]] {axis = 0 : i64} : (tensor<3x1x2xf32>, tensor<i32>) -> tensor<1x2xf32>
// CHECK: %[[T:.*]] = cann.TransposeD %[[Y]] {perm = array<i64: 1, 0, 2>}
// CHECK-NEXT: %[[Y2:.*]] = cann.TransposeD %[[T]] {perm = array<i64: 1, 0, 2>}
// CHECK-NEXT: func.return %[[Y2]], %[[LAST]]
// GONE-LABEL: func.func @main(
// GONE-NOT: dense<[2, 1, 0]>
// GONE-NOT: cann.GatherV2D {{.*}}tensor<3xi32>
// GONE: func.return

// The kernel reads x_t and writes y_t at step T-1-t (the nd view's reverse param).
// KERNEL-LABEL: func.func @main(
// KERNEL: kernel.cube
// KERNEL-SAME: kind = "DynamicRNN"
// KERNEL: kernel.for %{{.*}} {extent = 3 : i64, step = 1 : i64, limit = 3 : i64}
// KERNEL: kernel.load {{.*}} {view = "nd", params = {{{.*}}reverse = 1
// KERNEL: kernel.store {{.*}} {view = "nd", params = {{{.*}}reverse = 1
func.func @main(%x0: tensor<3x1x3xf32>) -> (tensor<3x1x2xf32>, tensor<1x2xf32>) {
  %rev = cann.Const dense<[2, 1, 0]> : tensor<3xi32>
  %x = cann.GatherV2D %x0, %rev {axis = 0 : i64} : (tensor<3x1x3xf32>, tensor<3xi32>) -> tensor<3x1x3xf32>
  %zero = cann.Const dense<0> : tensor<i32>
  %n = cann.Const dense<3> : tensor<i32>
  %buf = cann.Const dense<0.0> : tensor<3x1x2xf32>
  %h0 = cann.Const dense<0.0> : tensor<1x2xf32>
  %w = cann.Const dense<[[0.1, -0.2, 0.3, 0.05, -0.4, 0.2, 0.15, -0.1], [0.2, 0.1, -0.3, 0.25, 0.3, -0.2, 0.05, 0.4], [-0.1, 0.3, 0.2, -0.15, 0.1, 0.4, -0.25, 0.2]]> : tensor<3x8xf32>
  %u = cann.Const dense<[[0.3, 0.1, -0.2, 0.4, 0.2, -0.1, 0.1, 0.3], [-0.2, 0.25, 0.1, -0.3, 0.15, 0.2, -0.4, 0.1]]> : tensor<2x8xf32>
  %b = cann.Const dense<[0.01, -0.02, 1.0, 1.0, 0.03, 0.0, -0.01, 0.02]> : tensor<8xf32>
  %r:10 = cann.While %x, %zero, %n, %zero, %buf, %h0, %h0, %w, %u, %b {cond = @cond, body = @body} : (tensor<3x1x3xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<3x1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>, tensor<3x8xf32>, tensor<2x8xf32>, tensor<8xf32>) -> (tensor<3x1x3xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<3x1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>, tensor<3x8xf32>, tensor<2x8xf32>, tensor<8xf32>)
  %yt = cann.TransposeD %r#4 {perm = array<i64: 1, 0, 2>} : (tensor<3x1x2xf32>) -> tensor<1x3x2xf32>
  %yr = cann.GatherV2D %yt, %rev {axis = 1 : i64} : (tensor<1x3x2xf32>, tensor<3xi32>) -> tensor<1x3x2xf32>
  %y = cann.TransposeD %yr {perm = array<i64: 1, 0, 2>} : (tensor<1x3x2xf32>) -> tensor<3x1x2xf32>
  func.return %y, %r#5 : tensor<3x1x2xf32>, tensor<1x2xf32>
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
