// Node names survive text: cann-opt prints the locations naming TF nodes by default, a fused op
// carries the names of every node it came from (a fused location), and they parse back.
// RUN: cann-opt --tf-to-cann --fuse %s | filecheck %s
// RUN: cann-opt --tf-to-cann --fuse %s | cann-opt | filecheck %s
// An error read from text names the node:
// RUN: not cann-opt --tf-to-cann %S/Inputs/f64_matmul.mlir 2>&1 | filecheck %s --check-prefix=ERR
// --strip-debuginfo drops them; ops without a name print no loc(unknown):
// RUN: cann-opt --tf-to-cann --fuse --strip-debuginfo %s | filecheck %s --check-prefix=STRIP

// CHECK:      cann.Const {{.*}} loc("conv1/filter")
// CHECK:      cann.FusedConv2D {{.*}} loc(fused["conv1/Conv2D", "conv1/BiasAdd", "conv1/Relu"])
// CHECK-NOT:  loc(unknown)

// ERR: f64_matmul.mlir:2:3: error: tf.MatMul cannot be legalized: {{.*}}got float64 [node 'mm64']

// STRIP-NOT: loc(

func.func @main(%x: tensor<1x8x8x3xf32>) -> tensor<1x8x8x4xf32> {
  %w = tf.Const dense<0.5> : tensor<3x3x3x4xf32> loc("conv1/filter")
  %b = tf.Const dense<[0.1, 0.2, 0.3, 0.4]> : tensor<4xf32> loc("conv1/bias")
  %c = tf.Conv2D %x, %w {T = f32, data_format = "NHWC", dilations = array<i64: 1, 1, 1, 1>, padding = "SAME", strides = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32> loc("conv1/Conv2D")
  %a = tf.BiasAdd %c, %b {T = f32, data_format = "NHWC"} : (tensor<1x8x8x4xf32>, tensor<4xf32>) -> tensor<1x8x8x4xf32> loc("conv1/BiasAdd")
  %r = tf.Relu %a {T = f32} : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>  loc("conv1/Relu")
  func.return %r : tensor<1x8x8x4xf32>
}
