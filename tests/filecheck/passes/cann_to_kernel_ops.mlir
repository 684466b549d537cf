// RUN: cann-opt --assign-layouts --cann-to-kernel --tiling-stats %s 2>%t.stats | filecheck %s
// RUN: filecheck %s --check-prefix=STATS < %t.stats
// RUN: cann-opt --assign-layouts --cann-to-kernel %s | cann-opt --print-op-generic | cann-opt | filecheck %s

// Matmul: operands FRACTAL_NZ (x1 converted ND -> NZ by its GM -> L1 loads, FoldInputTransData;
// the constant converted at compile time), a cube kernel loading NZ tiles; the bias goes to UB for the epilogue.  The result's TransData
// back to ND folds into the kernel's stores (FoldOriginTransData: to_origin of its nz store, the
// padding rows 17..31 not stored).
// CHECK-LABEL: func.func @matmul
// CHECK-NOT: kernel.transdata
// CHECK: cann.Const {{.*}} -> tensor<3x2x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [20, 33]>>
// CHECK: kernel.cube %a, {{.*}}kind = "MatMulV2"{{.*}}tiling = #kernel.tiling<usedCoreNum = {{[0-9]+}}, M = 17, N = 33, Ka = 32, Kb = 32,
// CHECK: kernel.load {{.*}}view = "from_origin"{{.*}}dst_view = "nz", src_format = "ND", dst_format = "FRACTAL_NZ"}{{.*}}#kernel.space<L1>>
// CHECK: kernel.mmad
// CHECK: kernel.load {{.*}}view = "channel"
// CHECK: kernel.store {{.*}}view = "to_origin", {{.*}}src_view = "nz", src_format = "FRACTAL_NZ", dst_format = "ND"}{{.*}}memref<17x33xf32, #kernel.space<GM>>
// CHECK-NOT: kernel.transdata
// CHECK: func.return
func.func @matmul(%a: tensor<17x20xf32>, %bias: tensor<33xf32>) -> tensor<17x33xf32> {
  %b = cann.Const dense<0.5> : tensor<20x33xf32>
  %y = cann.MatMulV2 %a, %b, %bias {transpose_x1 = 0 : i64, transpose_x2 = 0 : i64} : (tensor<17x20xf32>, tensor<20x33xf32>, tensor<33xf32>) -> tensor<17x33xf32>
  func.return %y : tensor<17x33xf32>
}

// Depthwise: FRACTAL_Z with groups = C (enlargement: e_mult = 16, g_dim = 2 for 32 channels),
// one GEMM per enlarged group, the group dimension split over the cores too.
// CHECK-LABEL: func.func @depthwise
// CHECK: cann.Const {{.*}} -> tensor<18x1x16x16xf32, #cann.format<FRACTAL_Z, origin HWCN [3, 3, 32, 1], groups 32>>
// CHECK: kernel.cube {{.*}}kind = "DepthwiseConv2D"{{.*}}N = 16, Ka = 144, Kb = 144,{{.*}}batchNum = 2, singleCoreBatch = {{[12]}}>
// CHECK: kernel.load {{.*}}view = "from_origin"{{.*}}cin_group = 16 : i64, cin = 32 : i64{{.*}}dst_view = "img2col"
func.func @depthwise(%x: tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32> {
  %w = cann.Const dense<0.5> : tensor<3x3x32x1xf32>
  %y = cann.DepthwiseConv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, data_format = "NHWC"} : (tensor<1x8x8x32xf32>, tensor<3x3x32x1xf32>) -> tensor<1x8x8x32xf32>
  func.return %y : tensor<1x8x8x32xf32>
}

// Pooling on the vector unit, NC1HWC0 windows in UB; an elementwise op after it stays in NC1HWC0.
// CHECK-LABEL: func.func @pool
// CHECK: kernel.vec_kernel {{.*}}kind = "MaxPool"
// CHECK: kernel.load {{.*}}view = "windows"{{.*}} -> memref<{{[0-9]+}}x9x16xf32, #kernel.space<UB>>
// CHECK-NEXT: kernel.vec {{.*}}fn = "PoolMax"
// CHECK-NEXT: kernel.store {{.*}}view = "rows"
// Its output TransData folds into the elementwise kernel's flat store (view to_origin).
// CHECK: kernel.vec_kernel {{.*}}kind = "Elementwise"{{.*}} -> tensor<1x5x5x20xf32> {
// CHECK: kernel.vec {{.*}}fn = "Sigmoid"
// CHECK-NEXT: kernel.store {{.*}}view = "to_origin", params = {src_shape = array<i64: 1, 2, 5, 5, 16>}, src_view = "flat", src_format = "NC1HWC0", dst_format = "NHWC"}
// CHECK-NOT: kernel.transdata
// CHECK: func.return
func.func @pool(%x: tensor<1x9x9x20xf32>) -> tensor<1x5x5x20xf32> {
  %p = cann.MaxPool %x {ksize = array<i64: 1, 3, 3, 1>, strides = array<i64: 1, 2, 2, 1>, padding = "SAME", data_format = "NHWC"} : (tensor<1x9x9x20xf32>) -> tensor<1x5x5x20xf32>
  %s = cann.Sigmoid %p : (tensor<1x5x5x20xf32>) -> tensor<1x5x5x20xf32>
  func.return %s : tensor<1x5x5x20xf32>
}

// STATS: // tiling cache: cube hits={{[0-9]+}} misses={{[0-9]+}}, vector hits={{[0-9]+}} misses={{[0-9]+}}
