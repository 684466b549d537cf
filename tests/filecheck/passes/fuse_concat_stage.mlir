// RUN: cann-opt --fuse %s | filecheck %s
// RUN: cann-opt --fuse --align-concat-slabs --assign-layouts --cann-to-kernel %s | filecheck %s --check-prefix=KERNEL
// RUN: cann-opt --fuse --align-concat-slabs --assign-layouts --cann-to-kernel %s | cann-opt --print-op-generic | cann-opt | filecheck %s --check-prefix=KERNEL

// A conv's fmap load reads its input through a staged pixel resample or concat
// (compiler/transforms/fusion/resample.py, concat_stage.py):
// - a nearest upsample (Reshape, BroadcastToD, Reshape) into a channel concat read only by a
//   conv: both marked prologue; the conv's window of x's rows is one fmap load per source
//   (the upsample's input with upsample = [2, 2], phase -1: each pixel repeated), joined in L1;
//   no BroadcastToD, no ConcatV2D kernel;
// - a bilinear resize into such a concat: its planes of the window are computed in UB, a plane
//   at a time (the two lerp weights once; per plane its four corner windows, loaded as the lerp
//   needs them, 3 Sub / 3 Mul / 3 Add), and moved UB -> L1;
// - a nearest upsample read by a conv directly: one fmap load of its input, no join;
// - a zero insertion (PadD of the unit axes, a Conv2DTranspose's input) read by a conv: its
//   pixel at phase (0, 0) of each 2x2 block;
// - a concat also returned by the function stays a kernel.
// CHECK-LABEL: func.func @nearest
// CHECK:         cann.BroadcastToD {{.*}}prologue
// CHECK:         cann.ConcatV2D {{.*}}prologue
// CHECK-LABEL: func.func @bilinear
// CHECK:         cann.ResizeBilinearV2 {{.*}}prologue
// CHECK:         cann.ConcatV2D {{.*}}prologue
// CHECK-LABEL: func.func @zeros
// CHECK:         cann.PadD {{.*}}prologue
// CHECK-LABEL: func.func @shared
// CHECK-NOT:     prologue
// CHECK:         func.return
// CHECK-LABEL: func.func @nearest_direct
// CHECK:         cann.BroadcastToD {{.*}}prologue

// KERNEL-LABEL: func.func @nearest
// KERNEL-NOT:     kind = "BroadcastToD"
// KERNEL-NOT:     kind = "ConcatV2D"
// KERNEL:         kernel.cube {{.*}}kind = "Conv2D"
// KERNEL:         kernel.cube {{.*}}kind = "Conv2D", {{.*}}fmapRows
// KERNEL:           %[[U:[0-9]+]] = kernel.load %{{[0-9]+}}[%{{[0-9]+}}, %[[M:[0-9]+]]] {view = "fmap", {{.*}}upsample = array<i64: 2, 2>, upsample_phase = array<i64: -1, -1>}} : memref<1x1x4x4x16xf32, #kernel.space<GM>> -> memref<1x[[R:[0-9]+]]x8x16xf32, #kernel.space<L1>>
// KERNEL-NEXT:      %[[S:[0-9]+]] = kernel.load %{{[0-9]+}}[%{{[0-9]+}}, %[[M]]] {view = "fmap", {{.*}}in_hw = array<i64: 8, 8>}} : memref<1x1x8x8x16xf32, #kernel.space<GM>> -> memref<1x[[R]]x8x16xf32, #kernel.space<L1>>
// KERNEL-NEXT:      %[[W:[0-9]+]] = kernel.join %[[U]], %[[S]] : (memref<1x[[R]]x8x16xf32, #kernel.space<L1>>, memref<1x[[R]]x8x16xf32, #kernel.space<L1>>) -> memref<2x[[R]]x8x16xf32, #kernel.space<L1>>
// KERNEL:             kernel.load %[[W]][{{.*}}] {view = "load3d"
// KERNEL-NOT:     kind = "ConcatV2D"
// KERNEL:         func.return

