// RUN: cann-opt --legalization-report %s 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix=REPORT < %t.err
// RUN: cann-opt --legalization-report --allow-host-fallback %s 2>&1 >/dev/null | filecheck %s --check-prefix=HOST
// RUN: cann-opt -p legalization-report %s 2>&1 >/dev/null | filecheck %s --check-prefix=REPORT

// `--legalization-report` without tf-to-cann: the analysis runs on a copy and prints the table;
// the IR comes out unchanged and nodes that would fail are counted, not raised (exit code 0).
// With --allow-host-fallback they are counted as host calls instead.

// CHECK: tf.Relu %x
// CHECK: "tf.Lgamma"(%0)
// CHECK: tf.MatMul %a, %b
// CHECK-NOT: cann.

// REPORT: legalization report:
// REPORT-NEXT: TF op   count  CANN op   host  failed
// REPORT-NEXT: Lgamma  1      -         0     1
// REPORT-NEXT: MatMul  1      MatMulV2  0     1
// REPORT-NEXT: Relu    1      Relu      0     0
// REPORT-NEXT: total 3 tf ops: 1 legalized, 0 on the host, 2 failed
// REPORT-NOT: error

// HOST: Lgamma  1      -         1     0
// HOST: total 3 tf ops: 1 legalized, 2 on the host, 0 failed
// HOST-NOT: fall back
func.func @main(%a: tensor<2x3xf64>, %b: tensor<4x3xf64>, %x: tensor<2x3xf32>, %ax: tensor<i32>) -> (tensor<2x4xf64>, tensor<2x3xf32>) {
  %0 = "tf.Relu"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32> loc("relu")
  %1 = "tf.Lgamma"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32> loc("lgamma")
  %2 = "tf.MatMul"(%a, %b) {transpose_a = false, transpose_b = true} : (tensor<2x3xf64>, tensor<4x3xf64>) -> tensor<2x4xf64> loc("mm64")
  func.return %2, %1 : tensor<2x4xf64>, tensor<2x3xf32>
}
