// RUN: cann-opt -p 'assign-layouts,cann-to-kernel{implmode="high_precision"}' %s | filecheck %s --check-prefix=PREC
// RUN: cann-opt -p 'assign-layouts,cann-to-kernel{implmode="high_performance"}' %s | filecheck %s --check-prefix=PERF
// RUN: cann-opt -p 'assign-layouts,cann-to-kernel{implmode="high_performance" implmode_ops="SoftmaxV2"}' %s | filecheck %s --check-prefix=LIST
// RUN: cann-opt -p 'assign-layouts,cann-to-kernel{implmode="high_precision"}' %s | cann-opt --print-op-generic | cann-opt | filecheck %s --check-prefix=PREC
// RUN: not cann-opt -p 'cann-to-kernel{implmode="fastest"}' %s 2>&1 | filecheck %s --check-prefix=BAD

// --op_select_implmode: the exact GELU (GeluErf) is the tanh form under high_performance, the
// erf form otherwise; with a type list, only the listed types take the mode.
// PREC-LABEL: func.func @gelu
// PREC: kernel.vec {{.*}}fn = "GeluErf"
// PERF-LABEL: func.func @gelu
// PERF: kernel.vec {{.*}}fn = "Gelu"
// PERF-NOT: fn = "GeluErf"
// LIST-LABEL: func.func @gelu
// LIST: kernel.vec {{.*}}fn = "GeluErf"
func.func @gelu(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %y = cann.GeluErf %x : (tensor<4x64xf32>) -> tensor<4x64xf32>
  func.return %y : tensor<4x64xf32>
}

// fp16 softmax rows: high_precision casts each tile to f32, computes in f32 and casts back;
// high_performance computes in f16.
// PREC-LABEL: func.func @softmax16
// PREC: kernel.load {{.*}}view = "rows"{{.*}} -> memref<{{[0-9]+}}x256xf16, #kernel.space<UB>>
// PREC-NEXT: kernel.vec {{.*}}fn = "Cast"{{.*}} -> memref<{{[0-9]+}}x256xf32, #kernel.space<UB>>
// PREC-NEXT: kernel.vec {{.*}}fn = "RowMax"{{.*}} -> memref<{{[0-9]+}}x1xf32, #kernel.space<UB>>
// PREC: kernel.vec {{.*}}fn = "RealDiv"{{.*}} -> memref<{{[0-9]+}}x256xf32, #kernel.space<UB>>
// PREC-NEXT: kernel.vec {{.*}}fn = "Cast"{{.*}} -> memref<{{[0-9]+}}x256xf16, #kernel.space<UB>>
// PREC-NEXT: kernel.store
// PERF-LABEL: func.func @softmax16
// PERF: kernel.load {{.*}}view = "rows"{{.*}} -> memref<{{[0-9]+}}x256xf16, #kernel.space<UB>>
// PERF-NEXT: kernel.vec {{.*}}fn = "RowMax"{{.*}} -> memref<{{[0-9]+}}x1xf16, #kernel.space<UB>>
// PERF-NOT: fn = "Cast"
// PERF: kernel.store
func.func @softmax16(%x: tensor<4x256xf16>) -> tensor<4x256xf16> {
  %y = cann.SoftmaxV2 %x {axes = array<i64: -1>} : (tensor<4x256xf16>) -> tensor<4x256xf16>
  func.return %y : tensor<4x256xf16>
}

// fp16 LayerNorm: gamma and beta cast once per core, the rows in f32 under high_precision.
// PREC-LABEL: func.func @layer_norm16
// PREC: kernel.load {{.*}}view = "flat"{{.*}} -> memref<256xf16, #kernel.space<UB>>
// PREC: kernel.vec {{.*}}fn = "Cast"{{.*}} -> memref<256xf32, #kernel.space<UB>>
// PREC: kernel.vec {{.*}}fn = "Rsqrt"{{.*}} -> memref<{{.*}}xf32, #kernel.space<UB>>
// PERF-LABEL: func.func @layer_norm16
// PERF: kernel.vec {{.*}}fn = "Rsqrt"{{.*}} -> memref<{{.*}}xf16, #kernel.space<UB>>
func.func @layer_norm16(%x: tensor<1x16x256xf16>, %g: tensor<256xf16>, %b: tensor<256xf16>) -> tensor<1x16x256xf16> {
  %y = cann.LayerNorm %x, %g, %b {begin_norm_axis = 2 : i64, begin_params_axis = 2 : i64, epsilon = 1.0e-5 : f32} : (tensor<1x16x256xf16>, tensor<256xf16>, tensor<256xf16>) -> tensor<1x16x256xf16>
  func.return %y : tensor<1x16x256xf16>
}

// BAD: error: cann-to-kernel: implmode 'fastest' is not one of high_precision, high_performance
