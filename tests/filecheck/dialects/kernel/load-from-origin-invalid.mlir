// RUN: not cann-opt --split-input-file %s 2>&1 | filecheck %s

// A `from_origin` load (compiler/conversions/cann_to_kernel/data_movement.py FoldInputTransData)
// needs its device view (not from_origin itself), the device shape and a (src_format,
// dst_format) pair of kernel.FROM_ORIGIN_LAYOUTS, and goes GM -> L1; no other load takes them.

builtin.module attributes {cann.soc_version = "Ascend910B3"} {
  func.func @missing_dst_view(%x: tensor<1x4x4x3xf32>) -> tensor<256xf32> {
    // CHECK: load-from-origin-invalid.mlir:[[# @LINE + 7]]:11: error: kernel.load: a from_origin load needs 'dst_view'
    %t = kernel.vec_kernel %x {kind = "Elementwise", block_dim = 1 : i64, tiling = #kernel.tiling<totalElems = 256, elemsPerCore = 256, tileElems = 256, tilesPerCore = 1>, buffers = [#kernel.buffer<UB, 2048, "io0">, #kernel.buffer<UB, 2048, "io1">]} : (tensor<1x4x4x3xf32>) -> tensor<256xf32> {
    ^bb0(%0: memref<1x4x4x3xf32, #kernel.space<GM>>, %1: memref<256xf32, #kernel.space<GM>>):
      kernel.cores attributes {grid = array<i64: 1>, tile = array<i64: 256>} {
      ^bb0(%2: index):
        kernel.for %2 attributes {extent = 256 : i64, step = 256 : i64, limit = 256 : i64} {
        ^bb0(%3: index):
          %4 = kernel.load %0[%3] {view = "from_origin", params = {dst_shape = array<i64: 1, 1, 4, 4, 16>}, src_format = "NHWC", dst_format = "NC1HWC0"} : memref<1x4x4x3xf32, #kernel.space<GM>> -> memref<256xf32, #kernel.space<L1>>
          kernel.yield
        }
        kernel.yield
      }
      kernel.yield
    }
    func.return %t : tensor<256xf32>
  }
}

// -----

builtin.module attributes {cann.soc_version = "Ascend910B3"} {
  func.func @missing_dst_shape(%x: tensor<1x4x4x3xf32>) -> tensor<256xf32> {
    // CHECK-NEXT: load-from-origin-invalid.mlir:[[# @LINE + 7]]:11: error: kernel.load: a from_origin load needs 'params.dst_shape'
    %t = kernel.vec_kernel %x {kind = "Elementwise", block_dim = 1 : i64, tiling = #kernel.tiling<totalElems = 256, elemsPerCore = 256, tileElems = 256, tilesPerCore = 1>, buffers = [#kernel.buffer<UB, 2048, "io0">, #kernel.buffer<UB, 2048, "io1">]} : (tensor<1x4x4x3xf32>) -> tensor<256xf32> {
    ^bb0(%0: memref<1x4x4x3xf32, #kernel.space<GM>>, %1: memref<256xf32, #kernel.space<GM>>):
      kernel.cores attributes {grid = array<i64: 1>, tile = array<i64: 256>} {
      ^bb0(%2: index):
        kernel.for %2 attributes {extent = 256 : i64, step = 256 : i64, limit = 256 : i64} {
        ^bb0(%3: index):
          %4 = kernel.load %0[%3] {view = "from_origin", params = {}, dst_view = "flat", src_format = "NHWC", dst_format = "NC1HWC0"} : memref<1x4x4x3xf32, #kernel.space<GM>> -> memref<256xf32, #kernel.space<L1>>
          kernel.yield
        }
        kernel.yield
      }
      kernel.yield
    }
    func.return %t : tensor<256xf32>
  }
}

// -----

builtin.module attributes {cann.soc_version = "Ascend910B3"} {
  func.func @to_ub(%x: tensor<1x4x4x3xf32>) -> tensor<256xf32> {
    // CHECK-NEXT: load-from-origin-invalid.mlir:[[# @LINE + 7]]:11: error: kernel.load: a from_origin load goes GM -> L1 (the converting DMA's path); got GM -> UB
    %t = kernel.vec_kernel %x {kind = "Elementwise", block_dim = 1 : i64, tiling = #kernel.tiling<totalElems = 256, elemsPerCore = 256, tileElems = 256, tilesPerCore = 1>, buffers = [#kernel.buffer<UB, 2048, "io0">, #kernel.buffer<UB, 2048, "io1">]} : (tensor<1x4x4x3xf32>) -> tensor<256xf32> {
    ^bb0(%0: memref<1x4x4x3xf32, #kernel.space<GM>>, %1: memref<256xf32, #kernel.space<GM>>):
      kernel.cores attributes {grid = array<i64: 1>, tile = array<i64: 256>} {
      ^bb0(%2: index):
        kernel.for %2 attributes {extent = 256 : i64, step = 256 : i64, limit = 256 : i64} {
        ^bb0(%3: index):
          %4 = kernel.load %0[%3] {view = "from_origin", params = {dst_shape = array<i64: 1, 1, 4, 4, 16>}, dst_view = "flat", src_format = "NHWC", dst_format = "NC1HWC0"} : memref<1x4x4x3xf32, #kernel.space<GM>> -> memref<256xf32, #kernel.space<UB>>
          kernel.yield
        }
        kernel.yield
      }
      kernel.yield
    }
    func.return %t : tensor<256xf32>
  }
}

// -----

builtin.module attributes {cann.soc_version = "Ascend910B3"} {
  func.func @nchw(%x: tensor<1x4x4x3xf32>) -> tensor<256xf32> {
    // CHECK-NEXT: load-from-origin-invalid.mlir:[[# @LINE + 7]]:11: error: kernel.load: a from_origin load goes ND -> FRACTAL_NZ, NHWC -> NC1HWC0, NHWC -> NC1HWC0_C04; got NCHW -> NC1HWC0
    %t = kernel.vec_kernel %x {kind = "Elementwise", block_dim = 1 : i64, tiling = #kernel.tiling<totalElems = 256, elemsPerCore = 256, tileElems = 256, tilesPerCore = 1>, buffers = [#kernel.buffer<UB, 2048, "io0">, #kernel.buffer<UB, 2048, "io1">]} : (tensor<1x4x4x3xf32>) -> tensor<256xf32> {
    ^bb0(%0: memref<1x4x4x3xf32, #kernel.space<GM>>, %1: memref<256xf32, #kernel.space<GM>>):
      kernel.cores attributes {grid = array<i64: 1>, tile = array<i64: 256>} {
      ^bb0(%2: index):
        kernel.for %2 attributes {extent = 256 : i64, step = 256 : i64, limit = 256 : i64} {
        ^bb0(%3: index):
          %4 = kernel.load %0[%3] {view = "from_origin", params = {dst_shape = array<i64: 1, 1, 4, 4, 16>}, dst_view = "flat", src_format = "NCHW", dst_format = "NC1HWC0"} : memref<1x4x4x3xf32, #kernel.space<GM>> -> memref<256xf32, #kernel.space<L1>>
          kernel.yield
        }
        kernel.yield
      }
      kernel.yield
    }
    func.return %t : tensor<256xf32>
  }
}

// -----

builtin.module attributes {cann.soc_version = "Ascend910B3"} {
  func.func @nested(%x: tensor<1x4x4x3xf32>) -> tensor<256xf32> {
    // CHECK-NEXT: load-from-origin-invalid.mlir:[[# @LINE + 7]]:11: error: kernel.load: dst_view of a from_origin load cannot be 'from_origin'
    %t = kernel.vec_kernel %x {kind = "Elementwise", block_dim = 1 : i64, tiling = #kernel.tiling<totalElems = 256, elemsPerCore = 256, tileElems = 256, tilesPerCore = 1>, buffers = [#kernel.buffer<UB, 2048, "io0">, #kernel.buffer<UB, 2048, "io1">]} : (tensor<1x4x4x3xf32>) -> tensor<256xf32> {
    ^bb0(%0: memref<1x4x4x3xf32, #kernel.space<GM>>, %1: memref<256xf32, #kernel.space<GM>>):
      kernel.cores attributes {grid = array<i64: 1>, tile = array<i64: 256>} {
      ^bb0(%2: index):
        kernel.for %2 attributes {extent = 256 : i64, step = 256 : i64, limit = 256 : i64} {
        ^bb0(%3: index):
          %4 = kernel.load %0[%3] {view = "from_origin", params = {dst_shape = array<i64: 1, 1, 4, 4, 16>}, dst_view = "from_origin", src_format = "NHWC", dst_format = "NC1HWC0"} : memref<1x4x4x3xf32, #kernel.space<GM>> -> memref<256xf32, #kernel.space<L1>>
          kernel.yield
        }
        kernel.yield
      }
      kernel.yield
    }
    func.return %t : tensor<256xf32>
  }
}

// -----

builtin.module attributes {cann.soc_version = "Ascend910B3"} {
  func.func @not_from_origin(%x: tensor<1x4x4x3xf32>) -> tensor<256xf32> {
    // CHECK-NEXT: load-from-origin-invalid.mlir:[[# @LINE + 7]]:11: error: kernel.load: 'dst_view' is a from_origin load's, not a 'flat' load's
    %t = kernel.vec_kernel %x {kind = "Elementwise", block_dim = 1 : i64, tiling = #kernel.tiling<totalElems = 256, elemsPerCore = 256, tileElems = 256, tilesPerCore = 1>, buffers = [#kernel.buffer<UB, 2048, "io0">, #kernel.buffer<UB, 2048, "io1">]} : (tensor<1x4x4x3xf32>) -> tensor<256xf32> {
    ^bb0(%0: memref<1x4x4x3xf32, #kernel.space<GM>>, %1: memref<256xf32, #kernel.space<GM>>):
      kernel.cores attributes {grid = array<i64: 1>, tile = array<i64: 256>} {
      ^bb0(%2: index):
        kernel.for %2 attributes {extent = 256 : i64, step = 256 : i64, limit = 256 : i64} {
        ^bb0(%3: index):
          %4 = kernel.load %0[%3] {view = "flat", params = {}, dst_view = "flat"} : memref<1x4x4x3xf32, #kernel.space<GM>> -> memref<256xf32, #kernel.space<UB>>
          kernel.yield
        }
        kernel.yield
      }
      kernel.yield
    }
    func.return %t : tensor<256xf32>
  }
}

// CHECK-NOT: error:
