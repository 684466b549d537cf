// RUN: cann-opt %s | filecheck %s
// RUN: cann-opt %s --print-op-generic | cann-opt | filecheck %s
// RUN: cann-opt %s > %t.custom && cann-opt %t.custom > %t.again && cann-opt %s --print-op-generic | cann-opt > %t.roundtrip && diff %t.custom %t.again && diff %t.custom %t.roundtrip

// A `to_origin` store (a TransData to the origin layout folded into the producing vector
// kernel, compiler/conversions/cann_to_kernel/data_movement.py FoldOriginTransData) names its
// source view and the folded TransData's formats: they print as names and parse back.

// CHECK: kernel.store %{{.*}}, %{{.*}}[%{{.*}}] {view = "to_origin", params = {src_shape = array<i64: 1, 1, 4, 4, 16>}, src_view = "flat", src_format = "NC1HWC0", dst_format = "NHWC"} : memref<256xf32, #kernel.space<UB>>, memref<1x4x4x3xf32, #kernel.space<GM>>
builtin.module attributes {cann.soc_version = "Ascend910B3"} {
  func.func @relu_to_nhwc(%x: tensor<1x1x4x4x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 4, 4, 3]>>) -> tensor<1x4x4x3xf32> {
    %t = kernel.vec_kernel %x {kind = "Elementwise", block_dim = 1 : i64, tiling = #kernel.tiling<totalElems = 256, elemsPerCore = 256, tileElems = 256, tilesPerCore = 1>, buffers = [#kernel.buffer<UB, 2048, "io0">, #kernel.buffer<UB, 2048, "io1">]} : (tensor<1x1x4x4x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 4, 4, 3]>>) -> tensor<1x4x4x3xf32> {
    ^bb0(%0: memref<1x1x4x4x16xf32, #kernel.space<GM>>, %1: memref<1x4x4x3xf32, #kernel.space<GM>>):
      kernel.cores attributes {grid = array<i64: 1>, tile = array<i64: 256>} {
      ^bb0(%2: index):
        kernel.for %2 attributes {extent = 256 : i64, step = 256 : i64, limit = 256 : i64} {
        ^bb0(%3: index):
          %4 = kernel.load %0[%3] {view = "flat", params = {shape = array<i64: 1, 1, 4, 4, 16>}} : memref<1x1x4x4x16xf32, #kernel.space<GM>> -> memref<256xf32, #kernel.space<UB>>
          %5 = kernel.vec %4 {fn = "Relu", attrs = {}} : (memref<256xf32, #kernel.space<UB>>) -> memref<256xf32, #kernel.space<UB>>
          kernel.store %5, %1[%3] {view = "to_origin", params = {src_shape = array<i64: 1, 1, 4, 4, 16>}, src_view = "flat", src_format = "NC1HWC0", dst_format = "NHWC"} : memref<256xf32, #kernel.space<UB>>, memref<1x4x4x3xf32, #kernel.space<GM>>
          kernel.yield
        }
        kernel.yield
      }
      kernel.yield
    }
    func.return %t : tensor<1x4x4x3xf32>
  }
}