// KERNEL-LABEL: func.func @bilinear
// KERNEL-NOT:     kind = "ResizeBilinearV2"
// KERNEL:         kernel.cube {{.*}}kind = "Conv2D", {{.*}}fmapRows
// KERNEL:           %[[WY:[0-9]+]] = kernel.load {{.*}}view = "fmap_resize_weights", params = {axis = 0 : i64, {{.*}} -> memref<1x[[R:[0-9]+]]x1x1xf32, #kernel.space<UB>>
// KERNEL-NEXT:      %[[WX:[0-9]+]] = kernel.load {{.*}}view = "fmap_resize_weights", params = {axis = 1 : i64, {{.*}} -> memref<1x1x8x1xf32, #kernel.space<UB>>
// KERNEL-NEXT:      %[[TL:[0-9]+]] = kernel.load {{.*}}view = "fmap", {{.*}}resize_corner = 0 : i64, c1_range = array<i64: 0, 1>}} : {{.*}} -> memref<1x[[R]]x8x16xf32, #kernel.space<UB>>
// KERNEL-NEXT:      %[[TR:[0-9]+]] = kernel.load {{.*}}view = "fmap", {{.*}}resize_corner = 1 : i64, c1_range = array<i64: 0, 1>}}
// KERNEL-NEXT:      %[[D0:[0-9]+]] = kernel.vec %[[TR]], %[[TL]] {fn = "Sub"
// KERNEL-NEXT:      %[[M0:[0-9]+]] = kernel.vec %[[D0]], %[[WX]] {fn = "Mul"
// KERNEL-NEXT:      %[[TOP:[0-9]+]] = kernel.vec %[[TL]], %[[M0]] {fn = "Add"
// KERNEL-NEXT:      %[[BL:[0-9]+]] = kernel.load {{.*}}view = "fmap", {{.*}}resize_corner = 2 : i64, c1_range = array<i64: 0, 1>}}
// KERNEL-NEXT:      %[[BR:[0-9]+]] = kernel.load {{.*}}view = "fmap", {{.*}}resize_corner = 3 : i64, c1_range = array<i64: 0, 1>}}
// KERNEL-NEXT:      %[[D1:[0-9]+]] = kernel.vec %[[BR]], %[[BL]] {fn = "Sub"
// KERNEL-NEXT:      %[[M1:[0-9]+]] = kernel.vec %[[D1]], %[[WX]] {fn = "Mul"
// KERNEL-NEXT:      %[[BOT:[0-9]+]] = kernel.vec %[[BL]], %[[M1]] {fn = "Add"
// KERNEL-NEXT:      %[[D2:[0-9]+]] = kernel.vec %[[BOT]], %[[TOP]] {fn = "Sub"
// KERNEL-NEXT:      %[[M2:[0-9]+]] = kernel.vec %[[D2]], %[[WY]] {fn = "Mul"
// KERNEL-NEXT:      %[[Y:[0-9]+]] = kernel.vec %[[TOP]], %[[M2]] {fn = "Add"
// KERNEL-NEXT:      %[[P0:[0-9]+]] = kernel.load %[[Y]][] {view = "copy", {{.*}} -> memref<1x[[R]]x8x16xf32, #kernel.space<L1>>
// KERNEL-NEXT:      kernel.load {{.*}}view = "fmap", {{.*}}resize_corner = 0 : i64, c1_range = array<i64: 1, 1>}}
// KERNEL:           %[[P1:[0-9]+]] = kernel.load %{{[0-9]+}}[] {view = "copy", {{.*}} -> memref<1x[[R]]x8x16xf32, #kernel.space<L1>>
// KERNEL-NEXT:      %[[S:[0-9]+]] = kernel.load {{.*}}view = "fmap", {{.*}} -> memref<1x[[R]]x8x16xf32, #kernel.space<L1>>
// KERNEL-NEXT:      kernel.join %[[P0]], %[[P1]], %[[S]] : {{.*}} -> memref<3x[[R]]x8x16xf32, #kernel.space<L1>>
// KERNEL-NOT:     kind = "ConcatV2D"
// KERNEL:         func.return

// KERNEL-LABEL: func.func @zeros
// KERNEL-NOT:     kind = "PadD"
// KERNEL:         kernel.cube {{.*}}kind = "Conv2D"
// KERNEL:         kernel.cube {{.*}}kind = "Conv2D"
// KERNEL:           kernel.load {{.*}}view = "fmap", {{.*}}upsample = array<i64: 2, 2>, upsample_phase = array<i64: 0, 0>, in_hw = array<i64: 8, 8>}} : memref<1x1x4x4x16xf32, #kernel.space<GM>>
// KERNEL-NOT:     kind = "PadD"
// KERNEL:         func.return

// KERNEL-LABEL: func.func @shared
// KERNEL:         kind = "ConcatV2D"
// KERNEL-NOT:     kernel.join
// KERNEL:         func.return
// KERNEL-LABEL: func.func @nearest_direct
// KERNEL-NOT:     kind = "BroadcastToD"
// KERNEL:         kernel.cube {{.*}}kind = "Conv2D"
// KERNEL:         kernel.cube {{.*}}kind = "Conv2D"
// KERNEL:           kernel.load {{.*}}view = "fmap", {{.*}}upsample = array<i64: 2, 2>, upsample_phase = array<i64: -1, -1>, in_hw = array<i64: 8, 8>}} : memref<1x1x4x4x16xf32, #kernel.space<GM>>
// KERNEL-NOT:       kernel.join
// KERNEL-NOT:     kind = "BroadcastToD"
// KERNEL:         func.return

