// RUN: cann-opt --assign-layouts %s | filecheck %s
// RUN: cann-opt --assign-layouts --cann-to-kernel %s | filecheck %s --check-prefix=KERNEL

// FusedMultiHeadAttention with its heads merged (y [B, S, N*D]) runs on FRACTAL_NZ
// (dialects/cann/fused.py RunsOn, layout_assignment.py rule_attention): between two matmuls
// it reads x and writes y as NZ, with no TransData around it.  At the kernel level the QKV GEMM
// loads x as NZ tiles and the P @ V GEMM stores each head's columns of y as NZ tiles ("heads",
// nz = 1); the workspaces between them stay row-major.
// CHECK-LABEL: func.func @attention_between_matmuls
// CHECK:         %[[X:.*]] = cann.BatchMatMulV2 {{.*}} -> tensor<1x2x1x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [1, 16, 32]>>
// CHECK-NEXT:    %[[Y:.*]] = cann.FusedMultiHeadAttention %[[X]], %w, %b {{.*}} : (tensor<1x2x1x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [1, 16, 32]>>, tensor<32x96xf32>, tensor<96xf32>) -> tensor<1x2x1x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [1, 16, 32]>>
// CHECK-NOT:     cann.TransData
// CHECK:         %[[O:.*]] = cann.BatchMatMulV2 %[[Y]], {{.*}} -> tensor<1x2x1x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [1, 16, 32]>>
// CHECK-NEXT:    cann.TransData %[[O]] {src_format = "FRACTAL_NZ", dst_format = "ND", groups = 1 : i64}
// KERNEL-LABEL: func.func @attention_between_matmuls
// KERNEL:         %[[QKV:.*]] = kernel.cube %{{.*}}, %{{.*}}, %{{.*}} {{.*}}kind = "MatMulV2"{{.*}} -> tensor<1x16x96xf32>
// KERNEL:           kernel.load {{.*}}view = "nz", params = {transpose = 0 : i64, batch = array<i64: 1>, rows = 16 : i64, cols = 32 : i64}
// KERNEL:         kernel.cube %{{.*}}, %[[QKV]] {{.*}}kind = "BatchMatMulV2"{{.*}} -> tensor<1x2x1x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [1, 16, 32]>>
// KERNEL:           kernel.store {{.*}}view = "heads", params = {heads = 2 : i64, head_dim = 16 : i64, col_offset = 0 : i64, nz = 1 : i64, rows = 16 : i64}
func.func @attention_between_matmuls(%a: tensor<1x16x32xf32>, %b: tensor<96xf32>) -> tensor<1x16x32xf32> {
  %w0 = cann.Const dense<0.1> : tensor<32x32xf32>
  %w = cann.Const dense<0.2> : tensor<32x96xf32>
  %wo = cann.Const dense<0.3> : tensor<32x32xf32>
  %x = cann.BatchMatMulV2 %a, %w0 {adj_x1 = false, adj_x2 = false} : (tensor<1x16x32xf32>, tensor<32x32xf32>) -> tensor<1x16x32xf32>
  %y = cann.FusedMultiHeadAttention %x, %w, %b {num_heads = 2 : i64, scale = 0.25 : f32} : (tensor<1x16x32xf32>, tensor<32x96xf32>, tensor<96xf32>) -> tensor<1x16x32xf32>
  %o = cann.BatchMatMulV2 %y, %wo {adj_x1 = false, adj_x2 = false} : (tensor<1x16x32xf32>, tensor<32x32xf32>) -> tensor<1x16x32xf32>
  func.return %o : tensor<1x16x32xf32>
}

// Heads not merged (y [B, S, N, D]): N would be the fractal rows, so the attention stays ND and
// the layout report names it (rule_attention's reason) at the TransData in front of it.
// CHECK-LABEL: func.func @attention_heads_not_merged
// CHECK:         %[[X:.*]] = cann.BatchMatMulV2 {{.*}} -> tensor<1x2x1x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [1, 16, 32]>>
// CHECK-NEXT:    %[[T:.*]] = cann.TransData %[[X]] {src_format = "FRACTAL_NZ", dst_format = "ND", groups = 1 : i64} {{.*}} -> tensor<1x16x32xf32>
// CHECK-NEXT:    cann.FusedMultiHeadAttention %[[T]], %w, %b {{.*}} : (tensor<1x16x32xf32>, tensor<32x96xf32>, tensor<96xf32>) -> tensor<1x16x2x16xf32>
func.func @attention_heads_not_merged(%a: tensor<1x16x32xf32>, %b: tensor<96xf32>) -> tensor<1x16x2x16xf32> {
  %w0 = cann.Const dense<0.1> : tensor<32x32xf32>
  %w = cann.Const dense<0.2> : tensor<32x96xf32>
  %x = cann.BatchMatMulV2 %a, %w0 {adj_x1 = false, adj_x2 = false} : (tensor<1x16x32xf32>, tensor<32x32xf32>) -> tensor<1x16x32xf32>
  %y = cann.FusedMultiHeadAttention %x, %w, %b {num_heads = 2 : i64, scale = 0.25 : f32} : (tensor<1x16x32xf32>, tensor<32x96xf32>, tensor<96xf32>) -> tensor<1x16x2x16xf32>
  func.return %y : tensor<1x16x2x16xf32>
}
