// RUN: cann-opt -p 'tf-to-cann,set-precision{mode="force_fp16" keep="prob"}' %s | filecheck %s --check-prefix=KEEP
// RUN: cann-opt -p 'tf-to-cann,set-precision{mode="force_fp16" keep="OpType::SoftmaxV2"}' %s | filecheck %s --check-prefix=KEEP
// RUN: cann-opt -p 'tf-to-cann,set-precision{customize="OpType::Relu=float16" outputs="*=float16"}' %s | filecheck %s --check-prefix=CUSTOM
// RUN: cann-opt -p 'tf-to-cann,set-precision{keep="ghost"}' %s 2>&1 >/dev/null | filecheck %s --check-prefix=GONE
// RUN: not cann-opt -p 'tf-to-cann,set-precision{outputs="nosuch=float16"}' %s 2>&1 | filecheck %s --check-prefix=BADOUT

// keep: the named op (or op type) keeps float32 under force_fp16; its neighbours go to float16.
// KEEP: cann.MatMulV2 {{.*}} -> tensor<1x4xf16>
// KEEP: %[[R:.*]] = cann.Relu {{.*}} -> tensor<1x4xf16>
// KEEP-NEXT: %[[C:.*]] = cann.Cast %[[R]] {dst_type = f32}
// KEEP-NEXT: cann.SoftmaxV2 %[[C]] {{.*}} -> tensor<1x4xf32>

// customize: only Relu computes in float16 (no mode); outputs: @main returns float16.
// CUSTOM: func.func @main(%x: tensor<1x8xf32>) -> tensor<1x4xf16>
// CUSTOM: cann.MatMulV2 {{.*}} -> tensor<1x4xf32>
// CUSTOM: cann.Relu {{.*}} : (tensor<1x4xf16>) -> tensor<1x4xf16>
// CUSTOM: cann.SoftmaxV2 {{.*}} -> tensor<1x4xf32>
// CUSTOM-NEXT: %[[O:.*]] = cann.Cast %{{.*}} {dst_type = f16}
// CUSTOM-NEXT: func.return %[[O]] : tensor<1x4xf16>

// GONE: --keep_dtype: 'ghost' was removed by the compile (folded or dead): its setting does not apply
// BADOUT: error: set-precision: outputs: 'nosuch' is no output of the model; they are: prob
func.func @main(%x: tensor<1x8xf32>) -> tensor<1x4xf32> attributes {tf.entry_function = {inputs = "x", outputs = "prob"}} {
  %w = "tf.Const"() {value = dense<0.25> : tensor<8x4xf32>} : () -> tensor<8x4xf32> loc("w")
  %0 = "tf.MatMul"(%x, %w) {transpose_a = false, transpose_b = false} : (tensor<1x8xf32>, tensor<8x4xf32>) -> tensor<1x4xf32> loc("fc")
  %1 = "tf.Relu"(%0) : (tensor<1x4xf32>) -> tensor<1x4xf32> loc("relu")
  %2 = "tf.Softmax"(%1) : (tensor<1x4xf32>) -> tensor<1x4xf32> loc("prob")
  func.return %2 : tensor<1x4xf32>
}
