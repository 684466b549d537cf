// RUN: cann-opt %s | filecheck %s
// RUN: cann-opt %s --print-op-generic | cann-opt | filecheck %s
// RUN: cann-opt %s --print-debuginfo | filecheck %s --check-prefix=LOC
// RUN: cann-opt %s --print-op-generic --print-debuginfo | cann-opt --print-debuginfo | filecheck %s --check-prefix=LOC
// RUN: cann-opt %s > %t.custom && cann-opt %s --print-op-generic | cann-opt > %t.roundtrip && diff %t.custom %t.roundtrip

// Every kernel op and the #kernel.tiling / #kernel.buffer attributes.  Kernels verify against
// the chip the module names.

builtin.module attributes {cann.soc_version = "Ascend910B3"} {
  func.func @conv_block(%x: tensor<1x3x8x8xf16>) -> tensor<1x4x8x8xf16> {
    %xs = kernel.transdata %x {src_format = "NCHW", dst_format = "NC1HWC0", block_dim = 1 : i64, tiling = #kernel.tiling<tileElems = 1024, tilesPerCore = 1>, buffers = [#kernel.buffer<UB, 4096, "src">, #kernel.buffer<UB, 4096, "dst">]} : (tensor<1x3x8x8xf16>) -> tensor<1x1x8x8x16xf16, #cann.format<NC1HWC0, origin NCHW [1, 3, 8, 8]>> loc("x/TransData")
    %w = cann.Const dense<5.000000e-01> : tensor<9x1x16x16xf16> -> tensor<9x1x16x16xf16, #cann.format<FRACTAL_Z, origin HWCN [3, 3, 3, 4]>> loc("conv/w")
    %b = cann.Const dense<1.000000e+00> : tensor<16xf16> loc("conv/b")
    %y = kernel.cube_conv2d %xs, %w, %b {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, kernel_hw = array<i64: 3, 3>, activation = "Relu", block_dim = 1 : i64, tiling = #kernel.tiling<usedCoreNum = 1, M = 64, N = 16, Ka = 144, Kb = 144, singleCoreM = 64, singleCoreN = 16, singleCoreK = 144, baseM = 64, baseN = 16, baseK = 144, depthA1 = 1, depthB1 = 1, stepM = 1, stepN = 1, stepKa = 1, stepKb = 1, iterateOrder = 0, dbL0A = 1, dbL0B = 1, dbL0C = 1>, buffers = [#kernel.buffer<L1, 18432, "A1">, #kernel.buffer<L1, 4608, "B1">, #kernel.buffer<L0A, 18432, "A">, #kernel.buffer<L0B, 4608, "B">, #kernel.buffer<L0C, 4096, "C">, #kernel.buffer<UB, 2048, "epilogue">, #kernel.buffer<GM, 0, "workspace">]} : (tensor<1x1x8x8x16xf16, #cann.format<NC1HWC0, origin NCHW [1, 3, 8, 8]>>, tensor<9x1x16x16xf16, #cann.format<FRACTAL_Z, origin HWCN [3, 3, 3, 4]>>, tensor<16xf16>) -> tensor<1x1x8x8x16xf16, #cann.format<NC1HWC0, origin NCHW [1, 4, 8, 8]>> loc(fused["conv/Conv2D", "conv/BiasAdd", "conv/Relu"])
    %r = kernel.vector %y {fn = "Relu", block_dim = 40 : i64, tiling = #kernel.tiling<tileElems = 64, tilesPerCore = 1>, buffers = [#kernel.buffer<UB, 196608, "io">]} : (tensor<1x1x8x8x16xf16, #cann.format<NC1HWC0, origin NCHW [1, 4, 8, 8]>>) -> tensor<1x1x8x8x16xf16, #cann.format<NC1HWC0, origin NCHW [1, 4, 8, 8]>> loc("relu2")
    %a = kernel.vector %r, %b {fn = "BiasAdd", block_dim = 2 : i64, tiling = #kernel.tiling<tileElems = 512, tilesPerCore = 1>, buffers = []} : (tensor<1x1x8x8x16xf16, #cann.format<NC1HWC0, origin NCHW [1, 4, 8, 8]>>, tensor<16xf16>) -> tensor<1x1x8x8x16xf16, #cann.format<NC1HWC0, origin NCHW [1, 4, 8, 8]>>
    %o = kernel.transdata %a {src_format = "NC1HWC0", dst_format = "NCHW", block_dim = 1 : i64, tiling = #kernel.tiling<tileElems = 256, tilesPerCore = 1>, buffers = [#kernel.buffer<UB, 0, "">]} : (tensor<1x1x8x8x16xf16, #cann.format<NC1HWC0, origin NCHW [1, 4, 8, 8]>>) -> tensor<1x4x8x8xf16>
    func.return %o : tensor<1x4x8x8xf16>
  }
}

// CHECK:       builtin.module attributes {cann.soc_version = "Ascend910B3"} {
// CHECK-NEXT:  func.func @conv_block(%x: tensor<1x3x8x8xf16>) -> tensor<1x4x8x8xf16> {
// CHECK-NEXT:    %xs = kernel.transdata %x {src_format = "NCHW", dst_format = "NC1HWC0", block_dim = 1 : i64, tiling = #kernel.tiling<tileElems = 1024, tilesPerCore = 1>, buffers = [#kernel.buffer<UB, 4096, "src">, #kernel.buffer<UB, 4096, "dst">]} : (tensor<1x3x8x8xf16>) -> tensor<1x1x8x8x16xf16, #cann.format<NC1HWC0, origin NCHW [1, 3, 8, 8]>>
// CHECK-NEXT:    %w = cann.Const
// CHECK-NEXT:    %b = cann.Const
// CHECK-NEXT:    %y = kernel.cube_conv2d %xs, %w, %b {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, kernel_hw = array<i64: 3, 3>, activation = "Relu", block_dim = 1 : i64, tiling = #kernel.tiling<usedCoreNum = 1, M = 64, N = 16, Ka = 144, Kb = 144, singleCoreM = 64, singleCoreN = 16, singleCoreK = 144, baseM = 64, baseN = 16, baseK = 144, depthA1 = 1, depthB1 = 1, stepM = 1, stepN = 1, stepKa = 1, stepKb = 1, iterateOrder = 0, dbL0A = 1, dbL0B = 1, dbL0C = 1>, buffers = [#kernel.buffer<L1, 18432, "A1">, #kernel.buffer<L1, 4608, "B1">, #kernel.buffer<L0A, 18432, "A">, #kernel.buffer<L0B, 4608, "B">, #kernel.buffer<L0C, 4096, "C">, #kernel.buffer<UB, 2048, "epilogue">, #kernel.buffer<GM, 0, "workspace">]} : (tensor<1x1x8x8x16xf16, #cann.format<NC1HWC0, origin NCHW [1, 3, 8, 8]>>, tensor<9x1x16x16xf16, #cann.format<FRACTAL_Z, origin HWCN [3, 3, 3, 4]>>, tensor<16xf16>) -> tensor<1x1x8x8x16xf16, #cann.format<NC1HWC0, origin NCHW [1, 4, 8, 8]>>
// CHECK-NEXT:    %r = kernel.vector %y {fn = "Relu", block_dim = 40 : i64, tiling = #kernel.tiling<tileElems = 64, tilesPerCore = 1>, buffers = [#kernel.buffer<UB, 196608, "io">]} : (tensor<1x1x8x8x16xf16, #cann.format<NC1HWC0, origin NCHW [1, 4, 8, 8]>>) -> tensor<1x1x8x8x16xf16, #cann.format<NC1HWC0, origin NCHW [1, 4, 8, 8]>>
// CHECK-NEXT:    %a = kernel.vector %r, %b {fn = "BiasAdd", block_dim = 2 : i64, tiling = #kernel.tiling<tileElems = 512, tilesPerCore = 1>, buffers = []} : (tensor<1x1x8x8x16xf16, #cann.format<NC1HWC0, origin NCHW [1, 4, 8, 8]>>, tensor<16xf16>) -> tensor<1x1x8x8x16xf16, #cann.format<NC1HWC0, origin NCHW [1, 4, 8, 8]>>
// CHECK-NEXT:    %o = kernel.transdata %a {src_format = "NC1HWC0", dst_format = "NCHW", block_dim = 1 : i64, tiling = #kernel.tiling<tileElems = 256, tilesPerCore = 1>, buffers = [#kernel.buffer<UB, 0, "">]} : (tensor<1x1x8x8x16xf16, #cann.format<NC1HWC0, origin NCHW [1, 4, 8, 8]>>) -> tensor<1x4x8x8xf16>
// CHECK-NEXT:    func.return %o : tensor<1x4x8x8xf16>

// LOC-LABEL: func.func @conv_block
// LOC:         kernel.transdata {{.*}} loc("x/TransData")
// LOC:         kernel.cube_conv2d {{.*}} loc(fused["conv/Conv2D", "conv/BiasAdd", "conv/Relu"])
// LOC-NEXT:    kernel.vector {{.*}} loc("relu2")
// LOC-NEXT:    kernel.vector {{.*}} loc(unknown)
