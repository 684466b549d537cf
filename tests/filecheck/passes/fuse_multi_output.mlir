// Multi-output fusion (compiler/transforms/fusion/auto.py): a value read by two consumers is
// computed in one kernel and stored from UB to GM as an extra output of it.
//  * a residual Add read by a LayerNorm and by another op is the LayerNorm's prologue
//    (escape_host): the LayerNorm moves up to it, its kernel stores the Add's result as a
//    second result (CANN AddLayerNorm's x1 + x2 output), which the other consumer reads;
//  * a pointwise op read outside its group joins it as an extra result of the FusedKernel
//    (yielded after the root), unless a member depends on that outside reader (a cycle).
// RUN: cann-opt --fuse %s | filecheck %s
// RUN: cann-opt --fuse %s | cann-opt --fuse | filecheck %s
// RUN: cann-opt --fuse --assign-layouts --cann-to-kernel %s | filecheck %s --check-prefix=KERNEL
// RUN: cann-opt --fuse --fusion-report=- %s 2>&1 >/dev/null | filecheck %s --check-prefix=REPORT

// REPORT: values read by several consumers stored as extra outputs of the kernel computing them (multi-output fusion): 2
// REPORT-NOT: 'residual'
// REPORT: Add 'cycle' (broadcast)

// The softmax reads h before the LayerNorm does: the LayerNorm moves up to h.
// CHECK-LABEL: func.func @residual_two_consumers
// CHECK:         %[[H:.*]] = cann.FusedKernel %x, %a {prologue}
// CHECK:           cann.Add
// CHECK:         cann.LayerNorm %[[H]]
// CHECK:         cann.SoftmaxV2 %[[H]]
// KERNEL-LABEL: func.func @residual_two_consumers
// KERNEL-NOT:     kind = "Elementwise"
// KERNEL:         %{{.*}}, %[[S:.*]] = kernel.vec_kernel %x, %a, %{{.*}}, %{{.*}} {kind = "LayerNorm"
// KERNEL-SAME:      -> (tensor<2x16x64xf32>, tensor<2x16x64xf32>)
// KERNEL:           ^bb0(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[Y:.*]]: memref<2x16x64xf32, #kernel.space<GM>>, %[[E:.*]]: memref<2x16x64xf32, #kernel.space<GM>>):
// KERNEL:             kernel.vec {{.*}}fn = "Add"
// KERNEL-NEXT:        kernel.store %{{.*}}, %[[E]][%{{.*}}] {view = "rows"
// KERNEL:             kernel.store %{{.*}}, %[[Y]][%{{.*}}] {view = "rows"
// KERNEL:         kernel.vec_kernel %[[S]] {kind = "SoftmaxV2"
func.func @residual_two_consumers(%x: tensor<2x16x64xf32>, %a: tensor<2x16x64xf32>) -> (tensor<2x16x64xf32>, tensor<2x16x64xf32>) {
  %h = cann.Add %x, %a : (tensor<2x16x64xf32>, tensor<2x16x64xf32>) -> tensor<2x16x64xf32> loc("residual")
  %t = cann.SoftmaxV2 %h {axes = array<i64: -1>} : (tensor<2x16x64xf32>) -> tensor<2x16x64xf32>
  %g = cann.Const dense<1.5> : tensor<64xf32>
  %b = cann.Const dense<0.25> : tensor<64xf32>
  %n = cann.LayerNorm %h, %g, %b {begin_norm_axis = 2 : i64, begin_params_axis = 2 : i64, epsilon = 1.0e-05 : f32} : (tensor<2x16x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<2x16x64xf32>
  func.return %n, %t : tensor<2x16x64xf32>, tensor<2x16x64xf32>
}

// s is returned and read by the rest of the chain: one kernel, s its extra result.
// CHECK-LABEL: func.func @intermediate_returned
// CHECK-NEXT:    %[[R:.*]], %[[S:.*]] = cann.FusedKernel %x, %y : (tensor<4x32xf32>, tensor<4x32xf32>) -> (tensor<4x32xf32>, tensor<4x32xf32>)
// CHECK:           %[[A:.*]] = cann.Add
// CHECK-NEXT:      %[[M:.*]] = cann.Mul %[[A]]
// CHECK-NEXT:      cann.Yield %[[M]], %[[A]] : tensor<4x32xf32>, tensor<4x32xf32>
// CHECK:         func.return %[[S]], %[[R]]
// KERNEL-LABEL: func.func @intermediate_returned
// KERNEL:         kernel.vec_kernel %x, %y {kind = "Elementwise"
// KERNEL-SAME:      -> (tensor<4x32xf32>, tensor<4x32xf32>)
// KERNEL:             %[[A:.*]] = kernel.vec {{.*}}fn = "Add"
// KERNEL:             %[[M:.*]] = kernel.vec {{.*}}fn = "Mul"
// KERNEL-NEXT:        kernel.store %[[M]], %{{.*}}[%{{.*}}] {view = "flat"
// KERNEL-NEXT:        kernel.store %[[A]], %{{.*}}[%{{.*}}] {view = "flat"
func.func @intermediate_returned(%x: tensor<4x32xf32>, %y: tensor<4x32xf32>) -> (tensor<4x32xf32>, tensor<4x32xf32>) {
  %s = cann.Add %x, %y : (tensor<4x32xf32>, tensor<4x32xf32>) -> tensor<4x32xf32>
  %r = cann.Mul %s, %s : (tensor<4x32xf32>, tensor<4x32xf32>) -> tensor<4x32xf32>
  func.return %s, %r : tensor<4x32xf32>, tensor<4x32xf32>
}

// The Mul reads the softmax of s: taking s in as an extra result would make a cycle (the
// kernel would need the softmax, which needs the kernel), so s stays a kernel of its own.
// CHECK-LABEL: func.func @cycle
// CHECK-NEXT:    %[[S:.*]] = cann.Add %x, %y
// CHECK-NEXT:    %[[T:.*]] = cann.SoftmaxV2 %[[S]]
// CHECK-NEXT:    cann.Mul %[[S]], %[[T]]
func.func @cycle(%x: tensor<4x32xf32>, %y: tensor<4x32xf32>) -> tensor<4x32xf32> {
  %s = cann.Add %x, %y : (tensor<4x32xf32>, tensor<4x32xf32>) -> tensor<4x32xf32> loc("cycle")
  %t = cann.SoftmaxV2 %s {axes = array<i64: -1>} : (tensor<4x32xf32>) -> tensor<4x32xf32>
  %r = cann.Mul %s, %t : (tensor<4x32xf32>, tensor<4x32xf32>) -> tensor<4x32xf32>
  func.return %r : tensor<4x32xf32>
}
