// align-concat-slabs (compiler/transforms/concat_alignment.py): a concat over C whose second slab
// starts at channel 24 (off the C0 = 16 grid: on NC1HWC0 its producer could not write it in
// place) gets padded channels instead: the producing convs get zero filter columns (24 -> 32,
// 12 -> 16), the per-channel Mul's constant zero entries, the reading conv zero filter rows, so
// the result is unchanged and the memory plan writes both slabs in place (mem.elided).
// RUN: cann-opt --align-concat-slabs %s | filecheck %s
// RUN: cann-opt --align-concat-slabs=report=- %s 2>&1 >/dev/null | filecheck %s --check-prefix=REPORT
// RUN: cann-opt -p align-concat-slabs,assign-layouts,cann-to-kernel,plan-memory %s | filecheck %s --check-prefix=PLAN
// RUN: cann-opt -p assign-layouts,cann-to-kernel,plan-memory %s | filecheck %s --check-prefix=COPY

// REPORT: align-concat-slabs: aligned ConcatV2D 'cat'
// REPORT: align-concat-slabs: left ConcatV2D 'cat_out': ConcatV2D 'cat_out' is read by func.return, which cannot take padded channels

// CHECK-LABEL: func.func @dense
// CHECK:         %[[A:.*]] = cann.Conv2D %x, %{{.*}} {{.*}} : (tensor<1x4x4x8xf32>, tensor<1x1x8x32xf32>) -> tensor<1x4x4x32xf32>
// CHECK:         %[[B:.*]] = cann.Conv2D %[[A]], %{{.*}} {{.*}} : (tensor<1x4x4x32xf32>, tensor<1x1x32x16xf32>) -> tensor<1x4x4x16xf32>
// CHECK:         %[[C:.*]] = cann.ConcatV2D %[[A]], %[[B]] {{.*}} : (tensor<1x4x4x32xf32>, tensor<1x4x4x16xf32>) -> tensor<1x4x4x48xf32>
// CHECK:         %[[S:.*]] = cann.Const dense<[2.000000e+00, 2.000000e+00, {{.*}}, 2.000000e+00, 0.000000e+00, {{.*}}, 0.000000e+00]> : tensor<48xf32>
// CHECK:         %[[M:.*]] = cann.Mul %[[C]], %[[S]] : (tensor<1x4x4x48xf32>, tensor<48xf32>) -> tensor<1x4x4x48xf32>
// CHECK:         cann.Conv2D %[[M]], %{{.*}} {{.*}} : (tensor<1x4x4x48xf32>, tensor<1x1x48x8xf32>) -> tensor<1x4x4x8xf32>
// CHECK-LABEL: func.func @returned
// CHECK:         cann.ConcatV2D {{.*}} -> tensor<1x4x4x36xf32>

// PLAN-LABEL: func.func @dense
// PLAN:         kernel.vec_kernel {{.*}}mem.elided, kind = "ConcatV2D"
// Without the pass the second slab starts at channel 24: the concat copies it.
// COPY-LABEL: func.func @dense
// COPY-NOT:     mem.elided
// COPY-LABEL: func.func @returned
builtin.module {
  func.func @dense(%x: tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32> {
    %w0 = cann.Const dense<0.5> : tensor<1x1x8x24xf32>
    %w1 = cann.Const dense<0.25> : tensor<1x1x24x12xf32>
    %w2 = cann.Const dense<0.125> : tensor<1x1x36x8xf32>
    %s = cann.Const dense<2.0> : tensor<36xf32>
    %a = cann.Conv2D %x, %w0 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x4x4x8xf32>, tensor<1x1x8x24xf32>) -> tensor<1x4x4x24xf32> loc("a")
    %b = cann.Conv2D %a, %w1 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x4x4x24xf32>, tensor<1x1x24x12xf32>) -> tensor<1x4x4x12xf32> loc("b")
    %c = cann.ConcatV2D %a, %b {concat_dim = 3 : i64, N = 2 : i64} : (tensor<1x4x4x24xf32>, tensor<1x4x4x12xf32>) -> tensor<1x4x4x36xf32> loc("cat")
    %m = cann.Mul %c, %s : (tensor<1x4x4x36xf32>, tensor<36xf32>) -> tensor<1x4x4x36xf32> loc("bn")
    %y = cann.Conv2D %m, %w2 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x4x4x36xf32>, tensor<1x1x36x8xf32>) -> tensor<1x4x4x8xf32> loc("y")
    func.return %y : tensor<1x4x4x8xf32>
  }
  func.func @returned(%x: tensor<1x4x4x8xf32>) -> tensor<1x4x4x36xf32> {
    %w0 = cann.Const dense<0.5> : tensor<1x1x8x24xf32>
    %w1 = cann.Const dense<0.25> : tensor<1x1x24x12xf32>
    %a = cann.Conv2D %x, %w0 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x4x4x8xf32>, tensor<1x1x8x24xf32>) -> tensor<1x4x4x24xf32> loc("a2")
    %b = cann.Conv2D %a, %w1 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x4x4x24xf32>, tensor<1x1x24x12xf32>) -> tensor<1x4x4x12xf32> loc("b2")
    %c = cann.ConcatV2D %a, %b {concat_dim = 3 : i64, N = 2 : i64} : (tensor<1x4x4x24xf32>, tensor<1x4x4x12xf32>) -> tensor<1x4x4x36xf32> loc("cat_out")
    func.return %c : tensor<1x4x4x36xf32>
  }
}
