// RUN: cann-opt --fuse %s | filecheck %s
// RUN: cann-opt --fuse --assign-layouts --cann-to-kernel %s | filecheck %s --check-prefix=KERNEL
// RUN: cann-opt --fuse --assign-layouts --cann-to-kernel %s | cann-opt --print-op-generic | cann-opt | filecheck %s --check-prefix=KERNEL

// A SAME pool whose windows are padded (an inception block's 3x3 / stride-1 branch pool) read
// only by a conv runs on the conv's A tiles (compiler/transforms/fusion/auto.py
// pool_prologue_problem, compiler/conversions/cann_to_kernel/fused.py emit_pool_prologue): the
// max starts from the window's offset (1, 1), always inside x; every other offset's img2col tile
// enters the max only where its img2col_valid mask says it reads x; no MaxPool kernel.
// CHECK-LABEL: func.func @max_same
// CHECK:         cann.MaxPool %x {{.*}}prologue
// KERNEL-LABEL: func.func @max_same
// KERNEL-NOT:     kind = "MaxPool"
// KERNEL:         kernel.cube {{.*}}kind = "Conv2D"
// KERNEL:           kernel.load {{.*}}view = "img2col", {{.*}}pads = array<i64: 0, 0, 0, 0>
// KERNEL:           kernel.load {{.*}}view = "img2col", {{.*}}pads = array<i64: 1, -1, 1, -1>
// KERNEL-NEXT:      kernel.load {{.*}}view = "img2col_valid", {{.*}}pads = array<i64: 1, -1, 1, -1>
// KERNEL-NEXT:      kernel.vec {{.*}}fn = "Maximum"
// KERNEL-NEXT:      kernel.vec {{.*}}fn = "SelectV2"
// KERNEL-NOT:     kind = "MaxPool"
// KERNEL:         func.return
func.func @max_same(%x: tensor<1x8x8x20xf32>) -> tensor<1x8x8x16xf32> {
  %w = cann.Const dense<0.25> : tensor<1x1x20x16xf32>
  %p = cann.MaxPool %x {ksize = array<i64: 1, 3, 3, 1>, strides = array<i64: 1, 1, 1, 1>, padding = "SAME", data_format = "NHWC"} : (tensor<1x8x8x20xf32>) -> tensor<1x8x8x20xf32>
  %c = cann.Conv2D %p, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x8x8x20xf32>, tensor<1x1x20x16xf32>) -> tensor<1x8x8x16xf32>
  func.return %c : tensor<1x8x8x16xf32>
}

// A padded mean divides the sum (img2col reads 0 outside x) by the count of offsets inside x.
// CHECK-LABEL: func.func @avg_same
// CHECK:         cann.AvgPool %x {{.*}}prologue
// KERNEL-LABEL: func.func @avg_same
// KERNEL-NOT:     kind = "AvgPool"
// KERNEL:         kernel.cube {{.*}}kind = "Conv2D"
// KERNEL:           kernel.vec {{.*}}fn = "RealDiv"
// KERNEL-NOT:     kind = "AvgPool"
// KERNEL:         func.return
func.func @avg_same(%x: tensor<1x8x8x20xf32>) -> tensor<1x8x8x16xf32> {
  %w = cann.Const dense<0.25> : tensor<1x1x20x16xf32>
  %p = cann.AvgPool %x {ksize = array<i64: 1, 3, 3, 1>, strides = array<i64: 1, 1, 1, 1>, padding = "SAME", data_format = "NHWC"} : (tensor<1x8x8x20xf32>) -> tensor<1x8x8x20xf32>
  %c = cann.Conv2D %p, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x8x8x20xf32>, tensor<1x1x20x16xf32>) -> tensor<1x8x8x16xf32>
  func.return %c : tensor<1x8x8x16xf32>
}
