// RUN: cann-opt --assign-layouts %s | filecheck %s
// RUN: cann-opt --assign-layouts %s | cann-opt --assign-layouts | filecheck %s

// Row kernels (SoftmaxV2, LayerNorm, AddLayerNorm over the last axis) and batch-only reshapes on
// FRACTAL_NZ (passes/assign_layouts.py LayoutRowsNZ, LayoutReshapeNZ, FoldReshapeChain).

// A matmul, AddLayerNorm over the last axis, an identity reshape chain ([20, 24] -> [1, 20, 24]
// -> [20, 24], Tensordot's) and a second matmul (M = 20, K = 24: neither a multiple of 16).
// AddLayerNorm runs on the first matmul's FRACTAL_NZ result; its residual %r (a function
// input) gets the one TransData ND -> NZ; the reshape chain folds away, so the second matmul
// reads the NZ result directly: TransData only at the edges.
// CHECK-LABEL: func.func @ffn_block
// CHECK:         %[[M1:.*]] = cann.MatMulV2 {{.*}} -> tensor<2x2x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [20, 24]>>
// CHECK-NEXT:    %[[R:.*]] = cann.TransData %r {src_format = "ND", dst_format = "FRACTAL_NZ", groups = 1 : i64} : (tensor<20x24xf32>) -> tensor<2x2x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [20, 24]>>
// CHECK-NEXT:    %[[LN:.*]] = cann.AddLayerNorm %[[R]], %[[M1]], %g, %b {{.*}} : (tensor<2x2x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [20, 24]>>, tensor<2x2x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [20, 24]>>, tensor<24xf32>, tensor<24xf32>) -> tensor<2x2x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [20, 24]>>
// CHECK-NOT:     cann.Reshape
// CHECK-NOT:     cann.TransData %[[LN]]
// CHECK:         %[[M2:.*]] = cann.MatMulV2 %[[LN]], %{{.*}} -> tensor<1x2x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [20, 8]>>
// CHECK-NEXT:    %[[Y:.*]] = cann.TransData %[[M2]] {src_format = "FRACTAL_NZ", dst_format = "ND", groups = 1 : i64}
// CHECK-NEXT:    func.return %[[Y]] : tensor<20x8xf32>
func.func @ffn_block(%x: tensor<20x40xf32>, %r: tensor<20x24xf32>, %w1: tensor<40x24xf32>, %w2: tensor<24x8xf32>, %g: tensor<24xf32>, %b: tensor<24xf32>) -> tensor<20x8xf32> {
  %0 = cann.MatMulV2 %x, %w1 {transpose_x1 = false, transpose_x2 = false} : (tensor<20x40xf32>, tensor<40x24xf32>) -> tensor<20x24xf32>
  %1 = cann.AddLayerNorm %r, %0, %g, %b {begin_norm_axis = 1 : i64, begin_params_axis = -1 : i64, epsilon = 1.0e-12 : f32} : (tensor<20x24xf32>, tensor<20x24xf32>, tensor<24xf32>, tensor<24xf32>) -> tensor<20x24xf32>
  %2 = cann.Reshape %1 {shape = array<i64: 1, 20, 24>} : (tensor<20x24xf32>) -> tensor<1x20x24xf32>
  %3 = cann.Reshape %2 {shape = array<i64: 20, 24>} : (tensor<1x20x24xf32>) -> tensor<20x24xf32>
  %4 = cann.MatMulV2 %3, %w2 {transpose_x1 = false, transpose_x2 = false} : (tensor<20x24xf32>, tensor<24x8xf32>) -> tensor<20x8xf32>
  func.return %4 : tensor<20x8xf32>
}

// SoftmaxV2 over the last axis of a batched matmul result runs on NZ.  The reshape after it
// merges the batch into M ([2, 20, 18] -> [40, 18]): the padding rows 20..31 of each batch would
// land inside the new M, so it is not an NZ view and the TransData back to ND stays before it.
// CHECK-LABEL: func.func @softmax_then_reshape
// CHECK:         %[[B:.*]] = cann.BatchMatMulV2 {{.*}} -> tensor<2x2x2x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [2, 20, 18]>>
// CHECK-NEXT:    %[[S:.*]] = cann.SoftmaxV2 %[[B]] {axes = array<i64: -1>} : (tensor<2x2x2x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [2, 20, 18]>>) -> tensor<2x2x2x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [2, 20, 18]>>
// CHECK-NEXT:    %[[T:.*]] = cann.TransData %[[S]] {src_format = "FRACTAL_NZ", dst_format = "ND", groups = 1 : i64} {{.*}} -> tensor<2x20x18xf32>
// CHECK-NEXT:    %[[V:.*]] = cann.Reshape %[[T]] {shape = array<i64: 40, 18>} : (tensor<2x20x18xf32>) -> tensor<40x18xf32>
// CHECK-NEXT:    func.return %[[V]]
func.func @softmax_then_reshape(%a: tensor<2x20x24xf32>, %w: tensor<2x24x18xf32>) -> tensor<40x18xf32> {
  %0 = cann.BatchMatMulV2 %a, %w {adj_x1 = false, adj_x2 = false} : (tensor<2x20x24xf32>, tensor<2x24x18xf32>) -> tensor<2x20x18xf32>
  %1 = cann.SoftmaxV2 %0 {axes = array<i64: -1>} : (tensor<2x20x18xf32>) -> tensor<2x20x18xf32>
  %2 = cann.Reshape %1 {shape = array<i64: 40, 18>} : (tensor<2x20x18xf32>) -> tensor<40x18xf32>
  func.return %2 : tensor<40x18xf32>
}

