// Mask prologues (compiler/transforms/fusion/auto.py mask_prologue_problem): a pointwise op or
// kernel read only by attention ops as their mask, directly or through a Reshape (a view), is
// marked `prologue`; each attention's masked softmax kernel
// (compiler/conversions/cann_to_kernel/attention.py masked_softmax_ops) loads its inputs, viewed
// as the mask's rank, broadcast to the scores' rows, and runs the body in UB: no kernel of its own.
// RUN: cann-opt --fuse %s | filecheck %s
// RUN: cann-opt --fuse --assign-layouts --cann-to-kernel %s | filecheck %s --check-prefix=KERNEL

// A BERT padding mask: graph input -> Cast -> Reshape, read by two attention layers.
// CHECK-LABEL: func.func @padding_mask
// CHECK:         %[[P:.*]] = cann.FusedKernel %pm {prologue} : (tensor<1x16xi32>) -> tensor<1x16xi1> {
// CHECK:           cann.Cast
// CHECK:         %[[M:.*]] = cann.Reshape %[[P]]
// CHECK:         cann.FusedMultiHeadAttention %x, %w, %b, %[[M]]
// CHECK:         cann.FusedMultiHeadAttention %h, %w, %b, %[[M]]
// KERNEL-LABEL: func.func @padding_mask
// KERNEL-NOT:     kind = "Elementwise"
// KERNEL:         %[[V:.*]] = kernel.view %pm : (tensor<1x16xi32>) -> tensor<1x1x1x16xi32>
// KERNEL:         kernel.vec_kernel %{{.*}}, %[[V]], %{{.*}} {kind = "SoftmaxV2"
// KERNEL:           kernel.load {{.*}}view = "rows", params = {shape = array<i64: 1, 2, 16, 16>}} : memref<1x1x1x16xi32, #kernel.space<GM>> -> memref<32x16xi32
// KERNEL-NEXT:      kernel.vec {{.*}}fn = "Cast"
// KERNEL-NOT:     kind = "Elementwise"
// KERNEL:         %[[V2:.*]] = kernel.view %pm : (tensor<1x16xi32>) -> tensor<1x1x1x16xi32>
// KERNEL:         kernel.vec_kernel %{{.*}}, %[[V2]], %{{.*}} {kind = "SoftmaxV2"
// KERNEL:           kernel.vec {{.*}}fn = "Cast"
// KERNEL-NOT:     kind = "Elementwise"
// KERNEL:         func.return
func.func @padding_mask(%x: tensor<1x16x32xf32>, %w: tensor<32x96xf32>, %b: tensor<96xf32>, %pm: tensor<1x16xi32>) -> tensor<1x16x32xf32> {
  %c = cann.Cast %pm {dst_type = i1} : (tensor<1x16xi32>) -> tensor<1x16xi1>
  %m = cann.Reshape %c {shape = array<i64: 1, 1, 1, 16>} : (tensor<1x16xi1>) -> tensor<1x1x1x16xi1>
  %h = cann.FusedMultiHeadAttention %x, %w, %b, %m {num_heads = 2 : i64, scale = 0.25 : f32, mask_kind = "select", mask_value = -1.000000e+09 : f32, zero_masked = true} : (tensor<1x16x32xf32>, tensor<32x96xf32>, tensor<96xf32>, tensor<1x1x1x16xi1>) -> tensor<1x16x32xf32>
  %y = cann.FusedMultiHeadAttention %h, %w, %b, %m {num_heads = 2 : i64, scale = 0.25 : f32, mask_kind = "select", mask_value = -1.000000e+09 : f32, zero_masked = true} : (tensor<1x16x32xf32>, tensor<32x96xf32>, tensor<96xf32>, tensor<1x1x1x16xi1>) -> tensor<1x16x32xf32>
  func.return %y : tensor<1x16x32xf32>
}

