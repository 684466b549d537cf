// RUN: cann-opt --assign-layouts --cann-to-kernel %s | filecheck %s
// RUN: cann-opt --assign-layouts --cann-to-kernel %s | cann-opt --print-op-generic | cann-opt | filecheck %s
// RUN: cann-opt --assign-layouts --cann-to-kernel --plan-memory %s | filecheck %s --check-prefix=PLAN

// TransposeD: flat UB tiles of the result, each gathered from x by the inverse permutation.
// CHECK-LABEL: func.func @transpose
// CHECK: kernel.vec_kernel {{.*}}kind = "TransposeD"
// CHECK: kernel.cores
// CHECK: kernel.for
// CHECK: kernel.load {{.*}}view = "transpose_flat", params = {perm = array<i64: 2, 0, 3, 1>, shape = array<i64: 5, 2, 7, 3>}{{.*}} -> memref<{{[0-9]+}}xf32, #kernel.space<UB>>
// CHECK-NEXT: kernel.store {{.*}}view = "flat"
func.func @transpose(%x: tensor<2x3x5x7xf32>) -> tensor<5x2x7x3xf32> {
  %y = cann.TransposeD %x {perm = array<i64: 2, 0, 3, 1>} : (tensor<2x3x5x7xf32>) -> tensor<5x2x7x3xf32>
  func.return %y : tensor<5x2x7x3xf32>
}

// ConcatV2D: per input, flat UB tiles stored into its columns of the result viewed [outer, row].
// CHECK-LABEL: func.func @concat
// CHECK: kernel.vec_kernel {{.*}}concat_dim = 1 : i64, kind = "ConcatV2D"
// CHECK: kernel.load %0{{.*}}view = "flat"
// CHECK-NEXT: kernel.store {{.*}}view = "concat_flat", params = {inner = 15 : i64, row = 35 : i64, offset = 0 : i64}
// CHECK: kernel.load %1{{.*}}view = "flat"
// CHECK-NEXT: kernel.store {{.*}}view = "concat_flat", params = {inner = 20 : i64, row = 35 : i64, offset = 15 : i64}
func.func @concat(%a: tensor<2x3x5xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x7x5xf32> {
  %y = cann.ConcatV2D %a, %b {concat_dim = 1 : i64, N = 2 : i64} : (tensor<2x3x5xf32>, tensor<2x4x5xf32>) -> tensor<2x7x5xf32>
  func.return %y : tensor<2x7x5xf32>
}

// Leading dims 1: the producers write their slabs of the concat in place, the concat moves nothing.
// PLAN-LABEL: func.func @concat_inplace
// PLAN: %ra = kernel.vec_kernel {{.*}}mem.offsets = array<i64: [[A:[0-9]+]]>
// PLAN: %rb = kernel.vec_kernel {{.*}}mem.offsets = array<i64: 1024>
// PLAN: %c = kernel.vec_kernel {{.*}}concat_dim = 1 : i64, mem.offsets = array<i64: [[A]]>, mem.elided, kind = "ConcatV2D"
func.func @concat_inplace(%a: tensor<1x4x64xf32>, %b: tensor<1x4x64xf32>) -> tensor<1x8x64xf32> {
  %ra = cann.Relu %a : (tensor<1x4x64xf32>) -> tensor<1x4x64xf32>
  %rb = cann.Relu %b : (tensor<1x4x64xf32>) -> tensor<1x4x64xf32>
  %c = cann.ConcatV2D %ra, %rb {concat_dim = 1 : i64, N = 2 : i64} : (tensor<1x4x64xf32>, tensor<1x4x64xf32>) -> tensor<1x8x64xf32>
  %y = cann.Relu %c : (tensor<1x8x64xf32>) -> tensor<1x8x64xf32>
  func.return %y : tensor<1x8x64xf32>
}

// StridedSliceD: flat UB tiles of the result gathered at start + i * step per axis of x
// (a shrunk axis counts 1; negative begin normalised).
// CHECK-LABEL: func.func @strided_slice
// CHECK: kernel.vec_kernel {{.*}}kind = "StridedSliceD"
// CHECK: kernel.load {{.*}}view = "slice_flat", params = {start = array<i64: 1, 0, 3>, step = array<i64: 2, 2, 1>, count = array<i64: 2, 3, 1>}
// CHECK-NEXT: kernel.store {{.*}}view = "flat"
func.func @strided_slice(%x: tensor<4x6x5xf32>) -> tensor<2x3xf32> {
  %y = cann.StridedSliceD %x {begin = array<i64: 1, 0, -2>, end = array<i64: 4, 6, 0>, strides = array<i64: 2, 2, 1>, begin_mask = 0 : i64, end_mask = 0 : i64, ellipsis_mask = 0 : i64, new_axis_mask = 0 : i64, shrink_axis_mask = 4 : i64} : (tensor<4x6x5xf32>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}
