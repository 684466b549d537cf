// RUN: cann-opt --tf-to-cann --precision-mode=force_fp16 %s | filecheck %s --check-prefix=FP16
// RUN: cann-opt --tf-to-cann --precision-mode=allow_fp32_to_fp16 %s | filecheck %s --check-prefix=CUBE
// RUN: cann-opt --tf-to-cann --precision-mode=allow_mix_precision %s | filecheck %s --check-prefix=MIX
// RUN: cann-opt --tf-to-cann --precision-mode=must_keep_origin_dtype %s | filecheck %s --check-prefix=KEEP
// RUN: cann-opt -p 'tf-to-cann,set-precision{mode=force_fp32}' %s | filecheck %s --check-prefix=KEEP
// RUN: not cann-opt --tf-to-cann --precision-mode=fp8 %s 2>&1 | filecheck %s --check-prefix=BAD

// Every cast the mode adds is a visible cann.Cast; float16 regions have casts only at borders.
// FP16: %[[X:.*]] = cann.Cast %x {dst_type = f16} : (tensor<1x8xf32>) -> tensor<1x8xf16>
// FP16: %[[W:.*]] = cann.Cast %w {dst_type = f16}
// FP16: %[[M:.*]] = cann.MatMulV2 %[[X]], %[[W]] {{.*}} -> tensor<1x4xf16>
// FP16: %[[BB:.*]] = cann.Cast %b {dst_type = f16}
// FP16: %[[A:.*]] = cann.BiasAdd %[[M]], %[[BB]] {{.*}} -> tensor<1x4xf16>
// FP16-NEXT: %[[R:.*]] = cann.Relu %{{.*}} : (tensor<1x4xf16>) -> tensor<1x4xf16>
// FP16-NEXT: %[[S:.*]] = cann.SoftmaxV2 %[[R]] {{.*}} -> tensor<1x4xf16>
// FP16-NEXT: %[[B:.*]] = cann.Cast %[[S]] {dst_type = f32} : (tensor<1x4xf16>) -> tensor<1x4xf32>
// FP16: func.return %[[B]]

// Cube ops only.
// CUBE: cann.MatMulV2 {{.*}} -> tensor<1x4xf16>
// CUBE-NEXT: %[[B:.*]] = cann.Cast %{{.*}} {dst_type = f32}
// CUBE-NEXT: cann.BiasAdd %[[B]], %b {{.*}} -> tensor<1x4xf32>

// White list (MatMulV2) to fp16, grey (BiasAdd, Relu) follows, black (SoftmaxV2) stays fp32.
// MIX: cann.MatMulV2 {{.*}} -> tensor<1x4xf16>
// MIX: cann.BiasAdd {{.*}} -> tensor<1x4xf16>
// MIX: %[[R:.*]] = cann.Relu {{.*}} -> tensor<1x4xf16>
// MIX-NEXT: %[[C:.*]] = cann.Cast %[[R]] {dst_type = f32}
// MIX-NEXT: cann.SoftmaxV2 %[[C]] {{.*}} -> tensor<1x4xf32>

// KEEP-NOT: cann.Cast
// KEEP-NOT: f16

// BAD: error: set-precision: unknown precision mode 'fp8'; known: force_fp16, allow_fp32_to_fp16, allow_mix_precision, must_keep_origin_dtype, force_fp32
func.func @main(%x: tensor<1x8xf32>) -> tensor<1x4xf32> {
  %w = "tf.Const"() {value = dense<0.25> : tensor<8x4xf32>} : () -> tensor<8x4xf32>
  %b = "tf.Const"() {value = dense<0.5> : tensor<4xf32>} : () -> tensor<4xf32>
  %0 = "tf.MatMul"(%x, %w) {transpose_a = false, transpose_b = false} : (tensor<1x8xf32>, tensor<8x4xf32>) -> tensor<1x4xf32>
  %1 = "tf.BiasAdd"(%0, %b) {data_format = "NHWC"} : (tensor<1x4xf32>, tensor<4xf32>) -> tensor<1x4xf32>
  %2 = "tf.Relu"(%1) : (tensor<1x4xf32>) -> tensor<1x4xf32>
  %3 = "tf.Softmax"(%2) : (tensor<1x4xf32>) -> tensor<1x4xf32>
  func.return %3 : tensor<1x4xf32>
}
