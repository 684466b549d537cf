// RUN: cann-opt --tf-to-cann --allow-host-fallback --legalization-report %s 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix=STDERR < %t.err
// RUN: cann-opt -p 'tf-to-cann{allow_host_fallback=true}' %s 2>/dev/null | filecheck %s

// Without a table row (Lgamma) or rejected by its row (float64 MatMul), a node runs on the host.
// CHECK: %[[M:.*]] = cann.HostCall %a, %b {op_type = "MatMul", tf_attrs = {transpose_a = false, transpose_b = true}} : (tensor<2x3xf64>, tensor<4x3xf64>) -> tensor<2x4xf64>
// CHECK: %[[R:.*]] = cann.Relu %x
// CHECK: cann.HostCall %[[R]] {op_type = "Lgamma", tf_attrs = {}} : (tensor<2x3xf32>) -> tensor<2x3xf32>

// STDERR: legalization report:
// STDERR-NEXT: TF op   count  CANN op   host  failed
// STDERR-NEXT: Lgamma  1      -         1     0
// STDERR-NEXT: MatMul  1      MatMulV2  1     0
// STDERR-NEXT: Relu    1      Relu      0     0
// STDERR-NEXT: total 3 tf ops: 1 legalized, 2 on the host, 0 failed
// STDERR-NEXT: tf-to-cann: 2 op(s) fall back to the host (--allow-host-fallback):
// STDERR-NEXT: tf.MatMul cannot be legalized: MatMulV2 supports float16, float32, bfloat16; got float64 [node 'mm64']
// STDERR-NEXT: tf.Lgamma has no CANN lowering [node 'lgamma']
func.func @main(%a: tensor<2x3xf64>, %b: tensor<4x3xf64>, %x: tensor<2x3xf32>, %ax: tensor<i32>) -> (tensor<2x4xf64>, tensor<2x3xf32>) {
  %0 = "tf.MatMul"(%a, %b) {transpose_a = false, transpose_b = true} : (tensor<2x3xf64>, tensor<4x3xf64>) -> tensor<2x4xf64> loc("mm64")
  %1 = "tf.Relu"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32> loc("relu")
  %2 = "tf.Lgamma"(%1) : (tensor<2x3xf32>) -> tensor<2x3xf32> loc("lgamma")
  func.return %0, %2 : tensor<2x4xf64>, tensor<2x3xf32>
}
