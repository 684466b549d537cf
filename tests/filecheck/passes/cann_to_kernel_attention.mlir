// RUN: cann-opt --assign-layouts --cann-to-kernel %s | filecheck %s

// Multi-head attention: QKV projection (cube), scores per (batch, head) reading q and k in place
// from qkv with the scale in the epilogue (cube), softmax (vector), p @ v written in place into
// y [B, S, N, D] (cube): the cube and vector cores of the 910B exchange data through GM.
// CHECK-LABEL: func.func @mha
// CHECK: %[[QKV:.*]] = kernel.cube %x, %{{.*}}, %{{.*}} {{.*}}kind = "MatMulV2"{{.*}} -> tensor<1x64x96xf32>
// CHECK: %[[S:.*]] = kernel.cube %[[QKV]], %[[QKV]] {{.*}}kind = "BatchMatMulV2"{{.*}}batchNum = 4
// CHECK: kernel.load {{.*}}view = "heads", params = {heads = 4 : i64, head_dim = 8 : i64, col_offset = 0 : i64, transpose = 0 : i64}
// CHECK: kernel.load {{.*}}view = "heads", params = {heads = 4 : i64, head_dim = 8 : i64, col_offset = 32 : i64, transpose = 1 : i64}
// CHECK: kernel.vec {{.*}}fn = "Muls"
// CHECK: %[[P:.*]] = kernel.vec_kernel %[[S]] {{.*}}kind = "SoftmaxV2"
// CHECK: kernel.cube %[[P]], %[[QKV]] {{.*}}kind = "BatchMatMulV2"
// CHECK: col_offset = 64 : i64
// CHECK: kernel.store {{.*}}view = "heads"
func.func @mha(%x: tensor<1x64x32xf32>) -> tensor<1x64x4x8xf32> {
  %w = cann.Const dense<0.1> : tensor<32x96xf32>
  %b = cann.Const dense<0.2> : tensor<96xf32>
  %y = cann.FusedMultiHeadAttention %x, %w, %b {num_heads = 4 : i64, scale = 0.35355339 : f32} : (tensor<1x64x32xf32>, tensor<32x96xf32>, tensor<96xf32>) -> tensor<1x64x4x8xf32>
  func.return %y : tensor<1x64x4x8xf32>
}

// A select mask with zero_masked: one masked-softmax vector kernel per tile of rows: the scores,
// the mask and the constants broadcast to [B, N, Sq, Sk] as they are loaded; where(mask, s,
// fill), softmax, where(mask, p, 0); then p @ v.
// CHECK-LABEL: func.func @mha_zero_masked
// CHECK: %[[S:.*]] = kernel.cube %[[QKV:.*]], %[[QKV]] {{.*}}kind = "BatchMatMulV2"
// CHECK: %[[FILL:.*]] = cann.Const dense<-1.000000e+09> : tensor<f32>
// CHECK: %[[ZERO:.*]] = cann.Const dense<0.000000e+00> : tensor<f32>
// CHECK: %[[P:.*]] = kernel.vec_kernel %[[S]], %mask, %[[FILL]], %[[ZERO]] {kind = "SoftmaxV2"
// CHECK: kernel.load {{.*}}view = "rows", params = {shape = array<i64: 2, 2, 16, 16>}
// CHECK: kernel.vec {{.*}}fn = "SelectV2"
// CHECK: kernel.vec {{.*}}fn = "RowMax"
// CHECK: kernel.vec {{.*}}fn = "RealDiv"
// CHECK: kernel.vec {{.*}}fn = "SelectV2"
// CHECK: kernel.cube %[[P]], %[[QKV]] {{.*}}kind = "BatchMatMulV2"
func.func @mha_zero_masked(%x: tensor<2x16x32xf32>, %mask: tensor<2x1x1x16xi1>) -> tensor<2x16x2x16xf32> {
  %w = cann.Const dense<0.1> : tensor<32x96xf32>
  %b = cann.Const dense<0.2> : tensor<96xf32>
  %y = cann.FusedMultiHeadAttention %x, %w, %b, %mask {num_heads = 2 : i64, scale = 0.25 : f32, mask_kind = "select", mask_value = -1.0e9 : f32, zero_masked = true} : (tensor<2x16x32xf32>, tensor<32x96xf32>, tensor<96xf32>, tensor<2x1x1x16xi1>) -> tensor<2x16x2x16xf32>
  func.return %y : tensor<2x16x2x16xf32>
}
