// Horizontal fusion of sibling matmuls (compiler/transforms/fusion/horizontal.py, the matmul
// family; switch HorizontalConvFusion): two FusedMatMul of the same x with constant [K, N]
// weights and the same activation (Relu) become ONE FusedMatMul with the weights and biases
// concatenated along N (the absent bias as zeros) and a SplitVD over the last axis.  Both pieces
// (16 and 32 columns) are whole C0 column blocks of the FRACTAL_NZ result with one batch, so the
// split runs on FRACTAL_NZ (layout_assignment.rule_split_nz) and plan-memory makes each of its
// kernels a view of the wide output (mem.elided: no launch): 2 matmul launches become 1 (the
// output's TransData folds into the stores of the cube kernel computing c + d, the input's into
// the wide matmul's loads: 4 launches -> 3).
// RUN: cann-opt --fuse='report=-' %s 2>%t.report | filecheck %s
// RUN: filecheck %s --check-prefix=REPORT < %t.report
// RUN: cann-opt -p fuse,assign-layouts %s | filecheck %s --check-prefix=NZ
// RUN: cann-opt -p fuse,assign-layouts,cann-to-kernel,plan-memory %s | filecheck %s --check-prefix=PLAN
// RUN: cann-opt -p fuse,assign-layouts,cann-to-kernel,plan-memory %s | cann-opt --perf-report 2>&1 | filecheck %s --check-prefix=PERF
// RUN: cann-opt -p 'fuse{disable=HorizontalConvFusion},assign-layouts,cann-to-kernel,plan-memory' %s | cann-opt --perf-report 2>&1 | filecheck %s --check-prefix=PERF-OFF

// CHECK-LABEL: func.func @main(
// CHECK: %[[W:[0-9]+]] = cann.Const dense<{{.*}}> : tensor<32x48xf32>
// CHECK: %[[B:[0-9]+]] = cann.Const dense<{{.*}}> : tensor<48xf32>
// CHECK: %[[Y:[0-9]+]] = cann.FusedMatMul %x, %[[W]], %[[B]] {transpose_x1 = false, transpose_x2 = false, activation = "Relu"} : (tensor<1x16x32xf32>, tensor<32x48xf32>, tensor<48xf32>) -> tensor<1x16x48xf32>
// CHECK: %a, %b = cann.SplitVD %[[Y]] {size_splits = array<i64: 16, 32>, split_dim = 2 : i64, num_split = 2 : i64}
// CHECK-DAG: cann.BatchMatMulV2 %a, %u1
// CHECK-DAG: cann.BatchMatMulV2 %b, %u2

// REPORT: horizontal fusion: 1 groups of sibling cube ops merged (one wide conv or matmul + SplitVD)
// REPORT-NEXT: on an argument: FusedMatMul 'a', FusedMatMul 'b' -> pieces [16, 32]
// REPORT-NEXT: not merged, on an argument: FusedMatMul 'c', FusedMatMul 'd': merging saves no launch

// NZ-LABEL: func.func @main(
// NZ: cann.SplitVD %{{.*}} {size_splits = array<i64: 16, 32>, split_dim = 2 : i64, num_split = 2 : i64} : (tensor<1x3x1x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [1, 16, 48]>>) -> (tensor<1x1x1x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [1, 16, 16]>>, tensor<1x2x1x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [1, 16, 32]>>)

// PLAN-COUNT-2: mem.elided, kind = "SplitVD"
// PLAN-NOT: kind = "SplitVD"

// PERF: model: 3 kernel launches
// PERF-OFF: model: 4 kernel launches
func.func @main(%x: tensor<1x16x32xf32>) -> tensor<1x16x8xf32> {
  %w1 = cann.Const dense<0.1> : tensor<32x16xf32>
  %b1 = cann.Const dense<0.5> : tensor<16xf32>
  %w2 = cann.Const dense<0.2> : tensor<32x32xf32>
  %u1 = cann.Const dense<0.3> : tensor<16x8xf32>
  %u2 = cann.Const dense<0.4> : tensor<32x8xf32>
  %a = cann.FusedMatMul %x, %w1, %b1 {transpose_x1 = false, transpose_x2 = false, activation = "Relu"} : (tensor<1x16x32xf32>, tensor<32x16xf32>, tensor<16xf32>) -> tensor<1x16x16xf32> loc("a")
  %b = cann.FusedMatMul %x, %w2 {transpose_x1 = false, transpose_x2 = false, activation = "Relu"} : (tensor<1x16x32xf32>, tensor<32x32xf32>) -> tensor<1x16x32xf32> loc("b")
  %c = cann.BatchMatMulV2 %a, %u1 {adj_x1 = false, adj_x2 = false} : (tensor<1x16x16xf32>, tensor<16x8xf32>) -> tensor<1x16x8xf32>
  %d = cann.BatchMatMulV2 %b, %u2 {adj_x1 = false, adj_x2 = false} : (tensor<1x16x32xf32>, tensor<32x8xf32>) -> tensor<1x16x8xf32>
  %y = cann.Add %c, %d : (tensor<1x16x8xf32>, tensor<1x16x8xf32>) -> tensor<1x16x8xf32>
  func.return %y : tensor<1x16x8xf32>
}

// Pieces of 12 and 20 columns: neither is on the C0 grid, and only one piece may end off it
// (the last), so the merge would leave a copy: the matmuls stay separate (the report says why).
// CHECK-LABEL: func.func @off_grid(
// CHECK-NOT: cann.SplitVD
func.func @off_grid(%x: tensor<1x16x32xf32>) -> (tensor<1x16x12xf32>, tensor<1x16x20xf32>) {
  %w1 = cann.Const dense<0.1> : tensor<32x12xf32>
  %w2 = cann.Const dense<0.2> : tensor<32x20xf32>
  %c = cann.FusedMatMul %x, %w1 {transpose_x1 = false, transpose_x2 = false, activation = "Relu"} : (tensor<1x16x32xf32>, tensor<32x12xf32>) -> tensor<1x16x12xf32> loc("c")
  %d = cann.FusedMatMul %x, %w2 {transpose_x1 = false, transpose_x2 = false, activation = "Relu"} : (tensor<1x16x32xf32>, tensor<32x20xf32>) -> tensor<1x16x20xf32> loc("d")
  func.return %c, %d : tensor<1x16x12xf32>, tensor<1x16x20xf32>
}
