// RUN: cann-opt --fuse --assign-layouts --cann-to-kernel %s | filecheck %s
// RUN: cann-opt --fuse --assign-layouts --cann-to-kernel %s | cann-opt --print-op-generic | cann-opt | filecheck %s

// A conv prologue on x's rows (compiler/conversions/cann_to_kernel/fused.py emit_rows_prologue):
// where the conv's A comes by Load3D, the BN-ReLU body runs on the window of x's rows an M block
// reads, GM -> UB (view fmap, channel vectors by fmap_channel), once per M block outside the N
// and K loops, and the window moves UB -> L1; Load3D inserts the conv pads as zeros after the
// body, so no img2col_valid mask, and 16 channels fill C0: no channel-lane mask either.
// CHECK-LABEL: func.func @rows
// CHECK:         kernel.cube {{.*}}kind = "Conv2D", {{.*}}fmapRows = [[ROWS:[0-9]+]], {{.*}}#kernel.buffer<L1, {{[0-9]+}}, "fmap">, {{.*}}#kernel.buffer<UB, {{[0-9]+}}, "fmap0">
// CHECK:         kernel.for {{.*}}limit = 288 : i64
// CHECK-NEXT:    ^bb0(%[[M:[0-9]+]]: index):
// CHECK-NEXT:      %[[X:[0-9]+]] = kernel.load %{{[0-9]+}}[%{{[0-9]+}}, %[[M]]] {view = "fmap", {{.*}} -> memref<1x[[ROWS]]x12x16xf32, #kernel.space<UB>>
// CHECK-NEXT:      %[[S:[0-9]+]] = kernel.load %{{[0-9]+}}[%{{[0-9]+}}, %[[M]]] {view = "fmap_channel", {{.*}} -> memref<1x[[ROWS]]x12x16xf32, #kernel.space<UB>>
// CHECK-NEXT:      %[[P:[0-9]+]] = kernel.vec %[[X]], %[[S]] {fn = "Mul"
// CHECK-NEXT:      %[[T:[0-9]+]] = kernel.load %{{[0-9]+}}[%{{[0-9]+}}, %[[M]]] {view = "fmap_channel"
// CHECK-NEXT:      %[[A:[0-9]+]] = kernel.vec %[[P]], %[[T]] {fn = "Add"
// CHECK-NEXT:      %[[R:[0-9]+]] = kernel.vec %[[A]] {fn = "Relu"
// CHECK-NEXT:      %[[W:[0-9]+]] = kernel.load %[[R]][] {view = "copy", {{.*}} -> memref<1x[[ROWS]]x12x16xf32, #kernel.space<L1>>
// CHECK-NEXT:      kernel.for
// CHECK-NOT:       kernel.vec
// CHECK:           kernel.load %[[W]][%{{[0-9]+}}, %[[M]], %{{[0-9]+}}] {view = "load3d"
// CHECK-NOT:       kernel.vec {{.*}}fn = "SelectV2"
// CHECK:           kernel.fixpipe
// CHECK-LABEL: func.func @tiles
// Where the window and the body's tiles do not fit UB (4 C1 blocks of 256-pixel rows), the body
// runs on each img2col A tile instead, masked by img2col_valid (the conv pads are in A).
// CHECK:         kernel.cube {{.*}}kind = "Conv2D"
// CHECK-NOT:       fmapRows
// CHECK:           kernel.load %{{.*}} {view = "img2col", {{.*}}#kernel.space<UB>>
// CHECK:           kernel.vec {{.*}}fn = "Relu"
// CHECK-NEXT:      kernel.load %{{.*}} {view = "img2col_valid"
// CHECK-NEXT:      kernel.vec {fn = "Duplicate"
// CHECK-NEXT:      kernel.vec {{.*}}fn = "SelectV2"
// CHECK-NEXT:      kernel.load %{{.*}} {view = "copy"{{.*}}#kernel.space<L1>>
// CHECK-NEXT:      kernel.load %{{.*}} {view = "Zz"
func.func @rows(%x: tensor<2x12x12x16xf32>) -> tensor<2x12x12x32xf32> {
  %s = cann.Const dense<1.5> : tensor<16xf32>
  %t = cann.Const dense<0.25> : tensor<16xf32>
  %w = cann.Const dense<0.125> : tensor<3x3x16x32xf32>
  %0 = cann.Mul %x, %s : (tensor<2x12x12x16xf32>, tensor<16xf32>) -> tensor<2x12x12x16xf32>
  %1 = cann.Add %0, %t : (tensor<2x12x12x16xf32>, tensor<16xf32>) -> tensor<2x12x12x16xf32>
  %2 = cann.Relu %1 : (tensor<2x12x12x16xf32>) -> tensor<2x12x12x16xf32>
  %c = cann.Conv2D %2, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<2x12x12x16xf32>, tensor<3x3x16x32xf32>) -> tensor<2x12x12x32xf32>
  func.return %c : tensor<2x12x12x32xf32>
}
func.func @tiles(%x: tensor<1x8x256x64xf32>) -> tensor<1x8x256x16xf32> {
  %s = cann.Const dense<1.5> : tensor<64xf32>
  %t = cann.Const dense<0.25> : tensor<64xf32>
  %w = cann.Const dense<0.125> : tensor<3x3x64x16xf32>
  %0 = cann.Mul %x, %s : (tensor<1x8x256x64xf32>, tensor<64xf32>) -> tensor<1x8x256x64xf32>
  %1 = cann.Add %0, %t : (tensor<1x8x256x64xf32>, tensor<64xf32>) -> tensor<1x8x256x64xf32>
  %2 = cann.Relu %1 : (tensor<1x8x256x64xf32>) -> tensor<1x8x256x64xf32>
  %c = cann.Conv2D %2, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x8x256x64xf32>, tensor<3x3x64x16xf32>) -> tensor<1x8x256x16xf32>
  func.return %c : tensor<1x8x256x16xf32>
}
