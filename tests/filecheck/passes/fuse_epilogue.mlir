// Cube epilogues by the automatic fusion (compiler/transforms/fusion/auto.py): the pointwise ops after a
// conv / matmul (OutputFusable ops) become a cann.FusedKernel whose input #0 is the cube op's
// single-use result; cann-to-kernel runs its body on the cube kernel's output tile (the
// residual loaded at the tile's index), so conv + epilogue is one kernel.
// RUN: cann-opt --fuse %s | filecheck %s
// RUN: cann-opt --fuse %s | cann-opt --fuse | filecheck %s
// RUN: cann-opt --fuse --assign-layouts --cann-to-kernel %s | filecheck %s --check-prefix=KERNEL
// RUN: cann-opt --fuse --fusion-report=- %s 2>&1 >/dev/null | filecheck %s --check-prefix=REPORT

// REPORT: automatic fusion: 5 pointwise ops in 2 fused kernels (2 of them cube epilogues)
// REPORT: pointwise ops left as kernels of their own
// REPORT-NEXT: Relu (elementwise): its result is a function result only; producer FusedConv2D is a cube op whose result has 2 consumers

// Conv + bias + residual Add (the other branch: another conv) + Relu + scalar Mul.
// CHECK-LABEL: func.func @conv_residual
// CHECK:         %[[D:.*]] = cann.Conv2D %x, %w2
// CHECK:         %[[C:.*]] = cann.FusedConv2D %x, %w, %b
// CHECK-NEXT:    %[[Y:.*]] = cann.FusedKernel %[[C]], %[[D]] : (tensor<1x4x4x20xf32>, tensor<1x4x4x20xf32>) -> tensor<1x4x4x20xf32> {
// CHECK-NEXT:    ^bb0(%[[A0:.*]]: tensor<1x4x4x20xf32>, %[[A1:.*]]: tensor<1x4x4x20xf32>):
// CHECK-NEXT:      %[[S:.*]] = cann.Add %[[A0]], %[[A1]]
// CHECK-NEXT:      %[[R:.*]] = cann.Relu %[[S]]
// CHECK:           %[[M:.*]] = cann.Mul %[[R]]
// CHECK-NEXT:      cann.Yield %[[M]]
// KERNEL-LABEL: func.func @conv_residual
// KERNEL:         kernel.cube {{.*}}kind = "Conv2D"
// KERNEL:         kernel.cube %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {kind = "Conv2D"{{.*}}epilogue1
// KERNEL:           kernel.fixpipe
// KERNEL:           kernel.vec {{.*}}fn = "Add"
// KERNEL:           kernel.load {{.*}}view = "nc1hwc0"
// KERNEL-NEXT:      kernel.vec {{.*}}fn = "Add"
// KERNEL-NEXT:      kernel.vec {{.*}}fn = "Relu"
// KERNEL-NEXT:      kernel.vec {{.*}}fn = "Duplicate"
// KERNEL-NEXT:      kernel.vec {{.*}}fn = "Mul"
// KERNEL-NEXT:      kernel.store
// KERNEL-NOT:     kernel.vec_kernel {{.*}}kind = "Elementwise"
// KERNEL:         func.return
func.func @conv_residual(%x: tensor<1x4x4x8xf32>) -> tensor<1x4x4x20xf32> {
  %w = cann.Const dense<0.25> : tensor<1x1x8x20xf32>
  %w2 = cann.Const dense<-0.5> : tensor<1x1x8x20xf32>
  %b = cann.Const dense<0.125> : tensor<20xf32>
  %h = cann.Const dense<3.0> : tensor<f32>
  %d = cann.Conv2D %x, %w2 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x4x4x8xf32>, tensor<1x1x8x20xf32>) -> tensor<1x4x4x20xf32>
  %c = cann.Conv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x4x4x8xf32>, tensor<1x1x8x20xf32>) -> tensor<1x4x4x20xf32>
  %0 = cann.BiasAdd %c, %b {data_format = "NHWC"} : (tensor<1x4x4x20xf32>, tensor<20xf32>) -> tensor<1x4x4x20xf32>
  %1 = cann.Add %0, %d : (tensor<1x4x4x20xf32>, tensor<1x4x4x20xf32>) -> tensor<1x4x4x20xf32>
  %2 = cann.Relu %1 : (tensor<1x4x4x20xf32>) -> tensor<1x4x4x20xf32>
  %3 = cann.Mul %2, %h : (tensor<1x4x4x20xf32>, tensor<f32>) -> tensor<1x4x4x20xf32>
  func.return %3 : tensor<1x4x4x20xf32>
}

// A matmul's epilogue (exp, then * 2): on the FRACTAL_NZ output tile.
// CHECK-LABEL: func.func @matmul_epilogue
// CHECK-NEXT:    %[[M:.*]] = cann.MatMulV2 %a, %w
// CHECK-NEXT:    %[[Y:.*]] = cann.FusedKernel %[[M]]
// CHECK:           cann.Exp
// CHECK:           cann.Mul
// KERNEL-LABEL: func.func @matmul_epilogue
// KERNEL:         kernel.cube {{.*}}kind = "MatMulV2"
// KERNEL:           kernel.fixpipe
// KERNEL-NEXT:      kernel.vec {{.*}}fn = "Exp"
// KERNEL-NEXT:      kernel.vec {{.*}}fn = "Duplicate"
// KERNEL-NEXT:      kernel.vec {{.*}}fn = "Mul"
// KERNEL-NEXT:      kernel.store
func.func @matmul_epilogue(%a: tensor<20x32xf32>, %w: tensor<32x24xf32>) -> tensor<20x24xf32> {
  %k = cann.Const dense<2.0> : tensor<f32>
  %m = cann.MatMulV2 %a, %w {transpose_x1 = false, transpose_x2 = false} : (tensor<20x32xf32>, tensor<32x24xf32>) -> tensor<20x24xf32>
  %t = cann.Exp %m : (tensor<20x24xf32>) -> tensor<20x24xf32>
  %y = cann.Mul %t, %k : (tensor<20x24xf32>, tensor<f32>) -> tensor<20x24xf32>
  func.return %y : tensor<20x24xf32>
}

// The conv result is also returned: it stays materialized, the Relu is a kernel of its own.
// CHECK-LABEL: func.func @conv_escapes
// CHECK:         %[[C:.*]] = cann.FusedConv2D
// CHECK-NEXT:    %[[R:.*]] = cann.Relu %[[C]]
// CHECK-NEXT:    func.return %[[C]], %[[R]]
func.func @conv_escapes(%x: tensor<1x4x4x8xf32>) -> (tensor<1x4x4x20xf32>, tensor<1x4x4x20xf32>) {
  %w = cann.Const dense<0.25> : tensor<1x1x8x20xf32>
  %b = cann.Const dense<0.125> : tensor<20xf32>
  %c = cann.Conv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x4x4x8xf32>, tensor<1x1x8x20xf32>) -> tensor<1x4x4x20xf32>
  %0 = cann.BiasAdd %c, %b {data_format = "NHWC"} : (tensor<1x4x4x20xf32>, tensor<20xf32>) -> tensor<1x4x4x20xf32>
  %1 = cann.Relu %0 : (tensor<1x4x4x20xf32>) -> tensor<1x4x4x20xf32>
  func.return %0, %1 : tensor<1x4x4x20xf32>, tensor<1x4x4x20xf32>
}
