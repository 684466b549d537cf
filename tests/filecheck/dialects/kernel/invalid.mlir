// RUN: not cann-opt --split-input-file %s 2>&1 | filecheck %s

// Deliberately invalid kernel ops, checked against the chip the module names (cann.soc_version;
// Ascend910B3: 20 cube cores, 40 vector cores, L0A 64 KiB, UB 192 KiB).  The driver reports
// every chunk's errors, one line per failing op.  An unknown memory space is a parse error.

func.func @no_soc(%x: tensor<16xf16>) -> tensor<16xf16> {
  // CHECK: {{.*}}invalid.mlir:9:3: error: kernel.vector: the module must name its chip with 'cann.soc_version' [node 'relu']
  %y = kernel.vector %x {fn = "Relu", block_dim = 1 : i64, tiling = #kernel.tiling<tileElems = 16, tilesPerCore = 1>, buffers = []} : (tensor<16xf16>) -> tensor<16xf16> loc("relu")
  func.return %y : tensor<16xf16>
}

// -----

builtin.module attributes {cann.soc_version = "Ascend999"} {
  func.func @unknown_chip(%x: tensor<16xf16>) -> tensor<16xf16> {
    // CHECK-NEXT: {{.*}}invalid.mlir:18:5: error: unknown soc version 'Ascend999'; known: Ascend910A, Ascend910B1, Ascend910B2, Ascend910B3, Ascend910B4, Ascend310P3
    %y = kernel.vector %x {fn = "Relu", block_dim = 1 : i64, tiling = #kernel.tiling<tileElems = 16, tilesPerCore = 1>, buffers = []} : (tensor<16xf16>) -> tensor<16xf16>
    func.return %y : tensor<16xf16>
  }
}

// -----

builtin.module attributes {cann.soc_version = "Ascend910B3"} {
  func.func @vector_block_dim(%x: tensor<16xf16>) -> tensor<16xf16> {
    // CHECK-NEXT: {{.*}}invalid.mlir:28:5: error: kernel.vector: block_dim 41 is outside 1..40 vector cores of Ascend910B3 [node 'relu']
    %y = kernel.vector %x {fn = "Relu", block_dim = 41 : i64, tiling = #kernel.tiling<tileElems = 16, tilesPerCore = 1>, buffers = []} : (tensor<16xf16>) -> tensor<16xf16> loc("relu")
    func.return %y : tensor<16xf16>
  }
}

// -----

builtin.module attributes {cann.soc_version = "Ascend910B3"} {
  func.func @block_dim_zero(%x: tensor<16xf16>) -> tensor<16xf16> {
    // CHECK-NEXT: {{.*}}invalid.mlir:38:5: error: kernel.transdata: block_dim 0 is outside 1..40 vector cores of Ascend910B3
    %y = kernel.transdata %x {src_format = "ND", dst_format = "ND", block_dim = 0 : i64, tiling = #kernel.tiling<tileElems = 16>, buffers = []} : (tensor<16xf16>) -> tensor<16xf16>
    func.return %y : tensor<16xf16>
  }
}

// -----

builtin.module attributes {cann.soc_version = "Ascend910B3"} {
  func.func @cube_block_dim(%x: tensor<1x1x8x8x16xf16>, %w: tensor<9x1x16x16xf16>) -> tensor<1x1x8x8x16xf16> {
    // CHECK-NEXT: {{.*}}invalid.mlir:48:5: error: kernel.cube_conv2d: block_dim 21 is outside 1..20 cube cores of Ascend910B3 [node 'conv']
    %y = kernel.cube_conv2d %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, kernel_hw = array<i64: 3, 3>, activation = "none", block_dim = 21 : i64, tiling = #kernel.tiling<usedCoreNum = 21, M = 64, N = 16, Ka = 144, Kb = 144, singleCoreM = 64, singleCoreN = 16, singleCoreK = 144, baseM = 64, baseN = 16, baseK = 144, depthA1 = 1, depthB1 = 1, stepM = 1, stepN = 1, stepKa = 1, stepKb = 1, iterateOrder = 0, dbL0A = 1, dbL0B = 1, dbL0C = 1>, buffers = []} : (tensor<1x1x8x8x16xf16>, tensor<9x1x16x16xf16>) -> tensor<1x1x8x8x16xf16> loc("conv")
    func.return %y : tensor<1x1x8x8x16xf16>
  }
}

// -----

builtin.module attributes {cann.soc_version = "Ascend910B3"} {
  func.func @l0a_overflow(%x: tensor<1x1x8x8x16xf16>, %w: tensor<9x1x16x16xf16>) -> tensor<1x1x8x8x16xf16> {
    // CHECK-NEXT: {{.*}}invalid.mlir:58:5: error: kernel.cube_conv2d: buffers in L0A ("A") need 70000 bytes; Ascend910B3 has 65536 [node 'conv']
    %y = kernel.cube_conv2d %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, kernel_hw = array<i64: 3, 3>, activation = "none", block_dim = 1 : i64, tiling = #kernel.tiling<usedCoreNum = 1, M = 64, N = 16, Ka = 144, Kb = 144, singleCoreM = 64, singleCoreN = 16, singleCoreK = 144, baseM = 64, baseN = 16, baseK = 144, depthA1 = 1, depthB1 = 1, stepM = 1, stepN = 1, stepKa = 1, stepKb = 1, iterateOrder = 0, dbL0A = 1, dbL0B = 1, dbL0C = 1>, buffers = [#kernel.buffer<L0A, 70000, "A">, #kernel.buffer<L0B, 4608, "B">]} : (tensor<1x1x8x8x16xf16>, tensor<9x1x16x16xf16>) -> tensor<1x1x8x8x16xf16> loc("conv")
    func.return %y : tensor<1x1x8x8x16xf16>
  }
}

// -----

builtin.module attributes {cann.soc_version = "Ascend910B3"} {
  func.func @ub_overflow_sum(%x: tensor<16xf16>) -> tensor<16xf16> {
    // CHECK-NEXT: {{.*}}invalid.mlir:68:5: error: kernel.vector: buffers in UB ("in", "out") need 262144 bytes; Ascend910B3 has 196608
    %y = kernel.vector %x {fn = "Relu", block_dim = 1 : i64, tiling = #kernel.tiling<tileElems = 16, tilesPerCore = 1>, buffers = [#kernel.buffer<UB, 131072, "in">, #kernel.buffer<GM, 99999999, "ws">, #kernel.buffer<UB, 131072, "out">]} : (tensor<16xf16>) -> tensor<16xf16>
    func.return %y : tensor<16xf16>
  }
}

// -----

builtin.module attributes {cann.soc_version = "Ascend910B3"} {
  func.func @memory_space(%x: tensor<16xf16>) -> tensor<16xf16> {
    // CHECK-NEXT: {{.*}}invalid.mlir:78:147: error: unknown memory space 'L2'; known: GM, L1, L0A, L0B, L0C, UB
    %y = kernel.vector %x {fn = "Relu", block_dim = 1 : i64, tiling = #kernel.tiling<tileElems = 16, tilesPerCore = 1>, buffers = [#kernel.buffer<L2, 1024, "in">]} : (tensor<16xf16>) -> tensor<16xf16>
    func.return %y : tensor<16xf16>
  }
}

// -----

builtin.module attributes {cann.soc_version = "Ascend910B3"} {
  func.func @cube_tiling(%x: tensor<1x1x8x8x16xf16>, %w: tensor<9x1x16x16xf16>) -> tensor<1x1x8x8x16xf16> {
    // CHECK-NEXT: {{.*}}invalid.mlir:88:5: error: kernel.cube_conv2d: tiling lacks baseK, dbL0C
    %y = kernel.cube_conv2d %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, kernel_hw = array<i64: 3, 3>, activation = "none", block_dim = 1 : i64, tiling = #kernel.tiling<usedCoreNum = 1, M = 64, N = 16, Ka = 144, Kb = 144, singleCoreM = 64, singleCoreN = 16, singleCoreK = 144, baseM = 64, baseN = 16, depthA1 = 1, depthB1 = 1, stepM = 1, stepN = 1, stepKa = 1, stepKb = 1, iterateOrder = 0, dbL0A = 1, dbL0B = 1>, buffers = []} : (tensor<1x1x8x8x16xf16>, tensor<9x1x16x16xf16>) -> tensor<1x1x8x8x16xf16>
    func.return %y : tensor<1x1x8x8x16xf16>
  }
}

// -----

builtin.module attributes {cann.soc_version = "Ascend910B3"} {
  func.func @vector_tiling(%x: tensor<16xf16>) -> tensor<16xf16> {
    // CHECK-NEXT: {{.*}}invalid.mlir:98:5: error: kernel.vector: tiling lacks tilesPerCore
    %y = kernel.vector %x {fn = "Relu", block_dim = 1 : i64, tiling = #kernel.tiling<tileElems = 16>, buffers = []} : (tensor<16xf16>) -> tensor<16xf16>
    func.return %y : tensor<16xf16>
  }
}

// -----

builtin.module attributes {cann.soc_version = "Ascend910B3"} {
  func.func @vector_fn(%x: tensor<16xf16>) -> tensor<16xf16> {
    // CHECK-NEXT: {{.*}}invalid.mlir:108:5: error: kernel.vector: 'fn' must be one of Relu, BiasAdd; got 'Sigmoid'
    %y = kernel.vector %x {fn = "Sigmoid", block_dim = 1 : i64, tiling = #kernel.tiling<tileElems = 16, tilesPerCore = 1>, buffers = []} : (tensor<16xf16>) -> tensor<16xf16>
    func.return %y : tensor<16xf16>
  }
}

// -----

builtin.module attributes {cann.soc_version = "Ascend910B3"} {
  func.func @cube_rank(%x: tensor<1x8x8x16xf16>, %w: tensor<9x1x16x16xf16>) -> tensor<1x1x8x8x16xf16> {
    // CHECK-NEXT: {{.*}}invalid.mlir:118:5: error: kernel.cube_conv2d: x and y must be NC1HWC0 (rank 5)
    %y = kernel.cube_conv2d %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, kernel_hw = array<i64: 3, 3>, activation = "none", block_dim = 1 : i64, tiling = #kernel.tiling<usedCoreNum = 1>, buffers = []} : (tensor<1x8x8x16xf16>, tensor<9x1x16x16xf16>) -> tensor<1x1x8x8x16xf16>
    func.return %y : tensor<1x1x8x8x16xf16>
  }
}

// -----

builtin.module attributes {cann.soc_version = "Ascend910B3"} {
  func.func @cube_filter_rank(%x: tensor<1x1x8x8x16xf16>, %w: tensor<3x3x3x4x1xf16>) -> tensor<1x1x8x8x16xf16> {
    // CHECK-NEXT: {{.*}}invalid.mlir:128:5: error: kernel.cube_conv2d: filter must be FRACTAL_Z (rank 4)
    %y = kernel.cube_conv2d %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, kernel_hw = array<i64: 3, 3>, activation = "none", block_dim = 1 : i64, tiling = #kernel.tiling<usedCoreNum = 1>, buffers = []} : (tensor<1x1x8x8x16xf16>, tensor<3x3x3x4x1xf16>) -> tensor<1x1x8x8x16xf16>
    func.return %y : tensor<1x1x8x8x16xf16>
  }
}

// -----

builtin.module attributes {cann.soc_version = "Ascend910B3"} {
  func.func @cube_attrs(%x: tensor<1x1x8x8x16xf16>, %w: tensor<9x1x16x16xf16>) -> tensor<1x1x8x8x16xf16> {
    // CHECK-NEXT: {{.*}}invalid.mlir:138:5: error: kernel.cube_conv2d: 'strides' must have 2 values, got 4
    %y = kernel.cube_conv2d %x, %w {strides = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, kernel_hw = array<i64: 3, 3>, activation = "none", block_dim = 1 : i64, tiling = #kernel.tiling<usedCoreNum = 1>, buffers = []} : (tensor<1x1x8x8x16xf16>, tensor<9x1x16x16xf16>) -> tensor<1x1x8x8x16xf16>
    // CHECK-NEXT: {{.*}}invalid.mlir:140:5: error: kernel.cube_conv2d: 'activation' must be one of none, Relu; got 'Gelu'
    %z = kernel.cube_conv2d %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, kernel_hw = array<i64: 3, 3>, activation = "Gelu", block_dim = 1 : i64, tiling = #kernel.tiling<usedCoreNum = 1>, buffers = []} : (tensor<1x1x8x8x16xf16>, tensor<9x1x16x16xf16>) -> tensor<1x1x8x8x16xf16>
    // CHECK-NEXT: {{.*}}invalid.mlir:142:5: error: kernel.cube_conv2d: 'kernel_hw' must have 2 values, got 1
    %k = kernel.cube_conv2d %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, kernel_hw = array<i64: 3>, activation = "none", block_dim = 1 : i64, tiling = #kernel.tiling<usedCoreNum = 1>, buffers = []} : (tensor<1x1x8x8x16xf16>, tensor<9x1x16x16xf16>) -> tensor<1x1x8x8x16xf16>
    func.return %y : tensor<1x1x8x8x16xf16>
  }
}

// CHECK-NOT: error:
