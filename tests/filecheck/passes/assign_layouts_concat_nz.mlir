// RUN: cann-opt --assign-layouts %s | filecheck %s
// RUN: cann-opt --assign-layouts --cann-to-kernel %s | filecheck %s --check-prefix=KERNEL

// A concat between matmuls (a wide-and-deep head: two Dense outputs joined on the last axis,
// another Dense): every input but the last ends on a C0 = 16 column block, so the concat runs on
// FRACTAL_NZ as a concat of the stored arrays along K1 (the last input's padding columns are
// the result's), and the only TransData left are the graph's input and output.
builtin.module attributes {cann.soc_version = "Ascend910B3"} {
  func.func @main(%x: tensor<1x8xf32>) -> tensor<1x4xf32> {
    %w0 = cann.Const dense<0.25> : tensor<8x32xf32>
    %w1 = cann.Const dense<0.5> : tensor<8x3xf32>
    %w2 = cann.Const dense<0.125> : tensor<35x4xf32>
    %a = cann.MatMulV2 %x, %w0 {transpose_x1 = false, transpose_x2 = false} : (tensor<1x8xf32>, tensor<8x32xf32>) -> tensor<1x32xf32>
    %b = cann.MatMulV2 %x, %w1 {transpose_x1 = false, transpose_x2 = false} : (tensor<1x8xf32>, tensor<8x3xf32>) -> tensor<1x3xf32>
    %c = cann.ConcatV2D %a, %b {concat_dim = 1 : i64, N = 2 : i64} : (tensor<1x32xf32>, tensor<1x3xf32>) -> tensor<1x35xf32>
    %y = cann.MatMulV2 %c, %w2 {transpose_x1 = false, transpose_x2 = false} : (tensor<1x35xf32>, tensor<35x4xf32>) -> tensor<1x4xf32>
    func.return %y : tensor<1x4xf32>
  }
  // A piece that ends inside a column block: the concat has no FRACTAL_NZ kernel and runs on ND.
  func.func @off_grid(%x: tensor<1x8xf32>) -> tensor<1x4xf32> {
    %w0 = cann.Const dense<0.25> : tensor<8x3xf32>
    %w1 = cann.Const dense<0.5> : tensor<8x32xf32>
    %w2 = cann.Const dense<0.125> : tensor<35x4xf32>
    %a = cann.MatMulV2 %x, %w0 {transpose_x1 = false, transpose_x2 = false} : (tensor<1x8xf32>, tensor<8x3xf32>) -> tensor<1x3xf32>
    %b = cann.MatMulV2 %x, %w1 {transpose_x1 = false, transpose_x2 = false} : (tensor<1x8xf32>, tensor<8x32xf32>) -> tensor<1x32xf32>
    %c = cann.ConcatV2D %a, %b {concat_dim = 1 : i64, N = 2 : i64} : (tensor<1x3xf32>, tensor<1x32xf32>) -> tensor<1x35xf32>
    %y = cann.MatMulV2 %c, %w2 {transpose_x1 = false, transpose_x2 = false} : (tensor<1x35xf32>, tensor<35x4xf32>) -> tensor<1x4xf32>
    func.return %y : tensor<1x4xf32>
  }
}

// CHECK-LABEL: func.func @main
// CHECK:       cann.TransData %x {{.*}}dst_format = "FRACTAL_NZ"
// CHECK-NOT:   cann.TransData
// CHECK:       cann.ConcatV2D {{.*}} -> tensor<3x1x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [1, 35]>>
// CHECK-NOT:   cann.TransData
// CHECK:       cann.MatMulV2
// CHECK-NEXT:  cann.TransData {{.*}}dst_format = "ND"
// CHECK-LABEL: func.func @off_grid
// CHECK:       cann.ConcatV2D {{.*}} : (tensor<1x3xf32>, tensor<1x32xf32>) -> tensor<1x35xf32>

// The concat of the stored arrays along K1 (stored axis 0): its inputs written in place.
// KERNEL-LABEL: func.func @main
// KERNEL:       kernel.vec_kernel {{.*}}{concat_dim = 0 : i64, kind = "ConcatV2D"