// Statistics over another axis than the last (LayerNorm from axis 1, softmax over axis 1): a
// row of NZ is not what they reduce, so they stay ND behind the TransData.
// CHECK-LABEL: func.func @norm_not_last_axis
// CHECK:         %[[B:.*]] = cann.BatchMatMulV2 {{.*}} -> tensor<2x2x2x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [2, 20, 18]>>
// CHECK-NEXT:    %[[T:.*]] = cann.TransData %[[B]] {src_format = "FRACTAL_NZ", dst_format = "ND", groups = 1 : i64} {{.*}} -> tensor<2x20x18xf32>
// CHECK-NEXT:    %[[LN:.*]] = cann.LayerNorm %[[T]], %g, %g {begin_norm_axis = 1 : i64, {{.*}}} : (tensor<2x20x18xf32>, tensor<20x18xf32>, tensor<20x18xf32>) -> tensor<2x20x18xf32>
// CHECK-NEXT:    %[[S:.*]] = cann.SoftmaxV2 %[[T]] {axes = array<i64: 1>} : (tensor<2x20x18xf32>) -> tensor<2x20x18xf32>
// CHECK-NEXT:    cann.Add %[[LN]], %[[S]] : (tensor<2x20x18xf32>, tensor<2x20x18xf32>) -> tensor<2x20x18xf32>
func.func @norm_not_last_axis(%a: tensor<2x20x24xf32>, %w: tensor<2x24x18xf32>, %g: tensor<20x18xf32>) -> tensor<2x20x18xf32> {
  %0 = cann.BatchMatMulV2 %a, %w {adj_x1 = false, adj_x2 = false} : (tensor<2x20x24xf32>, tensor<2x24x18xf32>) -> tensor<2x20x18xf32>
  %1 = cann.LayerNorm %0, %g, %g {begin_norm_axis = 1 : i64, begin_params_axis = 1 : i64, epsilon = 1.0e-05 : f32} : (tensor<2x20x18xf32>, tensor<20x18xf32>, tensor<20x18xf32>) -> tensor<2x20x18xf32>
  %2 = cann.SoftmaxV2 %0 {axes = array<i64: 1>} : (tensor<2x20x18xf32>) -> tensor<2x20x18xf32>
  %3 = cann.Add %1, %2 : (tensor<2x20x18xf32>, tensor<2x20x18xf32>) -> tensor<2x20x18xf32>
  func.return %3 : tensor<2x20x18xf32>
}

// Adding leading 1-dims ([20, 24] -> [1, 1, 20, 24]) keeps (K1, M1, 16, C0): an NZ view, and the
// LayerNorm after it runs on NZ too; one TransData at the output.
// CHECK-LABEL: func.func @leading_ones
// CHECK:         %[[M:.*]] = cann.MatMulV2 {{.*}} -> tensor<2x2x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [20, 24]>>
// CHECK-NEXT:    %[[V:.*]] = cann.Reshape %[[M]] {shape = array<i64: 1, 1, 20, 24>} : (tensor<2x2x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [20, 24]>>) -> tensor<1x1x2x2x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [1, 1, 20, 24]>>
// CHECK-NEXT:    %[[LN:.*]] = cann.LayerNorm %[[V]], %g, %g {{.*}} -> tensor<1x1x2x2x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [1, 1, 20, 24]>>
// CHECK-NEXT:    %[[Y:.*]] = cann.TransData %[[LN]] {src_format = "FRACTAL_NZ", dst_format = "ND", groups = 1 : i64} {{.*}} -> tensor<1x1x20x24xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @leading_ones(%x: tensor<20x40xf32>, %w: tensor<40x24xf32>, %g: tensor<24xf32>) -> tensor<1x1x20x24xf32> {
  %0 = cann.MatMulV2 %x, %w {transpose_x1 = false, transpose_x2 = false} : (tensor<20x40xf32>, tensor<40x24xf32>) -> tensor<20x24xf32>
  %1 = cann.Reshape %0 {shape = array<i64: 1, 1, 20, 24>} : (tensor<20x24xf32>) -> tensor<1x1x20x24xf32>
  %2 = cann.LayerNorm %1, %g, %g {begin_norm_axis = -1 : i64, begin_params_axis = -1 : i64, epsilon = 1.0e-05 : f32} : (tensor<1x1x20x24xf32>, tensor<24xf32>, tensor<24xf32>) -> tensor<1x1x20x24xf32>
  func.return %2 : tensor<1x1x20x24xf32>
}
