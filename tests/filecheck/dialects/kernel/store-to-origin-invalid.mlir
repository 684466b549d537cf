// RUN: not cann-opt --split-input-file %s 2>&1 | filecheck %s

// A `to_origin` store needs its source view (not to_origin itself), the source shape and a
// (src_format, dst_format) pair of kernel.TO_ORIGIN_LAYOUTS; no other store takes them.

builtin.module attributes {cann.soc_version = "Ascend910B3"} {
  func.func @missing_src_view(%x: tensor<1x1x4x4x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 4, 4, 3]>>) -> tensor<1x4x4x3xf32> {
    // CHECK: store-to-origin-invalid.mlir:[[# @LINE + 9]]:11: error: kernel.store: a to_origin store needs 'src_view'
    %t = kernel.vec_kernel %x {kind = "Elementwise", block_dim = 1 : i64, tiling = #kernel.tiling<totalElems = 256, elemsPerCore = 256, tileElems = 256, tilesPerCore = 1>, buffers = [#kernel.buffer<UB, 2048, "io0">, #kernel.buffer<UB, 2048, "io1">]} : (tensor<1x1x4x4x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 4, 4, 3]>>) -> tensor<1x4x4x3xf32> {
    ^bb0(%0: memref<1x1x4x4x16xf32, #kernel.space<GM>>, %1: memref<1x4x4x3xf32, #kernel.space<GM>>):
      kernel.cores attributes {grid = array<i64: 1>, tile = array<i64: 256>} {
      ^bb0(%2: index):
        kernel.for %2 attributes {extent = 256 : i64, step = 256 : i64, limit = 256 : i64} {
        ^bb0(%3: index):
          %4 = kernel.load %0[%3] {view = "flat", params = {shape = array<i64: 1, 1, 4, 4, 16>}} : memref<1x1x4x4x16xf32, #kernel.space<GM>> -> memref<256xf32, #kernel.space<UB>>
          %5 = kernel.vec %4 {fn = "Relu", attrs = {}} : (memref<256xf32, #kernel.space<UB>>) -> memref<256xf32, #kernel.space<UB>>
          kernel.store %5, %1[%3] {view = "to_origin", params = {src_shape = array<i64: 1, 1, 4, 4, 16>}, src_format = "NC1HWC0", dst_format = "NHWC"} : memref<256xf32, #kernel.space<UB>>, memref<1x4x4x3xf32, #kernel.space<GM>>
          kernel.yield
        }
        kernel.yield
      }
      kernel.yield
    }
    func.return %t : tensor<1x4x4x3xf32>
  }
}

// -----

builtin.module attributes {cann.soc_version = "Ascend910B3"} {
  func.func @missing_src_shape(%x: tensor<1x1x4x4x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 4, 4, 3]>>) -> tensor<1x4x4x3xf32> {
    // CHECK-NEXT: store-to-origin-invalid.mlir:[[# @LINE + 9]]:11: error: kernel.store: a to_origin store needs 'params.src_shape'
    %t = kernel.vec_kernel %x {kind = "Elementwise", block_dim = 1 : i64, tiling = #kernel.tiling<totalElems = 256, elemsPerCore = 256, tileElems = 256, tilesPerCore = 1>, buffers = [#kernel.buffer<UB, 2048, "io0">, #kernel.buffer<UB, 2048, "io1">]} : (tensor<1x1x4x4x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 4, 4, 3]>>) -> tensor<1x4x4x3xf32> {
    ^bb0(%0: memref<1x1x4x4x16xf32, #kernel.space<GM>>, %1: memref<1x4x4x3xf32, #kernel.space<GM>>):
      kernel.cores attributes {grid = array<i64: 1>, tile = array<i64: 256>} {
      ^bb0(%2: index):
        kernel.for %2 attributes {extent = 256 : i64, step = 256 : i64, limit = 256 : i64} {
        ^bb0(%3: index):
          %4 = kernel.load %0[%3] {view = "flat", params = {shape = array<i64: 1, 1, 4, 4, 16>}} : memref<1x1x4x4x16xf32, #kernel.space<GM>> -> memref<256xf32, #kernel.space<UB>>
          %5 = kernel.vec %4 {fn = "Relu", attrs = {}} : (memref<256xf32, #kernel.space<UB>>) -> memref<256xf32, #kernel.space<UB>>
          kernel.store %5, %1[%3] {view = "to_origin", params = {}, src_view = "flat", src_format = "NC1HWC0", dst_format = "NHWC"} : memref<256xf32, #kernel.space<UB>>, memref<1x4x4x3xf32, #kernel.space<GM>>
          kernel.yield
        }
        kernel.yield
      }
      kernel.yield
    }
    func.return %t : tensor<1x4x4x3xf32>
  }
}

// -----

builtin.module attributes {cann.soc_version = "Ascend910B3"} {
  func.func @bad_layout(%x: tensor<1x1x4x4x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 4, 4, 3]>>) -> tensor<1x4x4x3xf32> {
    // CHECK-NEXT: store-to-origin-invalid.mlir:[[# @LINE + 9]]:11: error: kernel.store: a to_origin store goes FRACTAL_NZ -> ND, NC1HWC0 -> NHWC, NC1HWC0 -> NCHW; got FRACTAL_NZ -> NHWC
    %t = kernel.vec_kernel %x {kind = "Elementwise", block_dim = 1 : i64, tiling = #kernel.tiling<totalElems = 256, elemsPerCore = 256, tileElems = 256, tilesPerCore = 1>, buffers = [#kernel.buffer<UB, 2048, "io0">, #kernel.buffer<UB, 2048, "io1">]} : (tensor<1x1x4x4x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 4, 4, 3]>>) -> tensor<1x4x4x3xf32> {
    ^bb0(%0: memref<1x1x4x4x16xf32, #kernel.space<GM>>, %1: memref<1x4x4x3xf32, #kernel.space<GM>>):
      kernel.cores attributes {grid = array<i64: 1>, tile = array<i64: 256>} {
      ^bb0(%2: index):
        kernel.for %2 attributes {extent = 256 : i64, step = 256 : i64, limit = 256 : i64} {
        ^bb0(%3: index):
          %4 = kernel.load %0[%3] {view = "flat", params = {shape = array<i64: 1, 1, 4, 4, 16>}} : memref<1x1x4x4x16xf32, #kernel.space<GM>> -> memref<256xf32, #kernel.space<UB>>
          %5 = kernel.vec %4 {fn = "Relu", attrs = {}} : (memref<256xf32, #kernel.space<UB>>) -> memref<256xf32, #kernel.space<UB>>
          kernel.store %5, %1[%3] {view = "to_origin", params = {src_shape = array<i64: 1, 1, 4, 4, 16>}, src_view = "flat", src_format = "FRACTAL_NZ", dst_format = "NHWC"} : memref<256xf32, #kernel.space<UB>>, memref<1x4x4x3xf32, #kernel.space<GM>>
          kernel.yield
        }
        kernel.yield
      }
      kernel.yield
    }
    func.return %t : tensor<1x4x4x3xf32>
  }
}

// -----

builtin.module attributes {cann.soc_version = "Ascend910B3"} {
  func.func @src_view_to_origin(%x: tensor<1x1x4x4x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 4, 4, 3]>>) -> tensor<1x4x4x3xf32> {
    // CHECK-NEXT: store-to-origin-invalid.mlir:[[# @LINE + 9]]:11: error: kernel.store: src_view of a to_origin store cannot be 'to_origin'
    %t = kernel.vec_kernel %x {kind = "Elementwise", block_dim = 1 : i64, tiling = #kernel.tiling<totalElems = 256, elemsPerCore = 256, tileElems = 256, tilesPerCore = 1>, buffers = [#kernel.buffer<UB, 2048, "io0">, #kernel.buffer<UB, 2048, "io1">]} : (tensor<1x1x4x4x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 4, 4, 3]>>) -> tensor<1x4x4x3xf32> {
    ^bb0(%0: memref<1x1x4x4x16xf32, #kernel.space<GM>>, %1: memref<1x4x4x3xf32, #kernel.space<GM>>):
      kernel.cores attributes {grid = array<i64: 1>, tile = array<i64: 256>} {
      ^bb0(%2: index):
        kernel.for %2 attributes {extent = 256 : i64, step = 256 : i64, limit = 256 : i64} {
        ^bb0(%3: index):
          %4 = kernel.load %0[%3] {view = "flat", params = {shape = array<i64: 1, 1, 4, 4, 16>}} : memref<1x1x4x4x16xf32, #kernel.space<GM>> -> memref<256xf32, #kernel.space<UB>>
          %5 = kernel.vec %4 {fn = "Relu", attrs = {}} : (memref<256xf32, #kernel.space<UB>>) -> memref<256xf32, #kernel.space<UB>>
          kernel.store %5, %1[%3] {view = "to_origin", params = {src_shape = array<i64: 1, 1, 4, 4, 16>}, src_view = "to_origin", src_format = "NC1HWC0", dst_format = "NHWC"} : memref<256xf32, #kernel.space<UB>>, memref<1x4x4x3xf32, #kernel.space<GM>>
          kernel.yield
        }
        kernel.yield
      }
      kernel.yield
    }
    func.return %t : tensor<1x4x4x3xf32>
  }
}

// -----

builtin.module attributes {cann.soc_version = "Ascend910B3"} {
  func.func @unknown_src_view(%x: tensor<1x1x4x4x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 4, 4, 3]>>) -> tensor<1x4x4x3xf32> {
    // CHECK-NEXT: store-to-origin-invalid.mlir:[[# @LINE + 9]]:11: error: kernel.store: 'src_view' must be one of
    %t = kernel.vec_kernel %x {kind = "Elementwise", block_dim = 1 : i64, tiling = #kernel.tiling<totalElems = 256, elemsPerCore = 256, tileElems = 256, tilesPerCore = 1>, buffers = [#kernel.buffer<UB, 2048, "io0">, #kernel.buffer<UB, 2048, "io1">]} : (tensor<1x1x4x4x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 4, 4, 3]>>) -> tensor<1x4x4x3xf32> {
    ^bb0(%0: memref<1x1x4x4x16xf32, #kernel.space<GM>>, %1: memref<1x4x4x3xf32, #kernel.space<GM>>):
      kernel.cores attributes {grid = array<i64: 1>, tile = array<i64: 256>} {
      ^bb0(%2: index):
        kernel.for %2 attributes {extent = 256 : i64, step = 256 : i64, limit = 256 : i64} {
        ^bb0(%3: index):
          %4 = kernel.load %0[%3] {view = "flat", params = {shape = array<i64: 1, 1, 4, 4, 16>}} : memref<1x1x4x4x16xf32, #kernel.space<GM>> -> memref<256xf32, #kernel.space<UB>>
          %5 = kernel.vec %4 {fn = "Relu", attrs = {}} : (memref<256xf32, #kernel.space<UB>>) -> memref<256xf32, #kernel.space<UB>>
          kernel.store %5, %1[%3] {view = "to_origin", params = {src_shape = array<i64: 1, 1, 4, 4, 16>}, src_view = "diagonal", src_format = "NC1HWC0", dst_format = "NHWC"} : memref<256xf32, #kernel.space<UB>>, memref<1x4x4x3xf32, #kernel.space<GM>>
          kernel.yield
        }
        kernel.yield
      }
      kernel.yield
    }
    func.return %t : tensor<1x4x4x3xf32>
  }
}

// -----

builtin.module attributes {cann.soc_version = "Ascend910B3"} {
  func.func @src_view_on_flat(%x: tensor<1x1x4x4x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 4, 4, 3]>>) -> tensor<1x4x4x3xf32> {
    // CHECK-NEXT: store-to-origin-invalid.mlir:[[# @LINE + 9]]:11: error: kernel.store: 'src_view' is a to_origin store's, not a 'flat' store's
    %t = kernel.vec_kernel %x {kind = "Elementwise", block_dim = 1 : i64, tiling = #kernel.tiling<totalElems = 256, elemsPerCore = 256, tileElems = 256, tilesPerCore = 1>, buffers = [#kernel.buffer<UB, 2048, "io0">, #kernel.buffer<UB, 2048, "io1">]} : (tensor<1x1x4x4x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 4, 4, 3]>>) -> tensor<1x4x4x3xf32> {
    ^bb0(%0: memref<1x1x4x4x16xf32, #kernel.space<GM>>, %1: memref<1x4x4x3xf32, #kernel.space<GM>>):
      kernel.cores attributes {grid = array<i64: 1>, tile = array<i64: 256>} {
      ^bb0(%2: index):
        kernel.for %2 attributes {extent = 256 : i64, step = 256 : i64, limit = 256 : i64} {
        ^bb0(%3: index):
          %4 = kernel.load %0[%3] {view = "flat", params = {shape = array<i64: 1, 1, 4, 4, 16>}} : memref<1x1x4x4x16xf32, #kernel.space<GM>> -> memref<256xf32, #kernel.space<UB>>
          %5 = kernel.vec %4 {fn = "Relu", attrs = {}} : (memref<256xf32, #kernel.space<UB>>) -> memref<256xf32, #kernel.space<UB>>
          kernel.store %5, %1[%3] {view = "flat", params = {}, src_view = "flat"} : memref<256xf32, #kernel.space<UB>>, memref<1x4x4x3xf32, #kernel.space<GM>>
          kernel.yield
        }
        kernel.yield
      }
      kernel.yield
    }
    func.return %t : tensor<1x4x4x3xf32>
  }
}


// CHECK-NOT: error:
