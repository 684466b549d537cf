// RUN: not cann-opt --split-input-file %s 2>&1 | filecheck %s
// Regression test (this was a known bug, now fixed; see below).
// Known driver bug (see cann/invalid-constraints.mlir): #kernel.buffer's verifier runs while the
// attribute is parsed, its VerifyException escapes the parser, and the error has no
// file:line:col ("cann-opt: error: #kernel.buffer: size must be >= 0"); with --split-input-file
// the second chunk is then never checked.  It was fixed when that is fixed.

builtin.module attributes {cann.soc_version = "Ascend910B3"} {
  func.func @buffer_negative(%x: tensor<16xf16>) -> tensor<16xf16> {
    // CHECK: buffer-negative.mlir:11:{{[0-9]+}}: error: {{.*}}size must be >= 0
    %y = kernel.vector %x {fn = "Relu", block_dim = 1 : i64, tiling = #kernel.tiling<tileElems = 16, tilesPerCore = 1>, buffers = [#kernel.buffer<UB, -1, "in">]} : (tensor<16xf16>) -> tensor<16xf16>
    func.return %y : tensor<16xf16>
  }
}

// -----

builtin.module attributes {cann.soc_version = "Ascend910B3"} {
  func.func @block_dim_zero(%x: tensor<16xf16>) -> tensor<16xf16> {
    // CHECK-NEXT: buffer-negative.mlir:21:5: error: kernel.vector: block_dim 0 is outside 1..40 vector cores of Ascend910B3
    %y = kernel.vector %x {fn = "Relu", block_dim = 0 : i64, tiling = #kernel.tiling<tileElems = 16, tilesPerCore = 1>, buffers = []} : (tensor<16xf16>) -> tensor<16xf16>
    func.return %y : tensor<16xf16>
  }
}
