// RUN: not cann-opt --split-input-file %s 2>&1 | filecheck %s
// Regression test (this was a known bug, now fixed; see below).
// Known driver bug: a type or attribute constraint that xDSL checks while *parsing* the custom
// form (the declarative assembly format resolves operand/property constraints) raises a
// VerifyException, which compiler/ir/ir_io.parse_module does not catch.  The error then has no
// file:line:col ("cann-opt: error: f32 should be of base attribute tensor") and, with
// --split-input-file, the remaining chunks are not processed.  It was fixed when the
// parser turns such errors into located diagnostics.

func.func @groups_not_integer(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32> {
  // CHECK: invalid-constraints.mlir:12:3: error: {{.*}}"1" should be of base attribute integer
  %y = cann.Conv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = "1", data_format = "NHWC"} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32>
  func.return %y : tensor<1x8x8x4xf32>
}

// -----

func.func @operand_not_tensor(%x: f32) -> f32 {
  // CHECK-NEXT: invalid-constraints.mlir:20:3: error: {{.*}}f32 should be of base attribute tensor
  %y = cann.Relu %x : (f32) -> f32
  func.return %y : f32
}
