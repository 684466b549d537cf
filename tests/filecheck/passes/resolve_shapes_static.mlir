// resolve-shapes at concrete shapes: resolve_shapes.mlir's position embedding at sequence 5, as
// the dispatch's specialization makes it (tools/driver/runtime_tiling.py): Shape of a static
// tensor -> Const, the integer chain folded, Slice -> StridedSliceD, BroadcastTo -> BroadcastToD.
// RUN: cann-opt --resolve-shapes %s | filecheck %s

// CHECK-LABEL: func.func @at_five
// CHECK-NOT: cann.Shape
// CHECK: %[[P:.*]] = cann.StridedSliceD %table {begin = array<i64: 0, 0>, end = array<i64: 5, 4>, {{.*}}} : (tensor<8x4xf32>) -> tensor<5x4xf32>
// CHECK: %[[B:.*]] = cann.BroadcastToD %[[P]] {shape = array<i64: 1, 5, 4>} : (tensor<5x4xf32>) -> tensor<1x5x4xf32>
// CHECK: cann.Add %x, %[[B]]
// CHECK-NOT: cann.Slice
// CHECK-NOT: cann.BroadcastTo %
func.func @at_five(%x: tensor<1x5x4xf32>, %table: tensor<8x4xf32>) -> tensor<1x5x4xf32> {
  %shape = "cann.Shape"(%x) : (tensor<1x5x4xf32>) -> tensor<3xi32>
  %seq = "cann.StridedSliceD"(%shape) <{begin = array<i64: 1>, end = array<i64: 2>, strides = array<i64: 1>, begin_mask = 0 : i64, end_mask = 0 : i64, ellipsis_mask = 0 : i64, new_axis_mask = 0 : i64, shrink_axis_mask = 1 : i64}> : (tensor<3xi32>) -> tensor<i32>
  %seq1 = "cann.Reshape"(%seq) <{shape = array<i64: 1>}> : (tensor<i32>) -> tensor<1xi32>
  %hidden = "cann.Const"() <{value = dense<4> : tensor<1xi32>}> : () -> tensor<1xi32>
  %size = "cann.ConcatV2D"(%seq1, %hidden) <{concat_dim = 0 : i64, N = 2 : i64}> : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %zero = "cann.Const"() <{value = dense<0> : tensor<2xi32>}> : () -> tensor<2xi32>
  %pos = "cann.Slice"(%table, %zero, %size) : (tensor<8x4xf32>, tensor<2xi32>, tensor<2xi32>) -> tensor<5x4xf32>
  %bc = "cann.BroadcastTo"(%pos, %shape) : (tensor<5x4xf32>, tensor<3xi32>) -> tensor<1x5x4xf32>
  %0 = "cann.Add"(%x, %bc) : (tensor<1x5x4xf32>, tensor<1x5x4xf32>) -> tensor<1x5x4xf32>
  func.return %0 : tensor<1x5x4xf32>
}
