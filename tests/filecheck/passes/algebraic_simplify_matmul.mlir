// RUN: cann-opt -p algebraic-simplify,dce %s | filecheck %s
// RUN: cann-opt --canonicalize %s | filecheck %s

// Batched matmuls (compiler/transforms/canonicalization.py, CANN's BatchMatMulFusionPass
// generalized): transposes into the adj flags, a scalar factor of an operand onto the result.

// A transpose of the last two axes is the operand's adj flag.
// CHECK-LABEL: func.func @operand_swap_last_two
// CHECK-NEXT:    %[[Y:.*]] = cann.BatchMatMulV2 %a, %b {adj_x1 = false, adj_x2 = true}
// CHECK-NEXT:    func.return %[[Y]]
func.func @operand_swap_last_two(%a: tensor<2x4x8xf32>, %b: tensor<2x6x8xf32>) -> tensor<2x4x6xf32> {
  %bt = cann.TransposeD %b {perm = array<i64: 0, 2, 1>} : (tensor<2x6x8xf32>) -> tensor<2x8x6xf32>
  %y = cann.BatchMatMulV2 %a, %bt {adj_x1 = false, adj_x2 = false} : (tensor<2x4x8xf32>, tensor<2x8x6xf32>) -> tensor<2x4x6xf32>
  func.return %y : tensor<2x4x6xf32>
}

// Keras' key transpose 0231 is the head split 0213 with adj_x2 (the last axis stays last).
// CHECK-LABEL: func.func @operand_head_split
// CHECK-NEXT:    %[[T:.*]] = cann.TransposeD %k {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x16x2x32xf32>) -> tensor<1x2x16x32xf32>
// CHECK-NEXT:    %[[Y:.*]] = cann.BatchMatMulV2 %q, %[[T]] {adj_x1 = false, adj_x2 = true}
// CHECK-NEXT:    func.return %[[Y]]
func.func @operand_head_split(%q: tensor<1x2x16x32xf32>, %k: tensor<1x16x2x32xf32>) -> tensor<1x2x16x16xf32> {
  %kt = cann.TransposeD %k {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x16x2x32xf32>) -> tensor<1x2x32x16xf32>
  %y = cann.BatchMatMulV2 %q, %kt {adj_x1 = false, adj_x2 = false} : (tensor<1x2x16x32xf32>, tensor<1x2x32x16xf32>) -> tensor<1x2x16x16xf32>
  func.return %y : tensor<1x2x16x16xf32>
}

// A transpose read by another op too stays, and so does the flag.
// CHECK-LABEL: func.func @operand_transpose_shared
// CHECK:         cann.BatchMatMulV2 %q, %kt {adj_x1 = false, adj_x2 = false}
func.func @operand_transpose_shared(%q: tensor<1x2x16x32xf32>, %k: tensor<1x16x2x32xf32>) -> (tensor<1x2x16x16xf32>, tensor<1x2x32x16xf32>) {
  %kt = cann.TransposeD %k {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x16x2x32xf32>) -> tensor<1x2x32x16xf32>
  %y = cann.BatchMatMulV2 %q, %kt {adj_x1 = false, adj_x2 = false} : (tensor<1x2x16x32xf32>, tensor<1x2x32x16xf32>) -> tensor<1x2x16x16xf32>
  func.return %y, %kt : tensor<1x2x16x16xf32>, tensor<1x2x32x16xf32>
}

// (a @ b)^T = b^T @ a^T: the result's transpose is the exchanged operands with both flags toggled.
// CHECK-LABEL: func.func @result_transpose
// CHECK-NEXT:    %[[Y:.*]] = cann.BatchMatMulV2 %b, %a {adj_x1 = true, adj_x2 = true} : (tensor<2x8x6xf32>, tensor<2x4x8xf32>) -> tensor<2x6x4xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @result_transpose(%a: tensor<2x4x8xf32>, %b: tensor<2x8x6xf32>) -> tensor<2x6x4xf32> {
  %s = cann.BatchMatMulV2 %a, %b {adj_x1 = false, adj_x2 = false} : (tensor<2x4x8xf32>, tensor<2x8x6xf32>) -> tensor<2x4x6xf32>
  %y = cann.TransposeD %s {perm = array<i64: 0, 2, 1>} : (tensor<2x4x6xf32>) -> tensor<2x6x4xf32>
  func.return %y : tensor<2x6x4xf32>
}

