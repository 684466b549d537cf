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
