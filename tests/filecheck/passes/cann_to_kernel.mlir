// RUN: cann-opt --assign-layouts --cann-to-kernel %s | filecheck %s
// RUN: cann-opt --assign-layouts --cann-to-kernel='soc-version=Ascend910A' %s | filecheck %s --check-prefix=A910
// RUN: cann-opt --soc-version=Ascend310P3 --assign-layouts --cann-to-kernel %s | filecheck %s --check-prefix=P310
// RUN: cann-opt --assign-layouts --cann-to-kernel %s | cann-opt --print-op-generic | cann-opt | filecheck %s
// RUN: not cann-opt --cann-to-kernel='soc-version=Ascend999' %s 2>&1 | filecheck %s --check-prefix=BADCHIP
// RUN: not cann-opt --cann-to-kernel %s 2>&1 | filecheck %s --check-prefix=NOLAYOUT

// One kernel per cann op; the module records the chip.  Conv: implicit GEMM with
// M = N*Ho*Wo = 2*16*16 = 512, N = Cout = 40, K = ceil(kh*kw*4 / 16)*16 = 48 (C_in = 3: the
// small-C_in layout, compiler/target/c04.py: x NC1HWC0_C04, the taps' 4 channels packed in K of
// a FRACTAL_Z_C04 filter, 3 rows of fractals); fp32 base block
// (128, 256, 32) clipped to (.., 48, ..) and the M x N split chosen by the cost model.
// CHECK: builtin.module attributes {cann.soc_version = "Ascend910B3"}
// The input's TransData NHWC -> NC1HWC0 is no kernel: the conv's GM -> L1 loads convert it
// (FoldInputTransData; cann_to_kernel_fold_input.mlir), so the cube kernel reads %x itself.
// CHECK-NOT: kernel.transdata
// Each kernel has an explicit body: per-core tile loops, GM -> L1 -> L0A/L0B loads of
// fractal tiles, mmad into L0C, fixpipe to UB, the epilogue (bias, Relu) there, store to GM.
// CHECK: kernel.cube %x, {{.*}}kind = "Conv2D", block_dim = [[CORES:[0-9]+]] : i64, tiling = #kernel.tiling<usedCoreNum = [[CORES]], M = 512, N = 40, Ka = 48, Kb = 48, singleCoreM = {{[0-9]+}}, singleCoreN = {{[0-9]+}}, singleCoreK = 48, baseM = {{[0-9]+}}, baseN = {{[0-9]+}}, baseK = 32, {{.*}}dbL0A = 2, dbL0B = 2, dbL0C = {{[12]}}, fmapRows = {{[0-9]+}}, fmapBytes = {{[0-9]+}}>, buffers = [#kernel.buffer<L1, {{[0-9]+}}, "fmap">, {{.*}}#kernel.buffer<L0A, {{[0-9]+}}, "A">, #kernel.buffer<L0B, {{[0-9]+}}, "B">, #kernel.buffer<L0C, {{[0-9]+}}, "C">, #kernel.buffer<UB, {{[0-9]+}}, "epilogue">]}
// CHECK-NEXT: ^bb0(%{{.*}}: memref<2x16x16x3xf32, #kernel.space<GM>>, %{{.*}}: memref<3x3x16x16xf32, #kernel.space<GM>>, %{{.*}}: memref<40xf32, #kernel.space<GM>>, %{{.*}}: memref<2x3x16x16x16xf32, #kernel.space<GM>>):
// CHECK-NEXT: kernel.cores attributes {grid = array<i64: 1, {{[0-9]+}}, {{[0-9]+}}>
// A 3x3 conv's A operand: per M block the rows of x it reads go GM -> L1 once (view fmap,
// before the N loop), and Load3D expands each A tile from them on the way to L0A
// (compiler/target/conv_geometry.py; cann_to_kernel_load3d.mlir tests the choice).
// CHECK: kernel.load {{.*}}view = "from_origin"{{.*}}dst_view = "fmap"{{.*}} -> memref<1x{{[0-9]+}}x16x4xf32, #kernel.space<L1>>
// CHECK: kernel.alloc : memref<{{[0-9]+}}x{{[0-9]+}}x16x16xf32, #kernel.space<L0C>>
// CHECK: kernel.load {{.*}}view = "load3d"{{.*}}#kernel.space<L1>> -> memref<{{[0-9]+}}x4x16x8xf32, #kernel.space<L0A>>
// CHECK-NEXT: kernel.load {{.*}}view = "fz"{{.*}}#kernel.space<L1>>
// CHECK-NEXT: kernel.load {{.*}}view = "Zn"{{.*}}#kernel.space<L0B>>
// CHECK-NEXT: kernel.mmad
// CHECK: kernel.fixpipe {{.*}}#kernel.space<L0C>> -> memref<{{.*}}#kernel.space<UB>>
// CHECK-NEXT: kernel.load {{.*}}view = "channel"
// CHECK-NEXT: kernel.vec {{.*}}fn = "Add"
// CHECK-NEXT: kernel.vec {{.*}}fn = "act:Relu"
// CHECK-NEXT: kernel.store {{.*}}view = "nc1hwc0"
// The elementwise kernel at the output stores its tiles straight into the NHWC result (its
// output TransData folded into the store: view to_origin of its flat store).
// CHECK: kernel.vec_kernel {{.*}}kind = "Elementwise"{{.*}} -> tensor<2x16x16x40xf32>
// CHECK: kernel.load {{.*}}view = "channel_flat"
// CHECK: kernel.vec {{.*}}fn = "Add"
// CHECK: kernel.store {{.*}}view = "to_origin", {{.*}}src_view = "flat", src_format = "NC1HWC0", dst_format = "NHWC"}{{.*}}memref<2x16x16x40xf32, #kernel.space<GM>>
// CHECK-NOT: kernel.transdata
// CHECK: func.return
// A910: builtin.module attributes {cann.soc_version = "Ascend910A"}
// P310: builtin.module attributes {cann.soc_version = "Ascend310P3"}
// BADCHIP: cann_to_kernel.mlir: error: cann-to-kernel: unknown soc version 'Ascend999'; known: Ascend910A, Ascend910B1, Ascend910B2, Ascend910B3, Ascend910B4, Ascend310P3
// NOLAYOUT: cann_to_kernel.mlir:[[# @LINE + 3]]:3: error: cann.FusedConv2D: x must be NC1HWC0 and the filter FRACTAL_Z; run assign-layouts before cann-to-kernel [node 'conv1']
func.func @main(%x: tensor<2x16x16x3xf32>, %b: tensor<40xf32>, %b2: tensor<40xf32>) -> tensor<2x16x16x40xf32> {
  %w = cann.Const dense<0.125> : tensor<3x3x3x40xf32>
  %0 = cann.FusedConv2D %x, %w, %b {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "Relu"} : (tensor<2x16x16x3xf32>, tensor<3x3x3x40xf32>, tensor<40xf32>) -> tensor<2x16x16x40xf32> loc("conv1")
  %1 = cann.BiasAdd %0, %b2 {data_format = "NHWC"} : (tensor<2x16x16x40xf32>, tensor<40xf32>) -> tensor<2x16x16x40xf32>
  func.return %1 : tensor<2x16x16x40xf32>
}
