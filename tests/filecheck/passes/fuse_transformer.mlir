// The transformer fusion rules (compiler/transforms/fusion/rules/20_transformer.rules): where each fires, and
// where a violated constraint must keep it from firing.  Fusing twice changes nothing.  The
// automatic fusion of pointwise ops is off (`auto=false`) so the unfused ops stay visible
// (fuse_chains.mlir covers it; the last RUN line fuses with it on, twice).
// RUN: cann-opt --fuse='auto=false' %s | filecheck %s
// RUN: cann-opt --fuse='auto=false' %s | cann-opt --fuse='auto=false' | filecheck %s
// RUN: cann-opt --fuse %s > %t.1.mlir && cann-opt --fuse %t.1.mlir > %t.2.mlir && diff %t.1.mlir %t.2.mlir

// tf.nn.gelu's exact form 0.5 * x * erfc(-x / sqrt 2): one exact GeluErf kernel.
// CHECK-LABEL: func.func @gelu_erfc
// CHECK-NEXT:    %[[Y:.*]] = cann.GeluErf %x
// CHECK-NEXT:    func.return %[[Y]]
func.func @gelu_erfc(%x: tensor<1x2x4xf32>) -> tensor<1x2x4xf32> {
  %half = cann.Const dense<5.000000e-01> : tensor<f32>
  %k = cann.Const dense<0.707106769> : tensor<f32>
  %h = cann.Mul %half, %x : (tensor<f32>, tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %n = cann.Neg %x : (tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %s = cann.Mul %n, %k : (tensor<1x2x4xf32>, tensor<f32>) -> tensor<1x2x4xf32>
  %e = cann.Erfc %s : (tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %y = cann.Mul %h, %e : (tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  func.return %y : tensor<1x2x4xf32>
}

// The scale is not 1/sqrt(2) (isqrt2(k) fails): no GELU.
// CHECK-LABEL: func.func @gelu_erfc_wrong_constant
// CHECK-NOT:     GeluErf
// CHECK:         cann.Erfc
func.func @gelu_erfc_wrong_constant(%x: tensor<1x2x4xf32>) -> tensor<1x2x4xf32> {
  %half = cann.Const dense<5.000000e-01> : tensor<f32>
  %k = cann.Const dense<6.000000e-01> : tensor<f32>
  %h = cann.Mul %half, %x : (tensor<f32>, tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %n = cann.Neg %x : (tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %s = cann.Mul %n, %k : (tensor<1x2x4xf32>, tensor<f32>) -> tensor<1x2x4xf32>
  %e = cann.Erfc %s : (tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %y = cann.Mul %h, %e : (tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  func.return %y : tensor<1x2x4xf32>
}

// The erf form 0.5 * x * (1 + erf(x / sqrt 2)).
// CHECK-LABEL: func.func @gelu_erf
// CHECK-NEXT:    cann.GeluErf %x
// CHECK-NEXT:    func.return
func.func @gelu_erf(%x: tensor<1x2x4xf32>) -> tensor<1x2x4xf32> {
  %half = cann.Const dense<5.000000e-01> : tensor<f32>
  %k = cann.Const dense<0.707106769> : tensor<f32>
  %one = cann.Const dense<1.000000e+00> : tensor<f32>
  %h = cann.Mul %x, %half : (tensor<1x2x4xf32>, tensor<f32>) -> tensor<1x2x4xf32>
  %d = cann.Mul %x, %k : (tensor<1x2x4xf32>, tensor<f32>) -> tensor<1x2x4xf32>
  %e = cann.Erf %d : (tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %a = cann.Add %e, %one : (tensor<1x2x4xf32>, tensor<f32>) -> tensor<1x2x4xf32>
  %y = cann.Mul %h, %a : (tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  func.return %y : tensor<1x2x4xf32>
}

// 1 + erf is 2 + erf here (const_is(one, 1) fails).
// CHECK-LABEL: func.func @gelu_erf_wrong_one
// CHECK-NOT:     GeluErf
// CHECK:         cann.Erf
func.func @gelu_erf_wrong_one(%x: tensor<1x2x4xf32>) -> tensor<1x2x4xf32> {
  %half = cann.Const dense<5.000000e-01> : tensor<f32>
  %k = cann.Const dense<0.707106769> : tensor<f32>
  %one = cann.Const dense<2.000000e+00> : tensor<f32>
  %h = cann.Mul %x, %half : (tensor<1x2x4xf32>, tensor<f32>) -> tensor<1x2x4xf32>
  %d = cann.Mul %x, %k : (tensor<1x2x4xf32>, tensor<f32>) -> tensor<1x2x4xf32>
  %e = cann.Erf %d : (tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %a = cann.Add %e, %one : (tensor<1x2x4xf32>, tensor<f32>) -> tensor<1x2x4xf32>
  %y = cann.Mul %h, %a : (tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  func.return %y : tensor<1x2x4xf32>
}

// BERT's x * cdf, cdf = 0.5 * (1 + erf(x / sqrt 2)).
// CHECK-LABEL: func.func @gelu_erf_cdf
// CHECK-NEXT:    cann.GeluErf %x
// CHECK-NEXT:    func.return
func.func @gelu_erf_cdf(%x: tensor<1x2x4xf32>) -> tensor<1x2x4xf32> {
  %half = cann.Const dense<5.000000e-01> : tensor<f32>
  %k = cann.Const dense<1.41421354> : tensor<f32>
  %one = cann.Const dense<1.000000e+00> : tensor<f32>
  %d = cann.RealDiv %x, %k : (tensor<1x2x4xf32>, tensor<f32>) -> tensor<1x2x4xf32>
  %e = cann.Erf %d : (tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %a = cann.Add %one, %e : (tensor<f32>, tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %cdf = cann.Mul %a, %half : (tensor<1x2x4xf32>, tensor<f32>) -> tensor<1x2x4xf32>
  %y = cann.Mul %x, %cdf : (tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  func.return %y : tensor<1x2x4xf32>
}

// The cdf is also returned (no_external_consumer(c) fails).
// CHECK-LABEL: func.func @gelu_erf_cdf_escapes
// CHECK-NOT:     GeluErf
// CHECK:         cann.Erf
func.func @gelu_erf_cdf_escapes(%x: tensor<1x2x4xf32>) -> (tensor<1x2x4xf32>, tensor<1x2x4xf32>) {
  %half = cann.Const dense<5.000000e-01> : tensor<f32>
  %k = cann.Const dense<1.41421354> : tensor<f32>
  %one = cann.Const dense<1.000000e+00> : tensor<f32>
  %d = cann.RealDiv %x, %k : (tensor<1x2x4xf32>, tensor<f32>) -> tensor<1x2x4xf32>
  %e = cann.Erf %d : (tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %a = cann.Add %one, %e : (tensor<f32>, tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %cdf = cann.Mul %a, %half : (tensor<1x2x4xf32>, tensor<f32>) -> tensor<1x2x4xf32>
  %y = cann.Mul %x, %cdf : (tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  func.return %y, %cdf : tensor<1x2x4xf32>, tensor<1x2x4xf32>
}

// tf.nn.gelu(approximate=True): CANN's Gelu (the tanh approximation).
// CHECK-LABEL: func.func @gelu_tanh
// CHECK-NEXT:    %[[Y:.*]] = cann.Gelu %x
// CHECK-NEXT:    func.return %[[Y]]
func.func @gelu_tanh(%x: tensor<1x2x4xf32>) -> tensor<1x2x4xf32> {
  %half = cann.Const dense<5.000000e-01> : tensor<f32>
  %three = cann.Const dense<3.000000e+00> : tensor<f32>
  %coeff = cann.Const dense<4.471500e-02> : tensor<f32>
  %k = cann.Const dense<0.797884583> : tensor<f32>
  %one = cann.Const dense<1.000000e+00> : tensor<f32>
  %h = cann.Mul %half, %x : (tensor<f32>, tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %p = cann.Pow %x, %three : (tensor<1x2x4xf32>, tensor<f32>) -> tensor<1x2x4xf32>
  %cp = cann.Mul %coeff, %p : (tensor<f32>, tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %i = cann.Add %x, %cp : (tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %s = cann.Mul %k, %i : (tensor<f32>, tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %t = cann.Tanh %s : (tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %a = cann.Add %one, %t : (tensor<f32>, tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %y = cann.Mul %h, %a : (tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  func.return %y : tensor<1x2x4xf32>
}

// 0.05 instead of 0.044715: not GELU.
// CHECK-LABEL: func.func @gelu_tanh_wrong_coeff
// CHECK-NOT:     cann.Gelu
// CHECK:         cann.Tanh
func.func @gelu_tanh_wrong_coeff(%x: tensor<1x2x4xf32>) -> tensor<1x2x4xf32> {
  %half = cann.Const dense<5.000000e-01> : tensor<f32>
  %three = cann.Const dense<3.000000e+00> : tensor<f32>
  %coeff = cann.Const dense<5.000000e-02> : tensor<f32>
  %k = cann.Const dense<0.797884583> : tensor<f32>
  %one = cann.Const dense<1.000000e+00> : tensor<f32>
  %h = cann.Mul %half, %x : (tensor<f32>, tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %p = cann.Pow %x, %three : (tensor<1x2x4xf32>, tensor<f32>) -> tensor<1x2x4xf32>
  %cp = cann.Mul %coeff, %p : (tensor<f32>, tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %i = cann.Add %x, %cp : (tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %s = cann.Mul %k, %i : (tensor<f32>, tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %t = cann.Tanh %s : (tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %a = cann.Add %one, %t : (tensor<f32>, tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %y = cann.Mul %h, %a : (tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  func.return %y : tensor<1x2x4xf32>
}

// MatMul + BiasAdd + exact GELU: one FusedMatMul(GeluErf).
// CHECK-LABEL: func.func @matmul_bias_gelu_erf
// CHECK-NEXT:    %[[Y:.*]] = cann.FusedMatMul %a, %w, %bias {transpose_x1 = false, transpose_x2 = false, activation = "GeluErf"}
// CHECK-NEXT:    func.return %[[Y]]
func.func @matmul_bias_gelu_erf(%a: tensor<2x4xf32>, %w: tensor<4x4xf32>, %bias: tensor<4xf32>) -> tensor<2x4xf32> {
  %m = cann.MatMulV2 %a, %w {transpose_x1 = false, transpose_x2 = false} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %x = cann.BiasAdd %m, %bias {data_format = "NHWC"} : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %half = cann.Const dense<5.000000e-01> : tensor<f32>
  %k = cann.Const dense<0.707106769> : tensor<f32>
  %h = cann.Mul %half, %x : (tensor<f32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %n = cann.Neg %x : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %s = cann.Mul %n, %k : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  %e = cann.Erfc %s : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %y = cann.Mul %h, %e : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  func.return %y : tensor<2x4xf32>
}

// An elementwise op that is not an activation stays after the matmul.
// CHECK-LABEL: func.func @matmul_elementwise_not_activation
// CHECK:         cann.MatMulV2
// CHECK-NEXT:    cann.Exp
func.func @matmul_elementwise_not_activation(%a: tensor<2x4xf32>, %w: tensor<4x4xf32>) -> tensor<2x4xf32> {
  %m = cann.MatMulV2 %a, %w {transpose_x1 = false, transpose_x2 = false} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %y = cann.Exp %m : (tensor<2x4xf32>) -> tensor<2x4xf32>
  func.return %y : tensor<2x4xf32>
}

// Tensordot's Reshape between the MatMul and the GELU.
// CHECK-LABEL: func.func @matmul_reshape_gelu_erf
// CHECK-NEXT:    %[[M:.*]] = cann.FusedMatMul %a, %w {transpose_x1 = false, transpose_x2 = false, activation = "GeluErf"}
// CHECK-NEXT:    %[[Y:.*]] = cann.Reshape %[[M]]
// CHECK-NEXT:    func.return %[[Y]]
func.func @matmul_reshape_gelu_erf(%a: tensor<2x4xf32>, %w: tensor<4x4xf32>) -> tensor<1x2x4xf32> {
  %m = cann.MatMulV2 %a, %w {transpose_x1 = false, transpose_x2 = false} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %x = cann.Reshape %m {shape = array<i64: 1, 2, 4>} : (tensor<2x4xf32>) -> tensor<1x2x4xf32>
  %half = cann.Const dense<5.000000e-01> : tensor<f32>
  %k = cann.Const dense<0.707106769> : tensor<f32>
  %h = cann.Mul %half, %x : (tensor<f32>, tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %n = cann.Neg %x : (tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %s = cann.Mul %n, %k : (tensor<1x2x4xf32>, tensor<f32>) -> tensor<1x2x4xf32>
  %e = cann.Erfc %s : (tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %y = cann.Mul %h, %e : (tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  func.return %y : tensor<1x2x4xf32>
}

// The matmul result is also returned: GELU recomposes, the epilogue does not fuse.
// CHECK-LABEL: func.func @matmul_reshape_gelu_matmul_escapes
// CHECK:         cann.MatMulV2
// CHECK:         cann.GeluErf
func.func @matmul_reshape_gelu_matmul_escapes(%a: tensor<2x4xf32>, %w: tensor<4x4xf32>) -> (tensor<1x2x4xf32>, tensor<2x4xf32>) {
  %m = cann.MatMulV2 %a, %w {transpose_x1 = false, transpose_x2 = false} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %x = cann.Reshape %m {shape = array<i64: 1, 2, 4>} : (tensor<2x4xf32>) -> tensor<1x2x4xf32>
  %half = cann.Const dense<5.000000e-01> : tensor<f32>
  %k = cann.Const dense<0.707106769> : tensor<f32>
  %h = cann.Mul %half, %x : (tensor<f32>, tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %n = cann.Neg %x : (tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %s = cann.Mul %n, %k : (tensor<1x2x4xf32>, tensor<f32>) -> tensor<1x2x4xf32>
  %e = cann.Erfc %s : (tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %y = cann.Mul %h, %e : (tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  func.return %y, %m : tensor<1x2x4xf32>, tensor<2x4xf32>
}

// Keras 3's LayerNormalization (moments; StopGradient seen through): one LayerNorm.
// CHECK-LABEL: func.func @layernorm_keras
// CHECK-NEXT:    %[[G:.*]] = cann.Const dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
// CHECK-NEXT:    %[[B:.*]] = cann.Const dense<[5.000000e-01, -5.000000e-01, 2.500000e-01, 0.000000e+00]> : tensor<4xf32>
// CHECK-NEXT:    %[[Y:.*]] = cann.LayerNorm %x, %[[G]], %[[B]] {begin_norm_axis = 2 : i64, begin_params_axis = 2 : i64, epsilon = 1.000000e-03 : f32}
// CHECK-NEXT:    func.return %[[Y]]
func.func @layernorm_keras(%x: tensor<1x2x4xf32>) -> tensor<1x2x4xf32> {
  %gamma = cann.Const dense<[[[1.0, 2.0, 3.0, 4.0]]]> : tensor<1x1x4xf32>
  %beta = cann.Const dense<[0.5, -0.5, 0.25, 0.0]> : tensor<4xf32>
  %eps = cann.Const dense<1.000000e-03> : tensor<f32>
  %mean = cann.ReduceMeanD %x {axes = array<i64: 2>, keep_dims = true} : (tensor<1x2x4xf32>) -> tensor<1x2x1xf32>
  %sd = cann.SquaredDifference %x, %mean : (tensor<1x2x4xf32>, tensor<1x2x1xf32>) -> tensor<1x2x4xf32>
  %var = cann.ReduceMeanD %sd {axes = array<i64: 2>, keep_dims = true} : (tensor<1x2x4xf32>) -> tensor<1x2x1xf32>
  %ve = cann.Add %var, %eps : (tensor<1x2x1xf32>, tensor<f32>) -> tensor<1x2x1xf32>
  %inv = cann.Rsqrt %ve : (tensor<1x2x1xf32>) -> tensor<1x2x1xf32>
  %g = cann.Mul %inv, %gamma : (tensor<1x2x1xf32>, tensor<1x1x4xf32>) -> tensor<1x2x4xf32>
  %xg = cann.Mul %x, %g : (tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %nm = cann.Neg %mean : (tensor<1x2x1xf32>) -> tensor<1x2x1xf32>
  %mg = cann.Mul %nm, %g : (tensor<1x2x1xf32>, tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %mb = cann.Add %mg, %beta : (tensor<1x2x4xf32>, tensor<4xf32>) -> tensor<1x2x4xf32>
  %y = cann.Add %xg, %mb : (tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  func.return %y : tensor<1x2x4xf32>
}

// Mean over axis 1 is not a LayerNorm over the last axes (reduces_trailing fails).
// CHECK-LABEL: func.func @layernorm_not_trailing
// CHECK-NOT:     cann.LayerNorm
// CHECK:         cann.Rsqrt
func.func @layernorm_not_trailing(%x: tensor<1x2x4xf32>) -> tensor<1x2x4xf32> {
  %gamma = cann.Const dense<[[[1.0, 2.0, 3.0, 4.0]]]> : tensor<1x1x4xf32>
  %beta = cann.Const dense<[0.5, -0.5, 0.25, 0.0]> : tensor<4xf32>
  %eps = cann.Const dense<1.000000e-03> : tensor<f32>
  %mean = cann.ReduceMeanD %x {axes = array<i64: 1>, keep_dims = true} : (tensor<1x2x4xf32>) -> tensor<1x1x4xf32>
  %sd = cann.SquaredDifference %x, %mean : (tensor<1x2x4xf32>, tensor<1x1x4xf32>) -> tensor<1x2x4xf32>
  %var = cann.ReduceMeanD %sd {axes = array<i64: 1>, keep_dims = true} : (tensor<1x2x4xf32>) -> tensor<1x1x4xf32>
  %ve = cann.Add %var, %eps : (tensor<1x1x4xf32>, tensor<f32>) -> tensor<1x1x4xf32>
  %inv = cann.Rsqrt %ve : (tensor<1x1x4xf32>) -> tensor<1x1x4xf32>
  %g = cann.Mul %inv, %gamma : (tensor<1x1x4xf32>, tensor<1x1x4xf32>) -> tensor<1x1x4xf32>
  %xg = cann.Mul %x, %g : (tensor<1x2x4xf32>, tensor<1x1x4xf32>) -> tensor<1x2x4xf32>
  %nm = cann.Neg %mean : (tensor<1x1x4xf32>) -> tensor<1x1x4xf32>
  %mg = cann.Mul %nm, %g : (tensor<1x1x4xf32>, tensor<1x1x4xf32>) -> tensor<1x1x4xf32>
  %mb = cann.Add %mg, %beta : (tensor<1x1x4xf32>, tensor<4xf32>) -> tensor<1x1x4xf32>
  %y = cann.Add %xg, %mb : (tensor<1x2x4xf32>, tensor<1x1x4xf32>) -> tensor<1x2x4xf32>
  func.return %y : tensor<1x2x4xf32>
}

// x * g + (beta - mean * g).
// CHECK-LABEL: func.func @layernorm_sub
// CHECK-NEXT:    %[[G:.*]] = cann.Const dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
// CHECK-NEXT:    %[[B:.*]] = cann.Const dense<[5.000000e-01, -5.000000e-01, 2.500000e-01, 0.000000e+00]> : tensor<4xf32>
// CHECK-NEXT:    %[[Y:.*]] = cann.LayerNorm %x, %[[G]], %[[B]] {begin_norm_axis = 2 : i64, begin_params_axis = 2 : i64, epsilon = 1.000000e-03 : f32}
// CHECK-NEXT:    func.return %[[Y]]
func.func @layernorm_sub(%x: tensor<1x2x4xf32>) -> tensor<1x2x4xf32> {
  %gamma = cann.Const dense<[[[1.0, 2.0, 3.0, 4.0]]]> : tensor<1x1x4xf32>
  %beta = cann.Const dense<[0.5, -0.5, 0.25, 0.0]> : tensor<4xf32>
  %eps = cann.Const dense<1.000000e-03> : tensor<f32>
  %mean = cann.ReduceMeanD %x {axes = array<i64: 2>, keep_dims = true} : (tensor<1x2x4xf32>) -> tensor<1x2x1xf32>
  %sd = cann.SquaredDifference %x, %mean : (tensor<1x2x4xf32>, tensor<1x2x1xf32>) -> tensor<1x2x4xf32>
  %var = cann.ReduceMeanD %sd {axes = array<i64: 2>, keep_dims = true} : (tensor<1x2x4xf32>) -> tensor<1x2x1xf32>
  %ve = cann.Add %var, %eps : (tensor<1x2x1xf32>, tensor<f32>) -> tensor<1x2x1xf32>
  %inv = cann.Rsqrt %ve : (tensor<1x2x1xf32>) -> tensor<1x2x1xf32>
  %g = cann.Mul %gamma, %inv : (tensor<1x1x4xf32>, tensor<1x2x1xf32>) -> tensor<1x2x4xf32>
  %xg = cann.Mul %x, %g : (tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %mg = cann.Mul %mean, %g : (tensor<1x2x1xf32>, tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %mb = cann.Sub %beta, %mg : (tensor<4xf32>, tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %y = cann.Add %mb, %xg : (tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  func.return %y : tensor<1x2x4xf32>
}

// epsilon is a runtime value (is_scalar_const(eps) fails).
// CHECK-LABEL: func.func @layernorm_sub_eps_not_const
// CHECK-NOT:     cann.LayerNorm
// CHECK:         cann.Rsqrt
func.func @layernorm_sub_eps_not_const(%x: tensor<1x2x4xf32>, %eps: tensor<f32>) -> tensor<1x2x4xf32> {
  %gamma = cann.Const dense<[[[1.0, 2.0, 3.0, 4.0]]]> : tensor<1x1x4xf32>
  %beta = cann.Const dense<[0.5, -0.5, 0.25, 0.0]> : tensor<4xf32>
  %mean = cann.ReduceMeanD %x {axes = array<i64: 2>, keep_dims = true} : (tensor<1x2x4xf32>) -> tensor<1x2x1xf32>
  %sd = cann.SquaredDifference %x, %mean : (tensor<1x2x4xf32>, tensor<1x2x1xf32>) -> tensor<1x2x4xf32>
  %var = cann.ReduceMeanD %sd {axes = array<i64: 2>, keep_dims = true} : (tensor<1x2x4xf32>) -> tensor<1x2x1xf32>
  %ve = cann.Add %var, %eps : (tensor<1x2x1xf32>, tensor<f32>) -> tensor<1x2x1xf32>
  %inv = cann.Rsqrt %ve : (tensor<1x2x1xf32>) -> tensor<1x2x1xf32>
  %g = cann.Mul %gamma, %inv : (tensor<1x1x4xf32>, tensor<1x2x1xf32>) -> tensor<1x2x4xf32>
  %xg = cann.Mul %x, %g : (tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %mg = cann.Mul %mean, %g : (tensor<1x2x1xf32>, tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %mb = cann.Sub %beta, %mg : (tensor<4xf32>, tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %y = cann.Add %mb, %xg : (tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  func.return %y : tensor<1x2x4xf32>
}

// (x - mean) * rsqrt(var + eps) * gamma + beta.
// CHECK-LABEL: func.func @layernorm_direct
// CHECK-NEXT:    %[[G:.*]] = cann.Const dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
// CHECK-NEXT:    %[[B:.*]] = cann.Const dense<[5.000000e-01, -5.000000e-01, 2.500000e-01, 0.000000e+00]> : tensor<4xf32>
// CHECK-NEXT:    %[[Y:.*]] = cann.LayerNorm %x, %[[G]], %[[B]] {begin_norm_axis = 2 : i64, begin_params_axis = 2 : i64, epsilon = 1.000000e-03 : f32}
// CHECK-NEXT:    func.return %[[Y]]
func.func @layernorm_direct(%x: tensor<1x2x4xf32>) -> tensor<1x2x4xf32> {
  %gamma = cann.Const dense<[[[1.0, 2.0, 3.0, 4.0]]]> : tensor<1x1x4xf32>
  %beta = cann.Const dense<[0.5, -0.5, 0.25, 0.0]> : tensor<4xf32>
  %eps = cann.Const dense<1.000000e-03> : tensor<f32>
  %mean = cann.ReduceMeanD %x {axes = array<i64: 2>, keep_dims = true} : (tensor<1x2x4xf32>) -> tensor<1x2x1xf32>
  %sd = cann.SquaredDifference %x, %mean : (tensor<1x2x4xf32>, tensor<1x2x1xf32>) -> tensor<1x2x4xf32>
  %var = cann.ReduceMeanD %sd {axes = array<i64: 2>, keep_dims = true} : (tensor<1x2x4xf32>) -> tensor<1x2x1xf32>
  %ve = cann.Add %var, %eps : (tensor<1x2x1xf32>, tensor<f32>) -> tensor<1x2x1xf32>
  %inv = cann.Rsqrt %ve : (tensor<1x2x1xf32>) -> tensor<1x2x1xf32>
  %cc = cann.Sub %x, %mean : (tensor<1x2x4xf32>, tensor<1x2x1xf32>) -> tensor<1x2x4xf32>
  %n = cann.Mul %cc, %inv : (tensor<1x2x4xf32>, tensor<1x2x1xf32>) -> tensor<1x2x4xf32>
  %s = cann.Mul %n, %gamma : (tensor<1x2x4xf32>, tensor<1x1x4xf32>) -> tensor<1x2x4xf32>
  %y = cann.Add %s, %beta : (tensor<1x2x4xf32>, tensor<4xf32>) -> tensor<1x2x4xf32>
  func.return %y : tensor<1x2x4xf32>
}

// gamma is a runtime value (is_param(gamma, ..) fails).
// CHECK-LABEL: func.func @layernorm_direct_gamma_not_const
// CHECK-NOT:     cann.LayerNorm
// CHECK:         cann.Rsqrt
func.func @layernorm_direct_gamma_not_const(%x: tensor<1x2x4xf32>, %gamma: tensor<1x1x4xf32>) -> tensor<1x2x4xf32> {
  %beta = cann.Const dense<[0.5, -0.5, 0.25, 0.0]> : tensor<4xf32>
  %eps = cann.Const dense<1.000000e-03> : tensor<f32>
  %mean = cann.ReduceMeanD %x {axes = array<i64: 2>, keep_dims = true} : (tensor<1x2x4xf32>) -> tensor<1x2x1xf32>
  %sd = cann.SquaredDifference %x, %mean : (tensor<1x2x4xf32>, tensor<1x2x1xf32>) -> tensor<1x2x4xf32>
  %var = cann.ReduceMeanD %sd {axes = array<i64: 2>, keep_dims = true} : (tensor<1x2x4xf32>) -> tensor<1x2x1xf32>
  %ve = cann.Add %var, %eps : (tensor<1x2x1xf32>, tensor<f32>) -> tensor<1x2x1xf32>
  %inv = cann.Rsqrt %ve : (tensor<1x2x1xf32>) -> tensor<1x2x1xf32>
  %cc = cann.Sub %x, %mean : (tensor<1x2x4xf32>, tensor<1x2x1xf32>) -> tensor<1x2x4xf32>
  %n = cann.Mul %cc, %inv : (tensor<1x2x4xf32>, tensor<1x2x1xf32>) -> tensor<1x2x4xf32>
  %s = cann.Mul %n, %gamma : (tensor<1x2x4xf32>, tensor<1x1x4xf32>) -> tensor<1x2x4xf32>
  %y = cann.Add %s, %beta : (tensor<1x2x4xf32>, tensor<4xf32>) -> tensor<1x2x4xf32>
  func.return %y : tensor<1x2x4xf32>
}

// The residual Add in front of the LayerNorm: one AddLayerNorm.
// CHECK-LABEL: func.func @add_layernorm
// CHECK:         %[[Y:.*]] = cann.AddLayerNorm %r, %h, %{{.*}}, %{{.*}} {begin_norm_axis = 2 : i64, begin_params_axis = 2 : i64, epsilon = 1.000000e-03 : f32}
// CHECK-NEXT:    func.return %[[Y]]
func.func @add_layernorm(%r: tensor<1x2x4xf32>, %h: tensor<1x2x4xf32>) -> tensor<1x2x4xf32> {
  %x = cann.Add %r, %h : (tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %gamma = cann.Const dense<[[[1.0, 2.0, 3.0, 4.0]]]> : tensor<1x1x4xf32>
  %beta = cann.Const dense<[0.5, -0.5, 0.25, 0.0]> : tensor<4xf32>
  %eps = cann.Const dense<1.000000e-03> : tensor<f32>
  %mean = cann.ReduceMeanD %x {axes = array<i64: 2>, keep_dims = true} : (tensor<1x2x4xf32>) -> tensor<1x2x1xf32>
  %sd = cann.SquaredDifference %x, %mean : (tensor<1x2x4xf32>, tensor<1x2x1xf32>) -> tensor<1x2x4xf32>
  %var = cann.ReduceMeanD %sd {axes = array<i64: 2>, keep_dims = true} : (tensor<1x2x4xf32>) -> tensor<1x2x1xf32>
  %ve = cann.Add %var, %eps : (tensor<1x2x1xf32>, tensor<f32>) -> tensor<1x2x1xf32>
  %inv = cann.Rsqrt %ve : (tensor<1x2x1xf32>) -> tensor<1x2x1xf32>
  %g = cann.Mul %inv, %gamma : (tensor<1x2x1xf32>, tensor<1x1x4xf32>) -> tensor<1x2x4xf32>
  %xg = cann.Mul %x, %g : (tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %nm = cann.Neg %mean : (tensor<1x2x1xf32>) -> tensor<1x2x1xf32>
  %mg = cann.Mul %nm, %g : (tensor<1x2x1xf32>, tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %mb = cann.Add %mg, %beta : (tensor<1x2x4xf32>, tensor<4xf32>) -> tensor<1x2x4xf32>
  %y = cann.Add %xg, %mb : (tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  func.return %y : tensor<1x2x4xf32>
}

// The Add broadcasts one operand (same_shape(x2, a) fails): LayerNorm alone.
// CHECK-LABEL: func.func @add_layernorm_broadcast
// CHECK-NOT:     cann.AddLayerNorm
// CHECK:         %x = cann.Add %r, %h
// CHECK:         cann.LayerNorm %x,
func.func @add_layernorm_broadcast(%r: tensor<1x2x4xf32>, %h: tensor<4xf32>) -> tensor<1x2x4xf32> {
  %x = cann.Add %r, %h : (tensor<1x2x4xf32>, tensor<4xf32>) -> tensor<1x2x4xf32>
  %gamma = cann.Const dense<[[[1.0, 2.0, 3.0, 4.0]]]> : tensor<1x1x4xf32>
  %beta = cann.Const dense<[0.5, -0.5, 0.25, 0.0]> : tensor<4xf32>
  %eps = cann.Const dense<1.000000e-03> : tensor<f32>
  %mean = cann.ReduceMeanD %x {axes = array<i64: 2>, keep_dims = true} : (tensor<1x2x4xf32>) -> tensor<1x2x1xf32>
  %sd = cann.SquaredDifference %x, %mean : (tensor<1x2x4xf32>, tensor<1x2x1xf32>) -> tensor<1x2x4xf32>
  %var = cann.ReduceMeanD %sd {axes = array<i64: 2>, keep_dims = true} : (tensor<1x2x4xf32>) -> tensor<1x2x1xf32>
  %ve = cann.Add %var, %eps : (tensor<1x2x1xf32>, tensor<f32>) -> tensor<1x2x1xf32>
  %inv = cann.Rsqrt %ve : (tensor<1x2x1xf32>) -> tensor<1x2x1xf32>
  %g = cann.Mul %inv, %gamma : (tensor<1x2x1xf32>, tensor<1x1x4xf32>) -> tensor<1x2x4xf32>
  %xg = cann.Mul %x, %g : (tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %nm = cann.Neg %mean : (tensor<1x2x1xf32>) -> tensor<1x2x1xf32>
  %mg = cann.Mul %nm, %g : (tensor<1x2x1xf32>, tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %mb = cann.Add %mg, %beta : (tensor<1x2x4xf32>, tensor<4xf32>) -> tensor<1x2x4xf32>
  %y = cann.Add %xg, %mb : (tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  func.return %y : tensor<1x2x4xf32>
}

// EinsumDense: MatMul -> Reshape [B,S,N*D] -> [B,S,N,D] -> Add(bias [N,D]).
// CHECK-LABEL: func.func @head_split_bias
// CHECK-NEXT:    %[[B:.*]] = cann.Const dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
// CHECK-NEXT:    %[[M:.*]] = cann.FusedMatMul %x, %w, %[[B]] {transpose_x1 = false, transpose_x2 = false, activation = "none"}
// CHECK-NEXT:    %[[Y:.*]] = cann.Reshape %[[M]]
// CHECK-NEXT:    func.return %[[Y]]
func.func @head_split_bias(%x: tensor<1x2x4xf32>, %w: tensor<4x4xf32>) -> tensor<1x2x2x2xf32> {
  %bias = cann.Const dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %m = cann.BatchMatMulV2 %x, %w {adj_x1 = false, adj_x2 = false} : (tensor<1x2x4xf32>, tensor<4x4xf32>) -> tensor<1x2x4xf32>
  %r = cann.Reshape %m {shape = array<i64: 1, 2, 2, 2>} : (tensor<1x2x4xf32>) -> tensor<1x2x2x2xf32>
  %y = cann.Add %r, %bias : (tensor<1x2x2x2xf32>, tensor<2x2xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// A runtime bias (is_const(bias) fails) stays an Add.
// CHECK-LABEL: func.func @head_split_bias_not_const
// CHECK:         cann.BatchMatMulV2
// CHECK-NEXT:    cann.Reshape
// CHECK-NEXT:    cann.Add
func.func @head_split_bias_not_const(%x: tensor<1x2x4xf32>, %w: tensor<4x4xf32>, %bias: tensor<2x2xf32>) -> tensor<1x2x2x2xf32> {
  %m = cann.BatchMatMulV2 %x, %w {adj_x1 = false, adj_x2 = false} : (tensor<1x2x4xf32>, tensor<4x4xf32>) -> tensor<1x2x4xf32>
  %r = cann.Reshape %m {shape = array<i64: 1, 2, 2, 2>} : (tensor<1x2x4xf32>) -> tensor<1x2x2x2xf32>
  %y = cann.Add %r, %bias : (tensor<1x2x2x2xf32>, tensor<2x2xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// Keras MultiHeadAttention's core: Transposes, BatchMatMul, scale, Softmax, BatchMatMul,
// Transpose -> one FusedAttention in the BSND layout.
// CHECK-LABEL: func.func @attention_bsnd
// CHECK-NEXT:    %[[Y:.*]] = cann.FusedAttention %q, %k, %v {scale = 0.707106769 : f32, adj_k = false, layout = "BSND"}
// CHECK-NEXT:    func.return %[[Y]]
func.func @attention_bsnd(%q: tensor<1x2x2x2xf32>, %k: tensor<1x2x2x2xf32>, %v: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %c = cann.Const dense<0.707106769> : tensor<f32>
  %qt = cann.TransposeD %q {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %kt = cann.TransposeD %k {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %s = cann.BatchMatMulV2 %qt, %kt {adj_x1 = false, adj_x2 = false} : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %m = cann.Mul %s, %c : (tensor<1x2x2x2xf32>, tensor<f32>) -> tensor<1x2x2x2xf32>
  %p = cann.SoftmaxV2 %m {axes = array<i64: -1>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %vt = cann.TransposeD %v {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %o = cann.BatchMatMulV2 %p, %vt {adj_x1 = false, adj_x2 = false} : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %y = cann.TransposeD %o {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// A runtime scale (is_scalar_const(c) fails): no attention op.
// CHECK-LABEL: func.func @attention_bsnd_scale_not_const
// CHECK-NOT:     FusedAttention
// CHECK:         cann.SoftmaxV2
func.func @attention_bsnd_scale_not_const(%q: tensor<1x2x2x2xf32>, %k: tensor<1x2x2x2xf32>, %v: tensor<1x2x2x2xf32>, %c: tensor<f32>) -> tensor<1x2x2x2xf32> {
  %qt = cann.TransposeD %q {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %kt = cann.TransposeD %k {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %s = cann.BatchMatMulV2 %qt, %kt {adj_x1 = false, adj_x2 = false} : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %m = cann.Mul %s, %c : (tensor<1x2x2x2xf32>, tensor<f32>) -> tensor<1x2x2x2xf32>
  %p = cann.SoftmaxV2 %m {axes = array<i64: -1>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %vt = cann.TransposeD %v {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %o = cann.BatchMatMulV2 %p, %vt {adj_x1 = false, adj_x2 = false} : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %y = cann.TransposeD %o {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// With an additive mask before the Softmax.
// CHECK-LABEL: func.func @attention_bsnd_mask
// CHECK-NEXT:    %[[Y:.*]] = cann.FusedAttention %q, %k, %v, %mask {scale = 0.707106769 : f32, adj_k = false, layout = "BSND"}
// CHECK-NEXT:    func.return %[[Y]]
func.func @attention_bsnd_mask(%q: tensor<1x2x2x2xf32>, %k: tensor<1x2x2x2xf32>, %v: tensor<1x2x2x2xf32>, %mask: tensor<1x1x1x2xf32>) -> tensor<1x2x2x2xf32> {
  %c = cann.Const dense<0.707106769> : tensor<f32>
  %qt = cann.TransposeD %q {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %kt = cann.TransposeD %k {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %s = cann.BatchMatMulV2 %qt, %kt {adj_x1 = false, adj_x2 = false} : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %m = cann.Mul %s, %c : (tensor<1x2x2x2xf32>, tensor<f32>) -> tensor<1x2x2x2xf32>
  %am = cann.Add %mask, %m : (tensor<1x1x1x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %p = cann.SoftmaxV2 %am {axes = array<i64: -1>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %vt = cann.TransposeD %v {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %o = cann.BatchMatMulV2 %p, %vt {adj_x1 = false, adj_x2 = false} : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %y = cann.TransposeD %o {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// The masked scores are also returned (no_external_consumer(am) fails).
// CHECK-LABEL: func.func @attention_bsnd_mask_scores_escape
// CHECK-NOT:     FusedAttention
// CHECK:         cann.SoftmaxV2
func.func @attention_bsnd_mask_scores_escape(%q: tensor<1x2x2x2xf32>, %k: tensor<1x2x2x2xf32>, %v: tensor<1x2x2x2xf32>, %mask: tensor<1x1x1x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
  %c = cann.Const dense<0.707106769> : tensor<f32>
  %qt = cann.TransposeD %q {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %kt = cann.TransposeD %k {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %s = cann.BatchMatMulV2 %qt, %kt {adj_x1 = false, adj_x2 = false} : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %m = cann.Mul %s, %c : (tensor<1x2x2x2xf32>, tensor<f32>) -> tensor<1x2x2x2xf32>
  %am = cann.Add %mask, %m : (tensor<1x1x1x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %p = cann.SoftmaxV2 %am {axes = array<i64: -1>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %vt = cann.TransposeD %v {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %o = cann.BatchMatMulV2 %p, %vt {adj_x1 = false, adj_x2 = false} : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %y = cann.TransposeD %o {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  func.return %y, %am : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
}

// Heads first, k used through adj_x2: FusedAttention (default layout), k given untransposed.
// CHECK-LABEL: func.func @attention_bnsd
// CHECK-NEXT:    %[[Y:.*]] = cann.FusedAttention %q, %k, %v {scale = 5.000000e-01 : f32, adj_k = false}
// CHECK-NEXT:    func.return %[[Y]]
func.func @attention_bnsd(%q: tensor<1x2x2x2xf32>, %k: tensor<1x2x2x2xf32>, %v: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %c = cann.Const dense<5.000000e-01> : tensor<f32>
  %s = cann.BatchMatMulV2 %q, %k {adj_x1 = false, adj_x2 = true} : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %m = cann.Mul %c, %s : (tensor<f32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %p = cann.SoftmaxV2 %m {axes = array<i64: -1>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %y = cann.BatchMatMulV2 %p, %v {adj_x1 = false, adj_x2 = false} : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// Softmax over the queries axis (softmax_last fails).
// CHECK-LABEL: func.func @attention_bnsd_softmax_axis
// CHECK-NOT:     FusedAttention
// CHECK:         cann.SoftmaxV2
func.func @attention_bnsd_softmax_axis(%q: tensor<1x2x2x2xf32>, %k: tensor<1x2x2x2xf32>, %v: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %c = cann.Const dense<5.000000e-01> : tensor<f32>
  %s = cann.BatchMatMulV2 %q, %k {adj_x1 = false, adj_x2 = true} : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %m = cann.Mul %c, %s : (tensor<f32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %p = cann.SoftmaxV2 %m {axes = array<i64: 2>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %y = cann.BatchMatMulV2 %p, %v {adj_x1 = false, adj_x2 = false} : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// Heads first with an additive mask.
// CHECK-LABEL: func.func @attention_bnsd_mask
// CHECK-NEXT:    %[[Y:.*]] = cann.FusedAttention %q, %k, %v, %mask {scale = 5.000000e-01 : f32, adj_k = false}
// CHECK-NEXT:    func.return %[[Y]]
func.func @attention_bnsd_mask(%q: tensor<1x2x2x2xf32>, %k: tensor<1x2x2x2xf32>, %v: tensor<1x2x2x2xf32>, %mask: tensor<1x1x1x2xf32>) -> tensor<1x2x2x2xf32> {
  %c = cann.Const dense<5.000000e-01> : tensor<f32>
  %s = cann.BatchMatMulV2 %q, %k {adj_x1 = false, adj_x2 = true} : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %m = cann.Mul %c, %s : (tensor<f32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %am = cann.Add %m, %mask : (tensor<1x2x2x2xf32>, tensor<1x1x1x2xf32>) -> tensor<1x2x2x2xf32>
  %p = cann.SoftmaxV2 %am {axes = array<i64: -1>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %y = cann.BatchMatMulV2 %p, %v {adj_x1 = false, adj_x2 = false} : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// P @ v^T (adj_x2 on the second matmul) is not attention (not tx2(y) fails).
// CHECK-LABEL: func.func @attention_bnsd_mask_adj_v
// CHECK-NOT:     FusedAttention
// CHECK:         cann.SoftmaxV2
func.func @attention_bnsd_mask_adj_v(%q: tensor<1x2x2x2xf32>, %k: tensor<1x2x2x2xf32>, %v: tensor<1x2x2x2xf32>, %mask: tensor<1x1x1x2xf32>) -> tensor<1x2x2x2xf32> {
  %c = cann.Const dense<5.000000e-01> : tensor<f32>
  %s = cann.BatchMatMulV2 %q, %k {adj_x1 = false, adj_x2 = true} : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %m = cann.Mul %c, %s : (tensor<f32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %am = cann.Add %m, %mask : (tensor<1x2x2x2xf32>, tensor<1x1x1x2xf32>) -> tensor<1x2x2x2xf32>
  %p = cann.SoftmaxV2 %am {axes = array<i64: -1>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %y = cann.BatchMatMulV2 %p, %v {adj_x1 = false, adj_x2 = true} : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// Self-attention: Q/K/V projections of the same x with constant weights merge into one
// GEMM inside FusedMultiHeadAttention (weights and biases concatenated q|k|v).
// CHECK-LABEL: func.func @multi_head_attention
// CHECK:         %[[W:.*]] = cann.Const dense<{{.*}}> : tensor<4x12xf32>
// CHECK-NEXT:    %[[B:.*]] = cann.Const dense<[1.000000e-01, 2.000000e-01, 3.000000e-01, 4.000000e-01, 0.000000e+00, 0.000000e+00, 0.000000e+00, -1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00]> : tensor<12xf32>
// CHECK-NEXT:    %[[Y:.*]] = cann.FusedMultiHeadAttention %x, %[[W]], %[[B]] {num_heads = 2 : i64, scale = 0.707106769 : f32}
// CHECK-NEXT:    func.return %[[Y]]
func.func @multi_head_attention(%x: tensor<1x2x4xf32>) -> tensor<1x2x2x2xf32> {
  %wq = cann.Const dense<[[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]]> : tensor<4x4xf32>
  %bq = cann.Const dense<[[0.1, 0.2], [0.3, 0.4]]> : tensor<2x2xf32>
  %wv = cann.Const dense<[[2.0, 0.0, 0.0, 0.0], [0.0, 2.0, 0.0, 0.0], [0.0, 0.0, 2.0, 0.0], [0.0, 0.0, 0.0, 2.0]]> : tensor<4x4xf32>
  %bv = cann.Const dense<[[1.0, 1.0], [1.0, 1.0]]> : tensor<2x2xf32>
  %bk = cann.Const dense<[[0.0, 0.0], [0.0, -1.0]]> : tensor<2x2xf32>
  %wk = cann.Const dense<[[0.5, 0.0, 0.0, 0.0], [0.0, 0.5, 0.0, 0.0], [0.0, 0.0, 0.5, 0.0], [0.0, 0.0, 0.0, 0.5]]> : tensor<4x4xf32>
  %qm = cann.BatchMatMulV2 %x, %wq {adj_x1 = false, adj_x2 = false} : (tensor<1x2x4xf32>, tensor<4x4xf32>) -> tensor<1x2x4xf32>
  %qr = cann.Reshape %qm {shape = array<i64: 1, 2, 2, 2>} : (tensor<1x2x4xf32>) -> tensor<1x2x2x2xf32>
  %q = cann.Add %qr, %bq : (tensor<1x2x2x2xf32>, tensor<2x2xf32>) -> tensor<1x2x2x2xf32>
  %km = cann.BatchMatMulV2 %x, %wk {adj_x1 = false, adj_x2 = false} : (tensor<1x2x4xf32>, tensor<4x4xf32>) -> tensor<1x2x4xf32>
  %kr = cann.Reshape %km {shape = array<i64: 1, 2, 2, 2>} : (tensor<1x2x4xf32>) -> tensor<1x2x2x2xf32>
  %k = cann.Add %kr, %bk : (tensor<1x2x2x2xf32>, tensor<2x2xf32>) -> tensor<1x2x2x2xf32>
  %vm = cann.BatchMatMulV2 %x, %wv {adj_x1 = false, adj_x2 = false} : (tensor<1x2x4xf32>, tensor<4x4xf32>) -> tensor<1x2x4xf32>
  %vr = cann.Reshape %vm {shape = array<i64: 1, 2, 2, 2>} : (tensor<1x2x4xf32>) -> tensor<1x2x2x2xf32>
  %v = cann.Add %vr, %bv : (tensor<1x2x2x2xf32>, tensor<2x2xf32>) -> tensor<1x2x2x2xf32>
  %c = cann.Const dense<0.707106769> : tensor<f32>
  %qt = cann.TransposeD %q {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %kt = cann.TransposeD %k {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %s = cann.BatchMatMulV2 %qt, %kt {adj_x1 = false, adj_x2 = false} : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %m = cann.Mul %s, %c : (tensor<1x2x2x2xf32>, tensor<f32>) -> tensor<1x2x2x2xf32>
  %p = cann.SoftmaxV2 %m {axes = array<i64: -1>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %vt = cann.TransposeD %v {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %o = cann.BatchMatMulV2 %p, %vt {adj_x1 = false, adj_x2 = false} : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %y = cann.TransposeD %o {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// The K weight is a runtime value (is_const(wk) fails): attention stays separate
// from the projections.
// CHECK-LABEL: func.func @multi_head_attention_weight_not_const
// CHECK-NOT:     FusedMultiHeadAttention
// CHECK:         cann.FusedAttention {{.*}}layout = "BSND"
func.func @multi_head_attention_weight_not_const(%x: tensor<1x2x4xf32>, %wk: tensor<4x4xf32>) -> tensor<1x2x2x2xf32> {
  %wq = cann.Const dense<[[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]]> : tensor<4x4xf32>
  %bq = cann.Const dense<[[0.1, 0.2], [0.3, 0.4]]> : tensor<2x2xf32>
  %wv = cann.Const dense<[[2.0, 0.0, 0.0, 0.0], [0.0, 2.0, 0.0, 0.0], [0.0, 0.0, 2.0, 0.0], [0.0, 0.0, 0.0, 2.0]]> : tensor<4x4xf32>
  %bv = cann.Const dense<[[1.0, 1.0], [1.0, 1.0]]> : tensor<2x2xf32>
  %bk = cann.Const dense<[[0.0, 0.0], [0.0, -1.0]]> : tensor<2x2xf32>
  %qm = cann.BatchMatMulV2 %x, %wq {adj_x1 = false, adj_x2 = false} : (tensor<1x2x4xf32>, tensor<4x4xf32>) -> tensor<1x2x4xf32>
  %qr = cann.Reshape %qm {shape = array<i64: 1, 2, 2, 2>} : (tensor<1x2x4xf32>) -> tensor<1x2x2x2xf32>
  %q = cann.Add %qr, %bq : (tensor<1x2x2x2xf32>, tensor<2x2xf32>) -> tensor<1x2x2x2xf32>
  %km = cann.BatchMatMulV2 %x, %wk {adj_x1 = false, adj_x2 = false} : (tensor<1x2x4xf32>, tensor<4x4xf32>) -> tensor<1x2x4xf32>
  %kr = cann.Reshape %km {shape = array<i64: 1, 2, 2, 2>} : (tensor<1x2x4xf32>) -> tensor<1x2x2x2xf32>
  %k = cann.Add %kr, %bk : (tensor<1x2x2x2xf32>, tensor<2x2xf32>) -> tensor<1x2x2x2xf32>
  %vm = cann.BatchMatMulV2 %x, %wv {adj_x1 = false, adj_x2 = false} : (tensor<1x2x4xf32>, tensor<4x4xf32>) -> tensor<1x2x4xf32>
  %vr = cann.Reshape %vm {shape = array<i64: 1, 2, 2, 2>} : (tensor<1x2x4xf32>) -> tensor<1x2x2x2xf32>
  %v = cann.Add %vr, %bv : (tensor<1x2x2x2xf32>, tensor<2x2xf32>) -> tensor<1x2x2x2xf32>
  %c = cann.Const dense<0.707106769> : tensor<f32>
  %qt = cann.TransposeD %q {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %kt = cann.TransposeD %k {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %s = cann.BatchMatMulV2 %qt, %kt {adj_x1 = false, adj_x2 = false} : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %m = cann.Mul %s, %c : (tensor<1x2x2x2xf32>, tensor<f32>) -> tensor<1x2x2x2xf32>
  %p = cann.SoftmaxV2 %m {axes = array<i64: -1>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %vt = cann.TransposeD %v {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %o = cann.BatchMatMulV2 %p, %vt {adj_x1 = false, adj_x2 = false} : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %y = cann.TransposeD %o {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// The heads' merge after the attention ([B, S, N, D] -> [B, S, N*D], the output projection's
// input) goes into it: FusedMultiHeadAttention writes y as [B, S, N*D].
// CHECK-LABEL: func.func @multi_head_attention_merge_heads
// CHECK-NEXT:    %[[Y:.*]] = cann.FusedMultiHeadAttention %x, %w, %b, %mask {num_heads = 2 : i64, scale = 5.000000e-01 : f32} : (tensor<1x16x32xf32>, tensor<32x96xf32>, tensor<96xf32>, tensor<1x1x1x16xf32>) -> tensor<1x16x32xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x16x32xf32>
func.func @multi_head_attention_merge_heads(%x: tensor<1x16x32xf32>, %w: tensor<32x96xf32>, %b: tensor<96xf32>, %mask: tensor<1x1x1x16xf32>) -> tensor<1x16x32xf32> {
  %y = cann.FusedMultiHeadAttention %x, %w, %b, %mask {num_heads = 2 : i64, scale = 0.5 : f32} : (tensor<1x16x32xf32>, tensor<32x96xf32>, tensor<96xf32>, tensor<1x1x1x16xf32>) -> tensor<1x16x2x16xf32>
  %r = cann.Reshape %y {shape = array<i64: 1, 16, 32>} : (tensor<1x16x2x16xf32>) -> tensor<1x16x32xf32>
  func.return %r : tensor<1x16x32xf32>
}

// A reshape that also merges the batch ([1, 16, 2, 16] -> [16, 32]) is no merge of the last two
// axes alone: it stays after the attention.
// CHECK-LABEL: func.func @multi_head_attention_reshape_not_merge
// CHECK-NEXT:    %[[Y:.*]] = cann.FusedMultiHeadAttention %x, %w, %b {{.*}} -> tensor<1x16x2x16xf32>
// CHECK-NEXT:    cann.Reshape %[[Y]]
func.func @multi_head_attention_reshape_not_merge(%x: tensor<1x16x32xf32>, %w: tensor<32x96xf32>, %b: tensor<96xf32>) -> tensor<16x32xf32> {
  %y = cann.FusedMultiHeadAttention %x, %w, %b {num_heads = 2 : i64, scale = 0.5 : f32} : (tensor<1x16x32xf32>, tensor<32x96xf32>, tensor<96xf32>) -> tensor<1x16x2x16xf32>
  %r = cann.Reshape %y {shape = array<i64: 16, 32>} : (tensor<1x16x2x16xf32>) -> tensor<16x32xf32>
  func.return %r : tensor<16x32xf32>
}

// Llama's gated MLP: silu(x @ Wg) * (x @ Wu) as one GEMM (weights concatenated gate|up) with a
// gated epilogue.
// CHECK-LABEL: func.func @gated_mlp_swish
// CHECK:         %[[W:.*]] = cann.Const dense<{{.*}}> : tensor<4x6xf32>
// CHECK-NEXT:    %[[B:.*]] = cann.Const dense<0.000000e+00> : tensor<6xf32>
// CHECK-NEXT:    %[[Y:.*]] = cann.FusedGatedMatMul %x, %[[W]], %[[B]] {activation = "Swish"}
// CHECK-NEXT:    func.return %[[Y]]
func.func @gated_mlp_swish(%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %wg = cann.Const dense<[[1.0, 0.0, 0.5], [0.0, 1.0, 0.5], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]]> : tensor<4x3xf32>
  %wu = cann.Const dense<[[2.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 2.0], [1.0, 1.0, 1.0]]> : tensor<4x3xf32>
  %g = cann.MatMulV2 %x, %wg {transpose_x1 = false, transpose_x2 = false} : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %s = cann.Sigmoid %g : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %a = cann.Mul %g, %s : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %u = cann.MatMulV2 %x, %wu {transpose_x1 = false, transpose_x2 = false} : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %y = cann.Mul %a, %u : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}

// The up weight is a runtime value (is_const(wu) fails).
// CHECK-LABEL: func.func @gated_mlp_up_not_const
// CHECK-NOT:     FusedGatedMatMul
// CHECK:         cann.Sigmoid
func.func @gated_mlp_up_not_const(%x: tensor<2x4xf32>, %wu: tensor<4x3xf32>) -> tensor<2x3xf32> {
  %wg = cann.Const dense<[[1.0, 0.0, 0.5], [0.0, 1.0, 0.5], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]]> : tensor<4x3xf32>
  %g = cann.MatMulV2 %x, %wg {transpose_x1 = false, transpose_x2 = false} : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %s = cann.Sigmoid %g : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %a = cann.Mul %g, %s : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %u = cann.MatMulV2 %x, %wu {transpose_x1 = false, transpose_x2 = false} : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %y = cann.Mul %a, %u : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}

// The silu output is also returned (no_external_consumer(a) fails).
// CHECK-LABEL: func.func @gated_mlp_gate_escapes
// CHECK-NOT:     FusedGatedMatMul
// CHECK:         cann.Sigmoid
func.func @gated_mlp_gate_escapes(%x: tensor<2x4xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %wg = cann.Const dense<[[1.0, 0.0, 0.5], [0.0, 1.0, 0.5], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]]> : tensor<4x3xf32>
  %wu = cann.Const dense<[[2.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 2.0], [1.0, 1.0, 1.0]]> : tensor<4x3xf32>
  %g = cann.MatMulV2 %x, %wg {transpose_x1 = false, transpose_x2 = false} : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %s = cann.Sigmoid %g : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %a = cann.Mul %g, %s : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %u = cann.MatMulV2 %x, %wu {transpose_x1 = false, transpose_x2 = false} : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %y = cann.Mul %a, %u : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %y, %a : tensor<2x3xf32>, tensor<2x3xf32>
}

// tf.nn.silu's x * sigmoid(beta * x), beta = 1.
// CHECK-LABEL: func.func @gated_mlp_swish_beta
// CHECK:         %[[Y:.*]] = cann.FusedGatedMatMul %x, %{{.*}}, %{{.*}} {activation = "Swish"}
// CHECK-NEXT:    func.return %[[Y]]
func.func @gated_mlp_swish_beta(%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %wg = cann.Const dense<[[1.0, 0.0, 0.5], [0.0, 1.0, 0.5], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]]> : tensor<4x3xf32>
  %wu = cann.Const dense<[[2.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 2.0], [1.0, 1.0, 1.0]]> : tensor<4x3xf32>
  %beta = cann.Const dense<1.000000e+00> : tensor<f32>
  %g = cann.MatMulV2 %x, %wg {transpose_x1 = false, transpose_x2 = false} : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %k = cann.Mul %beta, %g : (tensor<f32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %s = cann.Sigmoid %k : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %a = cann.Mul %g, %s : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %u = cann.MatMulV2 %x, %wu {transpose_x1 = false, transpose_x2 = false} : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %y = cann.Mul %u, %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}

// beta = 2 is not silu (const_is(beta, 1) fails).
// CHECK-LABEL: func.func @gated_mlp_swish_beta_2
// CHECK-NOT:     FusedGatedMatMul
// CHECK:         cann.Sigmoid
func.func @gated_mlp_swish_beta_2(%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %wg = cann.Const dense<[[1.0, 0.0, 0.5], [0.0, 1.0, 0.5], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]]> : tensor<4x3xf32>
  %wu = cann.Const dense<[[2.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 2.0], [1.0, 1.0, 1.0]]> : tensor<4x3xf32>
  %beta = cann.Const dense<2.000000e+00> : tensor<f32>
  %g = cann.MatMulV2 %x, %wg {transpose_x1 = false, transpose_x2 = false} : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %k = cann.Mul %beta, %g : (tensor<f32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %s = cann.Sigmoid %k : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %a = cann.Mul %g, %s : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %u = cann.MatMulV2 %x, %wu {transpose_x1 = false, transpose_x2 = false} : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %y = cann.Mul %u, %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}

// The single-GEMM gated MLP: x @ W [K, 2F] -> SplitD in halves -> silu(gate) * up: the GEMM's
// weight is FusedGatedMatMul's as it is (no bias: zeros).
// CHECK-LABEL: func.func @gated_mlp_split
// CHECK:         %[[B:.*]] = cann.Const dense<0.000000e+00> : tensor<6xf32>
// CHECK-NEXT:    %[[Y:.*]] = cann.FusedGatedMatMul %x, %w, %[[B]] {activation = "Swish"}
// CHECK-NEXT:    func.return %[[Y]]
func.func @gated_mlp_split(%x: tensor<2x4xf32>, %w: tensor<4x6xf32>) -> tensor<2x3xf32> {
  %h = cann.MatMulV2 %x, %w {transpose_x1 = false, transpose_x2 = false} : (tensor<2x4xf32>, tensor<4x6xf32>) -> tensor<2x6xf32>
  %g, %u = cann.SplitD %h {split_dim = -1 : i64, num_split = 2 : i64} : (tensor<2x6xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>)
  %s = cann.Sigmoid %g : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %a = cann.Mul %g, %s : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %y = cann.Mul %u, %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}

// SplitVD with equal sizes, silu as x * sigmoid(1 * x), through Tensordot's Reshape: the
// Reshape moves after the fused op.
// CHECK-LABEL: func.func @gated_mlp_splitv_reshape_beta
// CHECK:         %[[F:.*]] = cann.FusedGatedMatMul %x, %w, %b {activation = "Swish"} : (tensor<2x4xf32>, tensor<4x6xf32>, tensor<6xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[Y:.*]] = cann.Reshape %[[F]] {shape = array<i64: 1, 2, 3>}
// CHECK-NEXT:    func.return %[[Y]]
func.func @gated_mlp_splitv_reshape_beta(%x: tensor<2x4xf32>, %w: tensor<4x6xf32>, %b: tensor<6xf32>) -> tensor<1x2x3xf32> {
  %one = cann.Const dense<1.000000e+00> : tensor<f32>
  %h = cann.FusedMatMul %x, %w, %b {transpose_x1 = false, transpose_x2 = false, activation = "none"} : (tensor<2x4xf32>, tensor<4x6xf32>, tensor<6xf32>) -> tensor<2x6xf32>
  %r = cann.Reshape %h {shape = array<i64: 1, 2, 6>} : (tensor<2x6xf32>) -> tensor<1x2x6xf32>
  %g, %u = cann.SplitVD %r {size_splits = array<i64: 3, 3>, split_dim = 2 : i64, num_split = 2 : i64} : (tensor<1x2x6xf32>) -> (tensor<1x2x3xf32>, tensor<1x2x3xf32>)
  %k = cann.Mul %one, %g : (tensor<f32>, tensor<1x2x3xf32>) -> tensor<1x2x3xf32>
  %s = cann.Sigmoid %k : (tensor<1x2x3xf32>) -> tensor<1x2x3xf32>
  %a = cann.Mul %g, %s : (tensor<1x2x3xf32>, tensor<1x2x3xf32>) -> tensor<1x2x3xf32>
  %y = cann.Mul %a, %u : (tensor<1x2x3xf32>, tensor<1x2x3xf32>) -> tensor<1x2x3xf32>
  func.return %y : tensor<1x2x3xf32>
}

// Split along the rows, not the last axis (splits_halves fails): no fusion.
// CHECK-LABEL: func.func @gated_mlp_split_wrong_axis
// CHECK-NOT:     FusedGatedMatMul
// CHECK:         cann.SplitD
func.func @gated_mlp_split_wrong_axis(%x: tensor<2x4xf32>, %w: tensor<4x6xf32>) -> tensor<1x6xf32> {
  %h = cann.MatMulV2 %x, %w {transpose_x1 = false, transpose_x2 = false} : (tensor<2x4xf32>, tensor<4x6xf32>) -> tensor<2x6xf32>
  %g, %u = cann.SplitD %h {split_dim = 0 : i64, num_split = 2 : i64} : (tensor<2x6xf32>) -> (tensor<1x6xf32>, tensor<1x6xf32>)
  %s = cann.Sigmoid %g : (tensor<1x6xf32>) -> tensor<1x6xf32>
  %a = cann.Mul %g, %s : (tensor<1x6xf32>, tensor<1x6xf32>) -> tensor<1x6xf32>
  %y = cann.Mul %a, %u : (tensor<1x6xf32>, tensor<1x6xf32>) -> tensor<1x6xf32>
  func.return %y : tensor<1x6xf32>
}

// The swish is on the up half (the second result), not the gate (is_result(u, sp, 1) fails).
// CHECK-LABEL: func.func @gated_mlp_swish_on_up
// CHECK-NOT:     FusedGatedMatMul
// CHECK:         cann.Sigmoid
func.func @gated_mlp_swish_on_up(%x: tensor<2x4xf32>, %w: tensor<4x6xf32>) -> tensor<2x3xf32> {
  %h = cann.MatMulV2 %x, %w {transpose_x1 = false, transpose_x2 = false} : (tensor<2x4xf32>, tensor<4x6xf32>) -> tensor<2x6xf32>
  %g, %u = cann.SplitD %h {split_dim = 1 : i64, num_split = 2 : i64} : (tensor<2x6xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>)
  %s = cann.Sigmoid %u : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %a = cann.Mul %u, %s : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %y = cann.Mul %a, %g : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}

// The halves as StridedSlice (Keras' h[..., :F] and h[..., F:]).
// CHECK-LABEL: func.func @gated_mlp_slices
// CHECK:         cann.FusedGatedMatMul %x, %w, %{{.*}} {activation = "Swish"}
// CHECK-NOT:     cann.StridedSliceD
// CHECK:         func.return
func.func @gated_mlp_slices(%x: tensor<2x4xf32>, %w: tensor<4x6xf32>) -> tensor<2x3xf32> {
  %h = cann.MatMulV2 %x, %w {transpose_x1 = false, transpose_x2 = false} : (tensor<2x4xf32>, tensor<4x6xf32>) -> tensor<2x6xf32>
  %g = cann.StridedSliceD %h {begin = array<i64: 0, 0>, end = array<i64: 0, 3>, strides = array<i64: 1, 1>, begin_mask = 2 : i64, end_mask = 0 : i64, ellipsis_mask = 1 : i64, new_axis_mask = 0 : i64, shrink_axis_mask = 0 : i64} : (tensor<2x6xf32>) -> tensor<2x3xf32>
  %u = cann.StridedSliceD %h {begin = array<i64: 0, 3>, end = array<i64: 0, 0>, strides = array<i64: 1, 1>, begin_mask = 0 : i64, end_mask = 2 : i64, ellipsis_mask = 1 : i64, new_axis_mask = 0 : i64, shrink_axis_mask = 0 : i64} : (tensor<2x6xf32>) -> tensor<2x3xf32>
  %s = cann.Sigmoid %g : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %a = cann.Mul %g, %s : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %y = cann.Mul %a, %u : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}

// The "up" slice overlaps the gate ([..., 2:5], not the second half: slices_half fails).
// CHECK-LABEL: func.func @gated_mlp_slices_not_halves
// CHECK-NOT:     FusedGatedMatMul
// CHECK:         cann.StridedSliceD
func.func @gated_mlp_slices_not_halves(%x: tensor<2x4xf32>, %w: tensor<4x6xf32>) -> tensor<2x3xf32> {
  %h = cann.MatMulV2 %x, %w {transpose_x1 = false, transpose_x2 = false} : (tensor<2x4xf32>, tensor<4x6xf32>) -> tensor<2x6xf32>
  %g = cann.StridedSliceD %h {begin = array<i64: 0, 0>, end = array<i64: 0, 3>, strides = array<i64: 1, 1>, begin_mask = 2 : i64, end_mask = 0 : i64, ellipsis_mask = 1 : i64, new_axis_mask = 0 : i64, shrink_axis_mask = 0 : i64} : (tensor<2x6xf32>) -> tensor<2x3xf32>
  %u = cann.StridedSliceD %h {begin = array<i64: 0, 2>, end = array<i64: 0, 5>, strides = array<i64: 1, 1>, begin_mask = 0 : i64, end_mask = 0 : i64, ellipsis_mask = 1 : i64, new_axis_mask = 0 : i64, shrink_axis_mask = 0 : i64} : (tensor<2x6xf32>) -> tensor<2x3xf32>
  %s = cann.Sigmoid %g : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %a = cann.Mul %g, %s : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %y = cann.Mul %a, %u : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}

// A select mask: where(mask, scores, -1e9) -> FusedAttention with mask_kind "select".
// CHECK-LABEL: func.func @attention_bnsd_select_mask
// CHECK-NEXT:    %[[Y:.*]] = cann.FusedAttention %q, %k, %v, %mask {scale = 5.000000e-01 : f32, adj_k = false, mask_kind = "select", mask_value = -1.000000e+09 : f32}
// CHECK-NEXT:    func.return %[[Y]]
func.func @attention_bnsd_select_mask(%q: tensor<1x2x2x2xf32>, %k: tensor<1x2x2x2xf32>, %v: tensor<1x2x2x2xf32>, %mask: tensor<1x1x2x2xi1>) -> tensor<1x2x2x2xf32> {
  %c = cann.Const dense<5.000000e-01> : tensor<f32>
  %fill = cann.Const dense<-1.000000e+09> : tensor<f32>
  %s = cann.BatchMatMulV2 %q, %k {adj_x1 = false, adj_x2 = true} : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %m = cann.Mul %s, %c : (tensor<1x2x2x2xf32>, tensor<f32>) -> tensor<1x2x2x2xf32>
  %sm = cann.SelectV2 %mask, %m, %fill : (tensor<1x1x2x2xi1>, tensor<1x2x2x2xf32>, tensor<f32>) -> tensor<1x2x2x2xf32>
  %p = cann.SoftmaxV2 %sm {axes = array<i64: -1>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %y = cann.BatchMatMulV2 %p, %v {adj_x1 = false, adj_x2 = false} : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// The select's branches swapped, where(mask, -1e9, scores), with a run-time mask (the keep mask
// would be its negation; only a constant one is inverted, folds(cond) fails): no fusion.
// CHECK-LABEL: func.func @attention_bnsd_select_swapped
// CHECK-NOT:     FusedAttention
// CHECK:         cann.SelectV2
func.func @attention_bnsd_select_swapped(%q: tensor<1x2x2x2xf32>, %k: tensor<1x2x2x2xf32>, %v: tensor<1x2x2x2xf32>, %mask: tensor<1x1x2x2xi1>) -> tensor<1x2x2x2xf32> {
  %c = cann.Const dense<5.000000e-01> : tensor<f32>
  %fill = cann.Const dense<-1.000000e+09> : tensor<f32>
  %s = cann.BatchMatMulV2 %q, %k {adj_x1 = false, adj_x2 = true} : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %m = cann.Mul %s, %c : (tensor<1x2x2x2xf32>, tensor<f32>) -> tensor<1x2x2x2xf32>
  %sm = cann.SelectV2 %mask, %fill, %m : (tensor<1x1x2x2xi1>, tensor<f32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %p = cann.SoftmaxV2 %sm {axes = array<i64: -1>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %y = cann.BatchMatMulV2 %p, %v {adj_x1 = false, adj_x2 = false} : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// Swapped branches with a constant condition (band_part(..) == 0): the keep mask is folded
// and negated at compile time.
// CHECK-LABEL: func.func @attention_bnsd_select_swapped_const
// CHECK:         %[[M:.*]] = cann.Const dense<{{\[\[}}true, false], [true, true]]> : tensor<2x2xi1>
// CHECK-NEXT:    %[[Y:.*]] = cann.FusedAttention %q, %k, %v, %[[M]] {{.*}}mask_kind = "select"
// CHECK-NEXT:    func.return %[[Y]]
func.func @attention_bnsd_select_swapped_const(%q: tensor<1x2x2x2xf32>, %k: tensor<1x2x2x2xf32>, %v: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %c = cann.Const dense<5.000000e-01> : tensor<f32>
  %fill = cann.Const dense<-1.000000e+09> : tensor<f32>
  %band = cann.Const dense<[[1.0, 0.0], [1.0, 1.0]]> : tensor<2x2xf32>
  %zero = cann.Const dense<0.0> : tensor<f32>
  %cond = cann.Equal %band, %zero : (tensor<2x2xf32>, tensor<f32>) -> tensor<2x2xi1>
  %s = cann.BatchMatMulV2 %q, %k {adj_x1 = false, adj_x2 = true} : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %m = cann.Mul %s, %c : (tensor<1x2x2x2xf32>, tensor<f32>) -> tensor<1x2x2x2xf32>
  %sm = cann.SelectV2 %cond, %fill, %m : (tensor<2x2xi1>, tensor<f32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %p = cann.SoftmaxV2 %sm {axes = array<i64: -1>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %y = cann.BatchMatMulV2 %p, %v {adj_x1 = false, adj_x2 = false} : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// where(mask > 0, scores, -1e9) on a run-time float mask: the comparison goes into the kernel.
// CHECK-LABEL: func.func @attention_bnsd_greater_mask
// CHECK-NEXT:    %[[Y:.*]] = cann.FusedAttention %q, %k, %v, %mask {scale = 5.000000e-01 : f32, adj_k = false, mask_kind = "greater", mask_value = -1.000000e+09 : f32, mask_threshold = 0.000000e+00 : f32}
// CHECK-NEXT:    func.return %[[Y]]
func.func @attention_bnsd_greater_mask(%q: tensor<1x2x2x2xf32>, %k: tensor<1x2x2x2xf32>, %v: tensor<1x2x2x2xf32>, %mask: tensor<1x1x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %c = cann.Const dense<5.000000e-01> : tensor<f32>
  %fill = cann.Const dense<-1.000000e+09> : tensor<f32>
  %zero = cann.Const dense<0.0> : tensor<f32>
  %cond = cann.Greater %mask, %zero : (tensor<1x1x2x2xf32>, tensor<f32>) -> tensor<1x1x2x2xi1>
  %s = cann.BatchMatMulV2 %q, %k {adj_x1 = false, adj_x2 = true} : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %m = cann.Mul %s, %c : (tensor<1x2x2x2xf32>, tensor<f32>) -> tensor<1x2x2x2xf32>
  %sm = cann.SelectV2 %cond, %m, %fill : (tensor<1x1x2x2xi1>, tensor<1x2x2x2xf32>, tensor<f32>) -> tensor<1x2x2x2xf32>
  %p = cann.SoftmaxV2 %sm {axes = array<i64: -1>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %y = cann.BatchMatMulV2 %p, %v {adj_x1 = false, adj_x2 = false} : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// The fill is not one value (is_uniform_const fails): no fusion.
// CHECK-LABEL: func.func @attention_bnsd_select_fill_not_uniform
// CHECK-NOT:     FusedAttention
// CHECK:         cann.SelectV2
func.func @attention_bnsd_select_fill_not_uniform(%q: tensor<1x2x2x2xf32>, %k: tensor<1x2x2x2xf32>, %v: tensor<1x2x2x2xf32>, %mask: tensor<1x1x2x2xi1>) -> tensor<1x2x2x2xf32> {
  %c = cann.Const dense<5.000000e-01> : tensor<f32>
  %fill = cann.Const dense<[-1.0e+09, 0.0]> : tensor<2xf32>
  %s = cann.BatchMatMulV2 %q, %k {adj_x1 = false, adj_x2 = true} : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %m = cann.Mul %s, %c : (tensor<1x2x2x2xf32>, tensor<f32>) -> tensor<1x2x2x2xf32>
  %sm = cann.SelectV2 %mask, %m, %fill : (tensor<1x1x2x2xi1>, tensor<1x2x2x2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %p = cann.SoftmaxV2 %sm {axes = array<i64: -1>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %y = cann.BatchMatMulV2 %p, %v {adj_x1 = false, adj_x2 = false} : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// Keras 3's Softmax(mask) in the attention of keras-hub's backbones, as cann-cleanup leaves it
// (the key as k^T(0213) with adj_x2): where(mask, s, -1e9) -> softmax -> where(mask, p, 0) is
// one FusedAttention with zero_masked (a row with every key dropped gives 0).
// CHECK-LABEL: func.func @attention_keras3_select_zero
// CHECK-NEXT:    %[[Y:.*]] = cann.FusedAttention %q, %k, %v, %mask {scale = 5.000000e-01 : f32, adj_k = false, layout = "BSND", mask_kind = "select", mask_value = -1.000000e+09 : f32, zero_masked = true}
// CHECK-NEXT:    func.return %[[Y]]
func.func @attention_keras3_select_zero(%q: tensor<1x4x2x16xf32>, %k: tensor<1x4x2x16xf32>, %v: tensor<1x4x2x16xf32>, %mask: tensor<1x1x1x4xi1>) -> tensor<1x4x2x16xf32> {
  %c = cann.Const dense<0.5> : tensor<f32>
  %fill = cann.Const dense<-1.0e9> : tensor<f32>
  %zero = cann.Const dense<0.0> : tensor<f32>
  %qt = cann.TransposeD %q {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x4x2x16xf32>) -> tensor<1x2x4x16xf32>
  %kt = cann.TransposeD %k {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x4x2x16xf32>) -> tensor<1x2x4x16xf32>
  %s = cann.BatchMatMulV2 %qt, %kt {adj_x1 = false, adj_x2 = true} : (tensor<1x2x4x16xf32>, tensor<1x2x4x16xf32>) -> tensor<1x2x4x4xf32>
  %m = cann.Mul %s, %c : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32>
  %sm = cann.SelectV2 %mask, %m, %fill : (tensor<1x1x1x4xi1>, tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32>
  %p = cann.SoftmaxV2 %sm {axes = array<i64: -1>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %pz = cann.SelectV2 %mask, %p, %zero : (tensor<1x1x1x4xi1>, tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32>
  %vt = cann.TransposeD %v {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x4x2x16xf32>) -> tensor<1x2x4x16xf32>
  %o = cann.BatchMatMulV2 %pz, %vt {adj_x1 = false, adj_x2 = false} : (tensor<1x2x4x4xf32>, tensor<1x2x4x16xf32>) -> tensor<1x2x4x16xf32>
  %y = cann.TransposeD %o {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x4x16xf32>) -> tensor<1x4x2x16xf32>
  func.return %y : tensor<1x4x2x16xf32>
}

// The zeroing select with another fill than 0 is not Keras' and stays outside: the plain
// select-mask rule cannot take the softmax either (its result has a second reader, the select).
// CHECK-LABEL: func.func @attention_keras3_select_nonzero
// CHECK-NOT:     cann.FusedAttention
func.func @attention_keras3_select_nonzero(%q: tensor<1x4x2x16xf32>, %k: tensor<1x4x2x16xf32>, %v: tensor<1x4x2x16xf32>, %mask: tensor<1x1x1x4xi1>) -> tensor<1x4x2x16xf32> {
  %c = cann.Const dense<0.5> : tensor<f32>
  %fill = cann.Const dense<-1.0e9> : tensor<f32>
  %one = cann.Const dense<1.0> : tensor<f32>
  %qt = cann.TransposeD %q {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x4x2x16xf32>) -> tensor<1x2x4x16xf32>
  %kt = cann.TransposeD %k {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x4x2x16xf32>) -> tensor<1x2x4x16xf32>
  %s = cann.BatchMatMulV2 %qt, %kt {adj_x1 = false, adj_x2 = true} : (tensor<1x2x4x16xf32>, tensor<1x2x4x16xf32>) -> tensor<1x2x4x4xf32>
  %m = cann.Mul %s, %c : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32>
  %sm = cann.SelectV2 %mask, %m, %fill : (tensor<1x1x1x4xi1>, tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32>
  %p = cann.SoftmaxV2 %sm {axes = array<i64: -1>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %pz = cann.SelectV2 %mask, %p, %one : (tensor<1x1x1x4xi1>, tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32>
  %vt = cann.TransposeD %v {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x4x2x16xf32>) -> tensor<1x2x4x16xf32>
  %o = cann.BatchMatMulV2 %pz, %vt {adj_x1 = false, adj_x2 = false} : (tensor<1x2x4x4xf32>, tensor<1x2x4x16xf32>) -> tensor<1x2x4x16xf32>
  %y = cann.TransposeD %o {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x4x16xf32>) -> tensor<1x4x2x16xf32>
  func.return %y : tensor<1x4x2x16xf32>
}
