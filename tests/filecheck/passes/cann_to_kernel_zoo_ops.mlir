// RUN: cann-opt --cann-to-kernel %s | filecheck %s
// RUN: cann-opt --cann-to-kernel %s | cann-opt --print-op-generic | cann-opt | filecheck %s
// Issue 12: BroadcastToD is a vector kernel of broadcast reads (the flat view broadcasts x to
// the result's shape); every input copy of a ConcatV2D runs on the kernel's block_dim (one grid
// for all, the small input's last blocks get no work: was grid [1] vs block_dim 10); a reduction
// over axes in two blocks is a TransposeD kernel (reduced axes last) and a one-block reduction.

builtin.module attributes {cann.soc_version = "Ascend910B3"} {
// CHECK-LABEL: func.func @broadcast_to(
// CHECK: kernel.vec_kernel %x {kind = "BroadcastToD", block_dim = 1 : i64
// CHECK: kernel.load %{{.*}} {view = "flat", params = {shape = array<i64: 4, 6>}} : memref<1x6xf32, #kernel.space<GM>> -> memref<24xf32, #kernel.space<UB>>
// CHECK: kernel.store %{{.*}} {view = "flat", params = {}} : memref<24xf32, #kernel.space<UB>>, memref<4x6xf32, #kernel.space<GM>>
func.func @broadcast_to(%x: tensor<1x6xf32>) -> tensor<4x6xf32> {
  %0 = cann.BroadcastToD %x {shape = array<i64: 4, 6>} : (tensor<1x6xf32>) -> tensor<4x6xf32>
  func.return %0 : tensor<4x6xf32>
}

// CHECK-LABEL: func.func @concat_one_grid(
// CHECK: kernel.vec_kernel %a, %b {concat_dim = 3 : i64, kind = "ConcatV2D", block_dim = 10 : i64
// CHECK: kernel.cores attributes {grid = array<i64: 10>, tile = array<i64: 954>}
// CHECK: kernel.for %{{.*}} attributes {extent = 954 : i64, step = 960 : i64, limit = 9537 : i64}
// CHECK: kernel.cores attributes {grid = array<i64: 10>, tile = array<i64: 29>}
// CHECK: kernel.for %{{.*}} attributes {extent = 29 : i64, step = 32 : i64, limit = 289 : i64}
func.func @concat_one_grid(%a: tensor<1x17x17x33xf32>, %b: tensor<1x17x17x1xf32>) -> tensor<1x17x17x34xf32> {
  %0 = cann.ConcatV2D %a, %b {concat_dim = 3 : i64, N = 2 : i64} : (tensor<1x17x17x33xf32>, tensor<1x17x17x1xf32>) -> tensor<1x17x17x34xf32>
  func.return %0 : tensor<1x17x17x34xf32>
}

// CHECK-LABEL: func.func @reduce_two_blocks(
// CHECK: %[[T:.*]] = kernel.vec_kernel %x {kind = "TransposeD"
// CHECK-SAME: : (tensor<3x5x7xf32>) -> tensor<5x3x7xf32>
// CHECK: view = "transpose_flat", params = {perm = array<i64: 1, 0, 2>, shape = array<i64: 5, 3, 7>}
// CHECK: %[[R:.*]] = kernel.vec_kernel %[[T]] {kind = "ReduceSumD"
// CHECK-SAME: reduceLen = 21
// CHECK-SAME: : (tensor<5x3x7xf32>) -> tensor<5xf32>
// CHECK: func.return %[[R]] : tensor<5xf32>
func.func @reduce_two_blocks(%x: tensor<3x5x7xf32>) -> tensor<5xf32> {
  %0 = cann.ReduceSumD %x {axes = array<i64: 0, 2>, keep_dims = false} : (tensor<3x5x7xf32>) -> tensor<5xf32>
  func.return %0 : tensor<5xf32>
}
}