// A transpose of the batch axes of the result is not a flag.
// CHECK-LABEL: func.func @result_batch_transpose
// CHECK:         cann.BatchMatMulV2 %a, %b {adj_x1 = false, adj_x2 = false}
// CHECK-NEXT:    cann.TransposeD
func.func @result_batch_transpose(%a: tensor<2x3x4x8xf32>, %b: tensor<2x3x8x6xf32>) -> tensor<3x2x4x6xf32> {
  %s = cann.BatchMatMulV2 %a, %b {adj_x1 = false, adj_x2 = false} : (tensor<2x3x4x8xf32>, tensor<2x3x8x6xf32>) -> tensor<2x3x4x6xf32>
  %y = cann.TransposeD %s {perm = array<i64: 1, 0, 2, 3>} : (tensor<2x3x4x6xf32>) -> tensor<3x2x4x6xf32>
  func.return %y : tensor<3x2x4x6xf32>
}

// Keras 3's scores: the query scaled, then einsum(key, query) and its transpose ->
// (q^T(0213) @ k^T(0213), adj_x2) * scale, the form the attention rules match.
// CHECK-LABEL: func.func @keras3_scores
// CHECK-DAG:     %[[K:.*]] = cann.TransposeD %k {perm = array<i64: 0, 2, 1, 3>}
// CHECK-DAG:     %[[Q:.*]] = cann.TransposeD %q {perm = array<i64: 0, 2, 1, 3>}
// CHECK:         %[[S:.*]] = cann.BatchMatMulV2 %[[Q]], %[[K]] {adj_x1 = false, adj_x2 = true}
// CHECK-NEXT:    %[[Y:.*]] = cann.Mul %[[S]], %c
// CHECK-NEXT:    func.return %[[Y]]
func.func @keras3_scores(%q: tensor<1x16x2x32xf32>, %k: tensor<1x16x2x32xf32>) -> tensor<1x2x16x16xf32> {
  %c = cann.Const dense<0.5> : tensor<f32>
  %qs = cann.Mul %q, %c : (tensor<1x16x2x32xf32>, tensor<f32>) -> tensor<1x16x2x32xf32>
  %qt = cann.TransposeD %qs {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x16x2x32xf32>) -> tensor<1x2x32x16xf32>
  %kt = cann.TransposeD %k {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x16x2x32xf32>) -> tensor<1x2x16x32xf32>
  %s = cann.BatchMatMulV2 %kt, %qt {adj_x1 = false, adj_x2 = false} : (tensor<1x2x16x32xf32>, tensor<1x2x32x16xf32>) -> tensor<1x2x16x16xf32>
  %y = cann.TransposeD %s {perm = array<i64: 0, 1, 3, 2>} : (tensor<1x2x16x16xf32>) -> tensor<1x2x16x16xf32>
  func.return %y : tensor<1x2x16x16xf32>
}

// A factor that is not a one-element constant stays on the operand.
// CHECK-LABEL: func.func @vector_factor_stays
// CHECK-NEXT:    %[[M:.*]] = cann.Mul %a, %c
// CHECK-NEXT:    cann.BatchMatMulV2 %[[M]], %b
func.func @vector_factor_stays(%a: tensor<2x4x8xf32>, %b: tensor<2x8x6xf32>, %c: tensor<8xf32>) -> tensor<2x4x6xf32> {
  %m = cann.Mul %a, %c : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %y = cann.BatchMatMulV2 %m, %b {adj_x1 = false, adj_x2 = false} : (tensor<2x4x8xf32>, tensor<2x8x6xf32>) -> tensor<2x4x6xf32>
  func.return %y : tensor<2x4x6xf32>
}


// Keras' Dot(axes=1) of two [1, K] rows: ExpandDims to [1, 1, K] and [1, K, 1]; the second is a
// transpose of the last two axes (one of size 1): the first row with adj_x2.
// CHECK-LABEL: func.func @dot_of_rows
// CHECK-NEXT:    %[[A:.*]] = cann.Reshape %a {shape = array<i64: 1, 1, 16>}
// CHECK-NEXT:    %[[B:.*]] = cann.Reshape %b {shape = array<i64: 1, 1, 16>}
// CHECK-NEXT:    %[[Y:.*]] = cann.BatchMatMulV2 %[[A]], %[[B]] {adj_x1 = false, adj_x2 = true}
// CHECK-NEXT:    func.return %[[Y]]
func.func @dot_of_rows(%a: tensor<1x16xf32>, %b: tensor<1x16xf32>) -> tensor<1x1x1xf32> {
  %ae = cann.Reshape %a {shape = array<i64: 1, 1, 16>} : (tensor<1x16xf32>) -> tensor<1x1x16xf32>
  %b1 = cann.Reshape %b {shape = array<i64: 1, 1, 16>} : (tensor<1x16xf32>) -> tensor<1x1x16xf32>
  %be = cann.Reshape %b1 {shape = array<i64: 1, 16, 1>} : (tensor<1x1x16xf32>) -> tensor<1x16x1xf32>
  %y = cann.BatchMatMulV2 %ae, %be {adj_x1 = false, adj_x2 = false} : (tensor<1x1x16xf32>, tensor<1x16x1xf32>) -> tensor<1x1x1xf32>
  func.return %y : tensor<1x1x1xf32>
}
