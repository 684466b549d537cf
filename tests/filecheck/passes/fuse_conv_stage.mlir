// RUN: cann-opt --fuse %s | filecheck %s
// RUN: cann-opt --fuse --assign-layouts --cann-to-kernel %s | filecheck %s --check-prefix=KERNEL
// RUN: cann-opt --fuse --assign-layouts --cann-to-kernel %s | cann-opt --print-op-generic | cann-opt | filecheck %s --check-prefix=KERNEL

// A conv whose only reader is a conv reading it as x is computed in that conv's L1 window
// (compiler/transforms/fusion/conv_stage.py, compiler/conversions/cann_to_kernel/conv_stage.py):
// - @chain: the producer is marked prologue; one kernel.cube: per M block of the reader, a
//   zero-filled L1 window, the producer's GEMM from the window's first pixel (kernel.fmap_base)
//   over its rows (its img2col A tiles, FRACTAL_Z B tiles, mmad, bias and Relu in UB), each tile
//   stored UB -> L1 into the window (view fmap_window); the reader's Load3D reads that window;
// - @two_readers: a conv read by a conv and returned is a kernel of its own (not marked).
// CHECK-LABEL: func.func @chain
// CHECK:         cann.FusedConv2D {{.*}}prologue{{.*}}activation = "Relu"
// CHECK-LABEL: func.func @two_readers
// CHECK-NOT:     prologue
// CHECK:         func.return

// KERNEL-LABEL: func.func @chain
// KERNEL-COUNT-1: kernel.cube
// KERNEL:           %[[W:[0-9]+]] = kernel.alloc : memref<1x[[R:[0-9]+]]x16x16xf32, #kernel.space<L1>>
// KERNEL-NEXT:      %[[B:[0-9]+]] = kernel.fmap_base %[[M:[0-9]+]] {params = {in_hw = array<i64: 16, 16>, out_hw = array<i64: 16, 16>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>}}
// KERNEL-NEXT:      kernel.for %[[B]]
// KERNEL:             kernel.mmad
// KERNEL:             kernel.vec {{.*}}fn = "act:Relu"
// KERNEL-NEXT:        kernel.store %{{[0-9]+}}, %[[W]][%[[B]], %{{[0-9]+}}, %{{[0-9]+}}] {view = "fmap_window", params = {M = 256 : i64, N = 16 : i64}} : memref<{{[0-9]+}}x16xf32, #kernel.space<UB>>, memref<1x[[R]]x16x16xf32, #kernel.space<L1>>
// KERNEL:           %[[J:[0-9]+]] = kernel.join %[[W]]
// KERNEL:             kernel.load %[[J]][{{.*}}] {view = "load3d"
// KERNEL-NOT:     kernel.cube
// KERNEL:         func.return
// KERNEL-LABEL: func.func @two_readers
// KERNEL-COUNT-2: kernel.cube
// KERNEL-NOT:     fmap_window
// KERNEL:         func.return

builtin.module {
  func.func @chain(%x: tensor<1x16x16x8xf32>) -> tensor<1x16x16x16xf32> {
    %w0 = cann.Const dense<0.01> : tensor<3x3x8x16xf32>
    %b0 = cann.Const dense<0.1> : tensor<16xf32>
    %w1 = cann.Const dense<0.02> : tensor<3x3x16x16xf32>
    %p = cann.Conv2D %x, %w0 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x16x16x8xf32>, tensor<3x3x8x16xf32>) -> tensor<1x16x16x16xf32>
    %pb = cann.BiasAdd %p, %b0 {data_format = "NHWC"} : (tensor<1x16x16x16xf32>, tensor<16xf32>) -> tensor<1x16x16x16xf32>
    %pr = cann.Relu %pb : (tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
    %c = cann.Conv2D %pr, %w1 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x16x16x16xf32>, tensor<3x3x16x16xf32>) -> tensor<1x16x16x16xf32>
    func.return %c : tensor<1x16x16x16xf32>
  }
  func.func @two_readers(%x: tensor<1x16x16x8xf32>) -> (tensor<1x16x16x16xf32>, tensor<1x16x16x16xf32>) {
    %w0 = cann.Const dense<0.01> : tensor<3x3x8x16xf32>
    %w1 = cann.Const dense<0.02> : tensor<3x3x16x16xf32>
    %p = cann.Conv2D %x, %w0 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x16x16x8xf32>, tensor<3x3x8x16xf32>) -> tensor<1x16x16x16xf32>
    %pr = cann.Relu %p : (tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
    %c = cann.Conv2D %pr, %w1 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x16x16x16xf32>, tensor<3x3x16x16xf32>) -> tensor<1x16x16x16xf32>
    func.return %c, %pr : tensor<1x16x16x16xf32>, tensor<1x16x16x16xf32>
  }
}
