// RUN: cann-opt --tf-to-cann %s | filecheck %s
// Common TF ops with CANN library ops (Floor, Ceil, Round = Rint halving to even, Sign, Log1p,
// Expm1, FloorDiv, FloorMod) and those decomposed into existing cann ops: Softsign, Selu (Elu),
// DivNoNan, LogSoftmax, ClipByValue, IsNan / IsInf / IsFinite (compares), Unpack (SplitD),
// OneHot (Equal against 0..depth-1 + SelectV2); ZerosLike / OnesLike / Rank / Size of static
// shapes are constants; ArgMax / ArgMin are index-carrying reductions from existing ops; Atan2
// is CANN's elementwise Atan2(y, x).
// CHECK-LABEL: func.func @unary(
// CHECK-NEXT: %0 = cann.Floor %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: %1 = cann.Ceil %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: %2 = cann.Round %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: %3 = cann.Round %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: %4 = cann.Sign %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: %5 = cann.Log1p %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: %6 = cann.Expm1 %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: func.return %0, %1, %2, %3, %4, %5, %6 : tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>
// CHECK-LABEL: func.func @chains(
// CHECK-NEXT: %lo = cann.Const dense<-5.000000e-01> : tensor<f32>
// CHECK-NEXT: %hi = cann.Const dense<5.000000e-01> : tensor<f32>
// CHECK-NEXT: %0 = cann.Abs %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: %1 = cann.Const dense<1.000000e+00> : tensor<1x1xf32>
// CHECK-NEXT: %2 = cann.Add %0, %1 : (tensor<2x8xf32>, tensor<1x1xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: %3 = cann.RealDiv %x, %2 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: %4 = cann.Elu %x {alpha = 1.67326319 : f32} : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: %5 = cann.Const dense<1.05070102> : tensor<1x1xf32>
// CHECK-NEXT: %6 = cann.Mul %4, %5 : (tensor<2x8xf32>, tensor<1x1xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: %7 = cann.FloorDiv %x, %y : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: %8 = cann.FloorMod %x, %y : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: %9 = cann.Const dense<0.000000e+00> : tensor<1x1xf32>
// CHECK-NEXT: %10 = cann.Equal %y, %9 : (tensor<2x8xf32>, tensor<1x1xf32>) -> tensor<2x8xi1>
// CHECK-NEXT: %11 = cann.RealDiv %x, %y : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: %12 = cann.Const dense<0.000000e+00> : tensor<1x1xf32>
// CHECK-NEXT: %13 = cann.SelectV2 %10, %12, %11 : (tensor<2x8xi1>, tensor<1x1xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: %14 = cann.ReduceMaxD %x {axes = array<i64: 1>, keep_dims = true} : (tensor<2x8xf32>) -> tensor<2x1xf32>
// CHECK-NEXT: %15 = cann.Sub %x, %14 : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: %16 = cann.Exp %15 : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: %17 = cann.ReduceSumD %16 {axes = array<i64: 1>, keep_dims = true} : (tensor<2x8xf32>) -> tensor<2x1xf32>
// CHECK-NEXT: %18 = cann.Log %17 : (tensor<2x1xf32>) -> tensor<2x1xf32>
// CHECK-NEXT: %19 = cann.Sub %15, %18 : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: %20 = cann.Maximum %x, %lo : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
// CHECK-NEXT: %21 = cann.Minimum %20, %hi : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
// CHECK-NEXT: func.return %3, %6, %7, %8, %13, %19, %21 : tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>
// CHECK-LABEL: func.func @preds(
// CHECK-NEXT: %0 = cann.NotEqual %x, %x : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xi1>
// CHECK-NEXT: %1 = cann.Abs %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: %2 = cann.Const dense<0x7f800000> : tensor<1x1xf32>
// CHECK-NEXT: %3 = cann.Equal %1, %2 : (tensor<2x8xf32>, tensor<1x1xf32>) -> tensor<2x8xi1>
// CHECK-NEXT: %4 = cann.Abs %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: %5 = cann.Const dense<0x7f800000> : tensor<1x1xf32>
// CHECK-NEXT: %6 = cann.Less %4, %5 : (tensor<2x8xf32>, tensor<1x1xf32>) -> tensor<2x8xi1>
// CHECK-NEXT: %7 = cann.Const dense<0.000000e+00> : tensor<2x8xf32>
// CHECK-NEXT: %8 = cann.Const dense<1.000000e+00> : tensor<2x8xf32>
// CHECK-NEXT: %9 = cann.Const dense<2> : tensor<i32>
// CHECK-NEXT: %10 = cann.Const dense<16> : tensor<i32>
// CHECK-NEXT: func.return %0, %3, %6, %7, %8, %9, %10 : tensor<2x8xi1>, tensor<2x8xi1>, tensor<2x8xi1>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<i32>, tensor<i32>
// CHECK-LABEL: func.func @unpack_one_hot(
// CHECK-NEXT: %d = cann.Const dense<5> : tensor<i32>
// CHECK-NEXT: %on = cann.Const dense<2.000000e+00> : tensor<f32>
// CHECK-NEXT: %off = cann.Const dense<-1.000000e+00> : tensor<f32>
// CHECK-NEXT: %0, %1 = cann.SplitD %x {split_dim = 1 : i64, num_split = 2 : i64} : (tensor<3x2x4xf32>) -> (tensor<3x1x4xf32>, tensor<3x1x4xf32>)
// CHECK-NEXT: %2 = cann.Reshape %0 {shape = array<i64: 3, 4>} : (tensor<3x1x4xf32>) -> tensor<3x4xf32>
// CHECK-NEXT: %3 = cann.Reshape %1 {shape = array<i64: 3, 4>} : (tensor<3x1x4xf32>) -> tensor<3x4xf32>
// CHECK-NEXT: %4 = cann.Const dense<[[[0], [1], [2], [3], [4]]]> : tensor<1x5x1xi32>
// CHECK-NEXT: %5 = cann.Reshape %i {shape = array<i64: 2, 1, 3>} : (tensor<2x3xi32>) -> tensor<2x1x3xi32>
// CHECK-NEXT: %6 = cann.Equal %5, %4 : (tensor<2x1x3xi32>, tensor<1x5x1xi32>) -> tensor<2x5x3xi1>
// CHECK-NEXT: %7 = cann.Reshape %on {shape = array<i64: 1, 1, 1>} : (tensor<f32>) -> tensor<1x1x1xf32>
// CHECK-NEXT: %8 = cann.Reshape %off {shape = array<i64: 1, 1, 1>} : (tensor<f32>) -> tensor<1x1x1xf32>
// CHECK-NEXT: %9 = cann.SelectV2 %6, %7, %8 : (tensor<2x5x3xi1>, tensor<1x1x1xf32>, tensor<1x1x1xf32>) -> tensor<2x5x3xf32>
// CHECK-NEXT: func.return %2, %3, %9 : tensor<3x4xf32>, tensor<3x4xf32>, tensor<2x5x3xf32>
func.func @unary(%x: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>) {
  %0 = "tf.Floor"(%x) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %1 = "tf.Ceil"(%x) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %2 = "tf.Round"(%x) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %3 = "tf.Rint"(%x) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %4 = "tf.Sign"(%x) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %5 = "tf.Log1p"(%x) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %6 = "tf.Expm1"(%x) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  func.return %0, %1, %2, %3, %4, %5, %6 : tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>
}
func.func @chains(%x: tensor<2x8xf32>, %y: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>) {
  %lo = "tf.Const"() {value = dense<-0.5> : tensor<f32>} : () -> tensor<f32>
  %hi = "tf.Const"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %0 = "tf.Softsign"(%x) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %1 = "tf.Selu"(%x) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %2 = "tf.FloorDiv"(%x, %y) : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %3 = "tf.FloorMod"(%x, %y) : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %4 = "tf.DivNoNan"(%x, %y) : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %5 = "tf.LogSoftmax"(%x) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %6 = "tf.ClipByValue"(%x, %lo, %hi) : (tensor<2x8xf32>, tensor<f32>, tensor<f32>) -> tensor<2x8xf32>
  func.return %0, %1, %2, %3, %4, %5, %6 : tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>
}
func.func @preds(%x: tensor<2x8xf32>) -> (tensor<2x8xi1>, tensor<2x8xi1>, tensor<2x8xi1>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<i32>, tensor<i32>) {
  %0 = "tf.IsNan"(%x) : (tensor<2x8xf32>) -> tensor<2x8xi1>
  %1 = "tf.IsInf"(%x) : (tensor<2x8xf32>) -> tensor<2x8xi1>
  %2 = "tf.IsFinite"(%x) : (tensor<2x8xf32>) -> tensor<2x8xi1>
  %3 = "tf.ZerosLike"(%x) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %4 = "tf.OnesLike"(%x) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %5 = "tf.Rank"(%x) : (tensor<2x8xf32>) -> tensor<i32>
  %6 = "tf.Size"(%x) : (tensor<2x8xf32>) -> tensor<i32>
  func.return %0, %1, %2, %3, %4, %5, %6 : tensor<2x8xi1>, tensor<2x8xi1>, tensor<2x8xi1>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<i32>, tensor<i32>
}
func.func @unpack_one_hot(%x: tensor<3x2x4xf32>, %i: tensor<2x3xi32>) -> (tensor<3x4xf32>, tensor<3x4xf32>, tensor<2x5x3xf32>) {
  %d = "tf.Const"() {value = dense<5> : tensor<i32>} : () -> tensor<i32>
  %on = "tf.Const"() {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %off = "tf.Const"() {value = dense<-1.0> : tensor<f32>} : () -> tensor<f32>
  %0:2 = "tf.Unpack"(%x) {axis = 1 : i64, num = 2 : i64} : (tensor<3x2x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>)
  %1 = "tf.OneHot"(%i, %d, %on, %off) {axis = 1 : i64} : (tensor<2x3xi32>, tensor<i32>, tensor<f32>, tensor<f32>) -> tensor<2x5x3xf32>
  func.return %0#0, %0#1, %1 : tensor<3x4xf32>, tensor<3x4xf32>, tensor<2x5x3xf32>
}
// ArgMax / ArgMin: the first index of the extreme (TF on ties): SelectV2 of the positions where
// x equals its max / min (n elsewhere), then ReduceMinD on int32; Cast for int64 outputs.
// CHECK-LABEL: func.func @arg(
// CHECK: %0 = cann.ReduceMaxD %x {axes = array<i64: 1>, keep_dims = true} : (tensor<3x5xf32>) -> tensor<3x1xf32>
// CHECK-NEXT: %1 = cann.Equal %x, %0 : (tensor<3x5xf32>, tensor<3x1xf32>) -> tensor<3x5xi1>
// CHECK-NEXT: %2 = cann.Const dense<[[0, 1, 2, 3, 4]]> : tensor<1x5xi32>
// CHECK-NEXT: %3 = cann.Const dense<5> : tensor<1x1xi32>
// CHECK-NEXT: %4 = cann.SelectV2 %1, %2, %3 : (tensor<3x5xi1>, tensor<1x5xi32>, tensor<1x1xi32>) -> tensor<3x5xi32>
// CHECK-NEXT: %5 = cann.ReduceMinD %4 {axes = array<i64: 1>, keep_dims = false} : (tensor<3x5xi32>) -> tensor<3xi32>
// CHECK-NEXT: %6 = cann.Cast %5 {dst_type = i64} : (tensor<3xi32>) -> tensor<3xi64>
// CHECK-NEXT: %7 = cann.ReduceMinD %x {axes = array<i64: 0>, keep_dims = true} : (tensor<3x5xf32>) -> tensor<1x5xf32>
// CHECK-NEXT: %8 = cann.Equal %x, %7 : (tensor<3x5xf32>, tensor<1x5xf32>) -> tensor<3x5xi1>
// CHECK-NEXT: %9 = cann.Const dense<[[0], [1], [2]]> : tensor<3x1xi32>
// CHECK-NEXT: %10 = cann.Const dense<3> : tensor<1x1xi32>
// CHECK-NEXT: %11 = cann.SelectV2 %8, %9, %10 : (tensor<3x5xi1>, tensor<3x1xi32>, tensor<1x1xi32>) -> tensor<3x5xi32>
// CHECK-NEXT: %12 = cann.ReduceMinD %11 {axes = array<i64: 0>, keep_dims = false} : (tensor<3x5xi32>) -> tensor<5xi32>
// CHECK-NEXT: func.return %6, %12 : tensor<3xi64>, tensor<5xi32>
func.func @arg(%x: tensor<3x5xf32>) -> (tensor<3xi64>, tensor<5xi32>) {
  %a1 = "tf.Const"() {value = dense<-1> : tensor<i32>} : () -> tensor<i32>
  %a0 = "tf.Const"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
  %0 = "tf.ArgMax"(%x, %a1) : (tensor<3x5xf32>, tensor<i32>) -> tensor<3xi64>
  %1 = "tf.ArgMin"(%x, %a0) : (tensor<3x5xf32>, tensor<i32>) -> tensor<5xi32>
  func.return %0, %1 : tensor<3xi64>, tensor<5xi32>
}
// CHECK-LABEL: func.func @atan2(
// CHECK-NEXT: %0 = cann.Atan2 %y, %x : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: func.return %0
func.func @atan2(%y: tensor<2x8xf32>, %x: tensor<8xf32>) -> tensor<2x8xf32> {
  %0 = "tf.Atan2"(%y, %x) : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  func.return %0 : tensor<2x8xf32>
}
