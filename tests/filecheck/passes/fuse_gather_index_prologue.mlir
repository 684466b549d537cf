// An index computation read only by gathers (Keras' Embedding wraps negative ids:
// SelectV2(ids < 0, ids + n, ids)) becomes a cann.FusedKernel marked `prologue`
// (compiler/transforms/fusion/auto.py); cann-to-kernel runs its body on the gather's index tile
// in UB after loading the raw ids (compiler/conversions/cann_to_kernel/gather.py): one kernel.
// RUN: cann-opt --fuse %s | filecheck %s
// RUN: cann-opt --fuse --assign-layouts --cann-to-kernel %s | filecheck %s --check-prefix=KERNEL

// CHECK-LABEL: func.func @embedding
// CHECK:         %[[P:.*]] = cann.FusedKernel %ids {prologue} : (tensor<1x4xi32>) -> tensor<1x4xi32> {
// CHECK:           cann.Less
// CHECK:           cann.SelectV2
// CHECK:         cann.GatherV2D %table, %[[P]]
// KERNEL-LABEL: func.func @embedding
// KERNEL-NEXT:    kernel.vec_kernel %table, %ids {kind = "GatherV2D"
// KERNEL:           kernel.load {{.*}}view = "flat"
// KERNEL:           kernel.vec {{.*}}fn = "Less"
// KERNEL:           kernel.vec {{.*}}fn = "SelectV2"
// KERNEL:           kernel.gather
// KERNEL-NOT:     kernel.vec_kernel
func.func @embedding(%table: tensor<20x16xf32>, %ids: tensor<1x4xi32>) -> tensor<1x4x16xf32> {
  %zero = cann.Const dense<0> : tensor<i32>
  %n = cann.Const dense<20> : tensor<i32>
  %neg = cann.Less %ids, %zero : (tensor<1x4xi32>, tensor<i32>) -> tensor<1x4xi1>
  %wrap = cann.Add %ids, %n : (tensor<1x4xi32>, tensor<i32>) -> tensor<1x4xi32>
  %i = cann.SelectV2 %neg, %wrap, %ids : (tensor<1x4xi1>, tensor<1x4xi32>, tensor<1x4xi32>) -> tensor<1x4xi32>
  %y = cann.GatherV2D %table, %i {axis = 0 : i64} : (tensor<20x16xf32>, tensor<1x4xi32>) -> tensor<1x4x16xf32>
  func.return %y : tensor<1x4x16xf32>
}

// The same ids also returned: the index computation is a kernel of its own.
// KERNEL-LABEL: func.func @ids_also_returned
// CHECK-LABEL: func.func @ids_also_returned
// CHECK-NOT:     {prologue}
// CHECK:         cann.GatherV2D
func.func @ids_also_returned(%table: tensor<20x16xf32>, %ids: tensor<1x4xi32>) -> (tensor<1x4x16xf32>, tensor<1x4xi32>) {
  %n = cann.Const dense<20> : tensor<i32>
  %wrap = cann.Add %ids, %n : (tensor<1x4xi32>, tensor<i32>) -> tensor<1x4xi32>
  %y = cann.GatherV2D %table, %wrap {axis = 0 : i64} : (tensor<20x16xf32>, tensor<1x4xi32>) -> tensor<1x4x16xf32>
  func.return %y, %wrap : tensor<1x4x16xf32>, tensor<1x4xi32>
}
