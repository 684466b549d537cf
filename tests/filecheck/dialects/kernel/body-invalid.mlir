// RUN: not cann-opt --split-input-file %s 2>&1 | filecheck %s

// Kernel bodies: the data path between memory spaces is checked, and so is every tile's size
// against the chip (Ascend910B3: L0A 64 KiB) and the core grid against block_dim.

builtin.module attributes {cann.soc_version = "Ascend910B3"} {
  func.func @bad_path(%x: tensor<256xf32>) -> tensor<256xf32> {
    // CHECK: body-invalid.mlir:[[# @LINE + 4]]:7: error: kernel.load: result must be a memref in L1 or UB, got memref<256xf32, #kernel.space<L0A>>
    %y = kernel.vec_kernel %x {kind = "Elementwise", block_dim = 1 : i64, tiling = #kernel.tiling<tileElems = 256>, buffers = []} : (tensor<256xf32>) -> tensor<256xf32> {
    ^bb0(%a: memref<256xf32, #kernel.space<GM>>, %o: memref<256xf32, #kernel.space<GM>>):
      %i = kernel.index {value = 0 : i64}
      %t = kernel.load %a[%i] {view = "flat", params = {shape = array<i64: 256>}} : memref<256xf32, #kernel.space<GM>> -> memref<256xf32, #kernel.space<L0A>>
      kernel.yield
    } loc("k")
    func.return %y : tensor<256xf32>
  }
}

// -----

builtin.module attributes {cann.soc_version = "Ascend910B3"} {
  func.func @too_big(%x: tensor<256xf32>) -> tensor<256xf32> {
    // CHECK-NEXT: body-invalid.mlir:[[# @LINE + 1]]:5: error: kernel.vec_kernel: a UB tile of 262144 bytes (memref<65536xf32, #kernel.space<UB>>) exceeds Ascend910B3's UB of 196608 bytes
    %y = kernel.vec_kernel %x {kind = "Elementwise", block_dim = 1 : i64, tiling = #kernel.tiling<tileElems = 256>, buffers = []} : (tensor<256xf32>) -> tensor<256xf32> {
    ^bb0(%a: memref<256xf32, #kernel.space<GM>>, %o: memref<256xf32, #kernel.space<GM>>):
      %i = kernel.index {value = 0 : i64}
      %t = kernel.load %a[%i] {view = "flat", params = {shape = array<i64: 256>}} : memref<256xf32, #kernel.space<GM>> -> memref<65536xf32, #kernel.space<UB>>
      kernel.yield
    }
    func.return %y : tensor<256xf32>
  }
}

// -----

builtin.module attributes {cann.soc_version = "Ascend910B3"} {
  func.func @grid(%x: tensor<256xf32>) -> tensor<256xf32> {
    // CHECK-NEXT: body-invalid.mlir:[[# @LINE + 1]]:5: error: kernel.vec_kernel: kernel.cores grid [4] has 4 blocks, block_dim is 2
    %y = kernel.vec_kernel %x {kind = "Elementwise", block_dim = 2 : i64, tiling = #kernel.tiling<tileElems = 256>, buffers = []} : (tensor<256xf32>) -> tensor<256xf32> {
    ^bb0(%a: memref<256xf32, #kernel.space<GM>>, %o: memref<256xf32, #kernel.space<GM>>):
      kernel.cores attributes {grid = array<i64: 4>, tile = array<i64: 64>} {
      ^bb0(%c: index):
        kernel.yield
      }
      kernel.yield
    }
    func.return %y : tensor<256xf32>
  }
}

// -----

builtin.module attributes {cann.soc_version = "Ascend910B3"} {
  func.func @mmad_spaces(%x: tensor<256xf32>) -> tensor<256xf32> {
    // CHECK-NEXT: body-invalid.mlir:[[# @LINE + 5]]:7: error: kernel.mmad: a must be a memref in L0A, got memref<1x1x16x8xf32, #kernel.space<L0B>>
    %y = kernel.vec_kernel %x {kind = "Elementwise", block_dim = 1 : i64, tiling = #kernel.tiling<tileElems = 256>, buffers = []} : (tensor<256xf32>) -> tensor<256xf32> {
    ^bb0(%a: memref<256xf32, #kernel.space<GM>>, %o: memref<256xf32, #kernel.space<GM>>):
      %c = kernel.alloc : memref<1x1x16x16xf32, #kernel.space<L0C>>
      %b = kernel.alloc : memref<1x1x16x8xf32, #kernel.space<L0B>>
      kernel.mmad %c, %b, %b : memref<1x1x16x16xf32, #kernel.space<L0C>>, memref<1x1x16x8xf32, #kernel.space<L0B>>, memref<1x1x16x8xf32, #kernel.space<L0B>>
      kernel.yield
    }
    func.return %y : tensor<256xf32>
  }
}

// -----

builtin.module attributes {cann.soc_version = "Ascend910B3"} {
  func.func @space(%x: tensor<256xf32>) -> tensor<256xf32> {
    // CHECK-NEXT: body-invalid.mlir:[[# @LINE + 3]]:{{[0-9]+}}: error: unknown memory space 'L2'; known: GM, L1, L0A, L0B, L0C, UB
    %y = kernel.vec_kernel %x {kind = "Elementwise", block_dim = 1 : i64, tiling = #kernel.tiling<tileElems = 256>, buffers = []} : (tensor<256xf32>) -> tensor<256xf32> {
    ^bb0(%a: memref<256xf32, #kernel.space<GM>>, %o: memref<256xf32, #kernel.space<GM>>):
      %c = kernel.alloc : memref<16xf32, #kernel.space<L2>>
      kernel.yield
    }
    func.return %y : tensor<256xf32>
  }
}

// -----

// A closed set (an EnumAttribute written as a string literal): a string naming no member is one
// verifier error listing the members.
builtin.module attributes {cann.soc_version = "Ascend910B3"} {
  func.func @view(%x: tensor<256xf32>) -> tensor<256xf32> {
    // CHECK-NEXT: body-invalid.mlir:[[# @LINE + 4]]:7: error: kernel.load: 'view' must be one of img2col, fz, nz, nd, {{.*}}, copy, Zz, Zn, from_origin; got 'diagonal' [node 'ld']
    %y = kernel.vec_kernel %x {kind = "Elementwise", block_dim = 1 : i64, tiling = #kernel.tiling<tileElems = 256>, buffers = []} : (tensor<256xf32>) -> tensor<256xf32> {
    ^bb0(%a: memref<256xf32, #kernel.space<GM>>, %o: memref<256xf32, #kernel.space<GM>>):
      %i = kernel.index {value = 0 : i64}
      %t = kernel.load %a[%i] {view = "diagonal", params = {shape = array<i64: 256>}} : memref<256xf32, #kernel.space<GM>> -> memref<256xf32, #kernel.space<UB>> loc("ld")
      // CHECK-NEXT: body-invalid.mlir:[[# @LINE + 1]]:7: error: kernel.accumulate: 'fn' must be one of Add, Max, Min, Mul, Copy; got 'Sub'
      kernel.accumulate %t, %t {fn = "Sub"} : memref<256xf32, #kernel.space<UB>>, memref<256xf32, #kernel.space<UB>>
      kernel.yield
    }
    func.return %y : tensor<256xf32>
  }
}

// -----

// kernel.sync_all is the barrier between two kernel.cores phases of one body: nowhere else.
builtin.module attributes {cann.soc_version = "Ascend910B3"} {
  func.func @stray_barrier(%x: tensor<256xf32>) -> tensor<256xf32> {
    %y = kernel.vec_kernel %x {kind = "Elementwise", block_dim = 1 : i64, tiling = #kernel.tiling<tileElems = 256>, buffers = []} : (tensor<256xf32>) -> tensor<256xf32> {
    ^bb0(%a: memref<256xf32, #kernel.space<GM>>, %o: memref<256xf32, #kernel.space<GM>>):
      kernel.cores attributes {grid = array<i64: 1>, tile = array<i64: 256>} {
      ^bb0(%c: index):
        // CHECK: body-invalid.mlir:[[# @LINE + 1]]:9: error: kernel.sync_all: must be in a kernel body, between kernel.cores phases
        kernel.sync_all
        // CHECK: body-invalid.mlir:[[# @LINE + 1]]:9: error: kernel.mul_index: by must be >= 1
        %off = kernel.mul_index %c {by = 0 : i64}
        kernel.yield
      }
      kernel.yield
    }
    func.return %y : tensor<256xf32>
  }
}
