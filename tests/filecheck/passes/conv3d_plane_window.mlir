// RUN: cann-opt -p 'algebraic-simplify,remove-noops,dce,fuse,assign-layouts,cann-to-kernel' %s | filecheck %s
// RUN: cann-opt -p 'algebraic-simplify,remove-noops,dce,fuse,assign-layouts,cann-to-kernel' %s | cann-opt --print-op-generic | cann-opt | filecheck %s

// A 3x3x3 'same' Conv3D on 2 clips of 4 planes of 32x32 (x the (N*D) batch view, C = 16: one
// C1 block).  M = 8192 pixels, Ho*Wo = 1024 a multiple of the block (baseM = 256 = 8 output
// rows, singleCoreM = 512): every block lies in one output plane, so its L1 window is one 2-D
// window per depth tap (compiler/target/conv_geometry.py fmap3d_plane_rows): 8 + 2 rows of
// each tap's plane, 3 * 10 = 30 rows, where the span from the first tap's rows to the last's
// would hold 75 (the whole plane between).  The fmap tile is (kd*C1, 10, W, C0).
// The core has one N block (16) and two M blocks, and L1 holds all of K: the [K, 16] B panel
// goes GM -> L1 once before the M loop (weightReads = 1) and each K block is read from it (Zn
// at [k]; K = 432 padded to 14 blocks of 32: 448 rows).
// CHECK:       kernel.cube {{.*}}kind = "Conv3D", {{.*}}tiling = #kernel.tiling<{{.*}}singleCoreM = 512, {{.*}}baseM = 256, {{.*}}weightReads = 1, {{.*}}fmapRows = 30, fmapBytes = 61440, fmapPlaneRows = 10>
// CHECK:       %[[P:[0-9]+]] = kernel.load {{.*}}view = "fz"{{.*}} -> memref<448x16xf32, #kernel.space<L1>>
// CHECK:       view = "fmap", {{.*}}plane_rows = 10 : i64{{.*}} -> memref<3x10x32x16xf32, #kernel.space<L1>>
// CHECK:       view = "load3d", {{.*}}plane_rows = 10 : i64{{.*}} : memref<3x10x32x16xf32, #kernel.space<L1>> -> memref<16x4x16x8xf32, #kernel.space<L0A>>
// CHECK-NEXT:  kernel.load %[[P]][%{{.*}}] {view = "Zn"
func.func @main(%x: tensor<8x32x32x16xf32>) -> tensor<8x32x32x16xf32> {
  %w = cann.Const dense<0.125> : tensor<3x3x3x16x16xf32>
  %0 = cann.Conv3D %x, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", depth = array<i64: 4, 4, 3, 1, 1, 1, 1>} : (tensor<8x32x32x16xf32>, tensor<3x3x3x16x16xf32>) -> tensor<8x32x32x16xf32>
  func.return %0 : tensor<8x32x32x16xf32>
}