func.func @nearest(%i: tensor<1x4x4x16xf32>, %s: tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32> {
  %w = cann.Const dense<0.125> : tensor<3x3x32x16xf32>
  %v = cann.Const dense<0.5> : tensor<1x1x16x16xf32>
  %x = cann.Conv2D %i, %v {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x4x4x16xf32>, tensor<1x1x16x16xf32>) -> tensor<1x4x4x16xf32>
  %r = cann.Reshape %x {shape = array<i64: 1, 4, 1, 4, 1, 16>} : (tensor<1x4x4x16xf32>) -> tensor<1x4x1x4x1x16xf32>
  %b = cann.BroadcastToD %r {shape = array<i64: 1, 4, 2, 4, 2, 16>} : (tensor<1x4x1x4x1x16xf32>) -> tensor<1x4x2x4x2x16xf32>
  %u = cann.Reshape %b {shape = array<i64: 1, 8, 8, 16>} : (tensor<1x4x2x4x2x16xf32>) -> tensor<1x8x8x16xf32>
  %c = cann.ConcatV2D %u, %s {concat_dim = 3 : i64, N = 2 : i64} : (tensor<1x8x8x16xf32>, tensor<1x8x8x16xf32>) -> tensor<1x8x8x32xf32>
  %y = cann.Conv2D %c, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x8x8x32xf32>, tensor<3x3x32x16xf32>) -> tensor<1x8x8x16xf32>
  func.return %y : tensor<1x8x8x16xf32>
}
func.func @bilinear(%x: tensor<1x4x4x32xf32>, %s: tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32> {
  %w = cann.Const dense<0.125> : tensor<3x3x48x16xf32>
  %size = cann.Const dense<8> : tensor<2xi32>
  %u = cann.ResizeBilinearV2 %x, %size {align_corners = false, half_pixel_centers = true} : (tensor<1x4x4x32xf32>, tensor<2xi32>) -> tensor<1x8x8x32xf32>
  %c = cann.ConcatV2D %u, %s {concat_dim = 3 : i64, N = 2 : i64} : (tensor<1x8x8x32xf32>, tensor<1x8x8x16xf32>) -> tensor<1x8x8x48xf32>
  %y = cann.Conv2D %c, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x8x8x48xf32>, tensor<3x3x48x16xf32>) -> tensor<1x8x8x16xf32>
  func.return %y : tensor<1x8x8x16xf32>
}
func.func @zeros(%i: tensor<1x4x4x16xf32>) -> tensor<1x8x8x16xf32> {
  %w = cann.Const dense<0.125> : tensor<3x3x16x16xf32>
  %v = cann.Const dense<0.5> : tensor<1x1x16x16xf32>
  %x = cann.Conv2D %i, %v {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x4x4x16xf32>, tensor<1x1x16x16xf32>) -> tensor<1x4x4x16xf32>
  %r = cann.Reshape %x {shape = array<i64: 1, 4, 1, 4, 1, 16>} : (tensor<1x4x4x16xf32>) -> tensor<1x4x1x4x1x16xf32>
  %p = cann.PadD %r {paddings = array<i64: 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0>} : (tensor<1x4x1x4x1x16xf32>) -> tensor<1x4x2x4x2x16xf32>
  %u = cann.Reshape %p {shape = array<i64: 1, 8, 8, 16>} : (tensor<1x4x2x4x2x16xf32>) -> tensor<1x8x8x16xf32>
  %y = cann.Conv2D %u, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x8x8x16xf32>, tensor<3x3x16x16xf32>) -> tensor<1x8x8x16xf32>
  func.return %y : tensor<1x8x8x16xf32>
}
func.func @shared(%a: tensor<1x8x8x16xf32>, %s: tensor<1x8x8x16xf32>) -> (tensor<1x8x8x32xf32>, tensor<1x8x8x16xf32>) {
  %w = cann.Const dense<0.125> : tensor<3x3x32x16xf32>
  %c = cann.ConcatV2D %a, %s {concat_dim = 3 : i64, N = 2 : i64} : (tensor<1x8x8x16xf32>, tensor<1x8x8x16xf32>) -> tensor<1x8x8x32xf32>
  %y = cann.Conv2D %c, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x8x8x32xf32>, tensor<3x3x32x16xf32>) -> tensor<1x8x8x16xf32>
  func.return %c, %y : tensor<1x8x8x32xf32>, tensor<1x8x8x16xf32>
}
func.func @nearest_direct(%i: tensor<1x4x4x16xf32>) -> tensor<1x8x8x16xf32> {
  %w = cann.Const dense<0.125> : tensor<3x3x16x16xf32>
  %v = cann.Const dense<0.5> : tensor<1x1x16x16xf32>
  %x = cann.Conv2D %i, %v {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x4x4x16xf32>, tensor<1x1x16x16xf32>) -> tensor<1x4x4x16xf32>
  %r = cann.Reshape %x {shape = array<i64: 1, 4, 1, 4, 1, 16>} : (tensor<1x4x4x16xf32>) -> tensor<1x4x1x4x1x16xf32>
  %b = cann.BroadcastToD %r {shape = array<i64: 1, 4, 2, 4, 2, 16>} : (tensor<1x4x1x4x1x16xf32>) -> tensor<1x4x2x4x2x16xf32>
  %u = cann.Reshape %b {shape = array<i64: 1, 8, 8, 16>} : (tensor<1x4x2x4x2x16xf32>) -> tensor<1x8x8x16xf32>
  %y = cann.Conv2D %u, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x8x8x16xf32>, tensor<3x3x16x16xf32>) -> tensor<1x8x8x16xf32>
  func.return %y : tensor<1x8x8x16xf32>
}