// A GPT-2 causal mask: min(padding mask [1, 1, 16], lower triangle [1, 16, 16]) > 0, through a
// Reshape to [1, 1, 16, 16]: the broadcast input is viewed as [1, 1, 1, 16], the full one as the mask.
// CHECK-LABEL: func.func @causal_mask
// CHECK:         %[[G:.*]] = cann.FusedKernel %p3, %tri {prologue}
// CHECK:           cann.Minimum
// CHECK:           cann.Greater
// CHECK:         %[[M:.*]] = cann.Reshape %[[G]]
// CHECK:         cann.FusedMultiHeadAttention %x, %w, %b, %[[M]]
// KERNEL-LABEL: func.func @causal_mask
// KERNEL-NOT:     kind = "Elementwise"
// KERNEL:         %[[A:.*]] = kernel.view %p3 : (tensor<1x1x16xi32>) -> tensor<1x1x1x16xi32>
// KERNEL-NEXT:    %[[T:.*]] = kernel.view %tri : (tensor<1x16x16xi32>) -> tensor<1x1x16x16xi32>
// KERNEL:         kernel.vec_kernel %{{.*}}, %[[A]], %[[T]], %{{.*}} {kind = "SoftmaxV2"
// KERNEL:           kernel.vec {{.*}}fn = "Minimum"
// KERNEL:           kernel.vec {{.*}}fn = "Greater"
// KERNEL:           kernel.vec {{.*}}fn = "SelectV2"
// KERNEL-NOT:     kind = "Elementwise"
// KERNEL:         func.return
func.func @causal_mask(%x: tensor<1x16x32xf32>, %w: tensor<32x96xf32>, %b: tensor<96xf32>, %pm: tensor<1x16xi32>) -> tensor<1x16x32xf32> {
  %p3 = cann.Reshape %pm {shape = array<i64: 1, 1, 16>} : (tensor<1x16xi32>) -> tensor<1x1x16xi32>
  %tri = cann.Const dense<1> : tensor<1x16x16xi32>
  %zero = cann.Const dense<0> : tensor<i32>
  %mn = cann.Minimum %p3, %tri : (tensor<1x1x16xi32>, tensor<1x16x16xi32>) -> tensor<1x16x16xi32>
  %gt = cann.Greater %mn, %zero : (tensor<1x16x16xi32>, tensor<i32>) -> tensor<1x16x16xi1>
  %m = cann.Reshape %gt {shape = array<i64: 1, 1, 16, 16>} : (tensor<1x16x16xi1>) -> tensor<1x1x16x16xi1>
  %y = cann.FusedMultiHeadAttention %x, %w, %b, %m {num_heads = 2 : i64, scale = 0.25 : f32, mask_kind = "select", mask_value = -1.000000e+09 : f32, zero_masked = true} : (tensor<1x16x32xf32>, tensor<32x96xf32>, tensor<96xf32>, tensor<1x1x16x16xi1>) -> tensor<1x16x32xf32>
  func.return %y : tensor<1x16x32xf32>
}

// The mask is also a function result: it is materialized, and the attention reads it.
// CHECK-LABEL: func.func @mask_also_returned
// CHECK-NOT:     {prologue}
// CHECK:         %[[C:.*]] = cann.Cast %pm
// CHECK:         cann.Reshape %[[C]]
// KERNEL-LABEL: func.func @mask_also_returned
// KERNEL:         %[[C:.*]] = kernel.vec_kernel %pm {kind = "Elementwise"
// KERNEL:         %[[M:.*]] = kernel.view %[[C]]
// KERNEL:         kernel.vec_kernel %{{.*}}, %[[M]], %{{.*}} {kind = "SoftmaxV2"
func.func @mask_also_returned(%x: tensor<1x16x32xf32>, %w: tensor<32x96xf32>, %b: tensor<96xf32>, %pm: tensor<1x16xi32>) -> (tensor<1x16x32xf32>, tensor<1x16xi1>) {
  %c = cann.Cast %pm {dst_type = i1} : (tensor<1x16xi32>) -> tensor<1x16xi1>
  %m = cann.Reshape %c {shape = array<i64: 1, 1, 1, 16>} : (tensor<1x16xi1>) -> tensor<1x1x1x16xi1>
  %y = cann.FusedMultiHeadAttention %x, %w, %b, %m {num_heads = 2 : i64, scale = 0.25 : f32, mask_kind = "select", mask_value = -1.000000e+09 : f32, zero_masked = true} : (tensor<1x16x32xf32>, tensor<32x96xf32>, tensor<96xf32>, tensor<1x1x1x16xi1>) -> tensor<1x16x32xf32>
  func.return %y, %c : tensor<1x16x32xf32>, tensor<1x16xi1>
}
