// RUN: cann-opt -p algebraic-simplify,remove-noops,dce %s | filecheck %s

// A chain of Reshapes and BroadcastToDs holding two broadcasts or more becomes one broadcast
// (compiler/transforms/canonicalization.py BroadcastChain): the chain's index map decomposed
// into digits, x's own dims kept as axes.

// UpSampling2D(2, interpolation="nearest") is tf.repeat along H, then along W.
// CHECK-LABEL: func.func @nearest_repeats
// CHECK-NEXT:    %[[R:.*]] = cann.Reshape %x {shape = array<i64: 1, 4, 1, 3, 1, 8>} : (tensor<1x4x3x8xf32>) -> tensor<1x4x1x3x1x8xf32>
// CHECK-NEXT:    %[[B:.*]] = cann.BroadcastToD %[[R]] {shape = array<i64: 1, 4, 2, 3, 2, 8>} : (tensor<1x4x1x3x1x8xf32>) -> tensor<1x4x2x3x2x8xf32>
// CHECK-NEXT:    %[[Y:.*]] = cann.Reshape %[[B]] {shape = array<i64: 1, 8, 6, 8>} : (tensor<1x4x2x3x2x8xf32>) -> tensor<1x8x6x8xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @nearest_repeats(%x: tensor<1x4x3x8xf32>) -> tensor<1x8x6x8xf32> {
  %0 = cann.Reshape %x {shape = array<i64: 1, 4, 1, 3, 8>} : (tensor<1x4x3x8xf32>) -> tensor<1x4x1x3x8xf32>
  %1 = cann.BroadcastToD %0 {shape = array<i64: 1, 4, 2, 3, 8>} : (tensor<1x4x1x3x8xf32>) -> tensor<1x4x2x3x8xf32>
  %2 = cann.Reshape %1 {shape = array<i64: 1, 8, 3, 1, 8>} : (tensor<1x4x2x3x8xf32>) -> tensor<1x8x3x1x8xf32>
  %3 = cann.BroadcastToD %2 {shape = array<i64: 1, 8, 3, 2, 8>} : (tensor<1x8x3x1x8xf32>) -> tensor<1x8x3x2x8xf32>
  %4 = cann.Reshape %3 {shape = array<i64: 1, 8, 6, 8>} : (tensor<1x8x3x2x8xf32>) -> tensor<1x8x6x8xf32>
  func.return %4 : tensor<1x8x6x8xf32>
}

// A tile of a tile (a broadcast over a new outer axis, twice) is one broadcast.
// CHECK-LABEL: func.func @tile_of_tile
// CHECK-NEXT:    %[[R:.*]] = cann.Reshape %x {shape = array<i64: 1, 2, 3>} : (tensor<2x3xf32>) -> tensor<1x2x3xf32>
// CHECK-NEXT:    %[[B:.*]] = cann.BroadcastToD %[[R]] {shape = array<i64: 6, 2, 3>} : (tensor<1x2x3xf32>) -> tensor<6x2x3xf32>
// CHECK-NEXT:    %[[Y:.*]] = cann.Reshape %[[B]] {shape = array<i64: 3, 12>} : (tensor<6x2x3xf32>) -> tensor<3x12xf32>
func.func @tile_of_tile(%x: tensor<2x3xf32>) -> tensor<3x12xf32> {
  %0 = cann.BroadcastToD %x {shape = array<i64: 2, 2, 3>} : (tensor<2x3xf32>) -> tensor<2x2x3xf32>
  %1 = cann.Reshape %0 {shape = array<i64: 1, 12>} : (tensor<2x2x3xf32>) -> tensor<1x12xf32>
  %2 = cann.BroadcastToD %1 {shape = array<i64: 3, 12>} : (tensor<1x12xf32>) -> tensor<3x12xf32>
  func.return %2 : tensor<3x12xf32>
}

// One broadcast in the chain: nothing to merge.
// CHECK-LABEL: func.func @one_broadcast
// CHECK-NEXT:    %[[R:.*]] = cann.Reshape %x {shape = array<i64: 4, 1, 3>}
// CHECK-NEXT:    %[[B:.*]] = cann.BroadcastToD %[[R]] {shape = array<i64: 4, 2, 3>}
// CHECK-NEXT:    %[[Y:.*]] = cann.Reshape %[[B]] {shape = array<i64: 8, 3>}
func.func @one_broadcast(%x: tensor<4x3xf32>) -> tensor<8x3xf32> {
  %0 = cann.Reshape %x {shape = array<i64: 4, 1, 3>} : (tensor<4x3xf32>) -> tensor<4x1x3xf32>
  %1 = cann.BroadcastToD %0 {shape = array<i64: 4, 2, 3>} : (tensor<4x1x3xf32>) -> tensor<4x2x3xf32>
  %2 = cann.Reshape %1 {shape = array<i64: 8, 3>} : (tensor<4x2x3xf32>) -> tensor<8x3xf32>
  func.return %2 : tensor<8x3xf32>
}

// The first broadcast has a second reader: it stays materialized, the chain is not merged.
// CHECK-LABEL: func.func @shared_broadcast
// CHECK:         cann.BroadcastToD %x {shape = array<i64: 2, 2, 3>}
// CHECK:         cann.BroadcastToD %{{.*}} {shape = array<i64: 3, 12>}
func.func @shared_broadcast(%x: tensor<2x3xf32>) -> (tensor<3x12xf32>, tensor<2x2x3xf32>) {
  %0 = cann.BroadcastToD %x {shape = array<i64: 2, 2, 3>} : (tensor<2x3xf32>) -> tensor<2x2x3xf32>
  %1 = cann.Reshape %0 {shape = array<i64: 1, 12>} : (tensor<2x2x3xf32>) -> tensor<1x12xf32>
  %2 = cann.BroadcastToD %1 {shape = array<i64: 3, 12>} : (tensor<1x12xf32>) -> tensor<3x12xf32>
  func.return %2, %0 : tensor<3x12xf32>, tensor<2x2x3xf32>
}
