// RUN: cann-opt -p algebraic-simplify,remove-noops,dce %s | filecheck %s --check-prefix=SINK
// RUN: cann-opt --assign-layouts %s | filecheck %s --check-prefix=LAYOUT
// RUN: cann-opt -p 'algebraic-simplify,remove-noops,dce,fuse,assign-layouts,cann-to-kernel' %s | filecheck %s --check-prefix=KERNEL
// RUN: cann-opt -p 'algebraic-simplify,remove-noops,dce,fuse,assign-layouts,cann-to-kernel' %s | cann-opt --print-op-generic | cann-opt | filecheck %s --check-prefix=KERNEL

// A 3-D conv on the (N*D) batch views (compiler/conversions/tf_to_cann/conv3d.py): x
// [N*D, H, W, C] and y [N*Do, Ho, Wo, O] are NDC1HWC0's bytes stored as NC1HWC0.

// The view of y back to [N, D, H, W, C] sinks through the bias and the ReLU (a channel vector
// rides along: ReshapeSinksThroughPointwise, _unfolds_depth) and meets the next conv's fold, so
// both fold away: no Reshape remains between the two convs.
// SINK-LABEL: func.func @main
// SINK:         %[[Y:.*]] = cann.Conv3D %x
// SINK-NEXT:    %[[B:.*]] = cann.BiasAdd %[[Y]], %{{.*}} : (tensor<8x6x6x32xf32>, tensor<32xf32>) -> tensor<8x6x6x32xf32>
// SINK-NEXT:    %[[R:.*]] = cann.Relu %[[B]] : (tensor<8x6x6x32xf32>) -> tensor<8x6x6x32xf32>
// SINK-NEXT:    %[[Z:.*]] = cann.Conv3D %[[R]]
// SINK-NEXT:    cann.Reshape %[[Z]] {shape = array<i64: 2, 2, 6, 6, 16>}

// Layouts: x, y NC1HWC0 of the batch views; the DHWCN filter FRACTAL_Z_3D, rows
// kd*C1*kh*kw = 3*2*3*3 = 54 (C = 20: C1 = 2 per depth tap), 2 N1 blocks of 16 (O = 32).
// LAYOUT:       cann.Const {{.*}} -> tensor<54x2x16x16xf32, #cann.format<FRACTAL_Z_3D, origin ND [3, 3, 3, 20, 32]>>
// LAYOUT:       cann.Conv3D {{.*}} : (tensor<8x2x8x8x16xf32, #cann.format<NC1HWC0, origin NHWC [8, 8, 8, 20]>>, tensor<54x2x16x16xf32, #cann.format<FRACTAL_Z_3D, origin ND [3, 3, 3, 20, 32]>>) -> tensor<8x2x6x6x16xf32, #cann.format<NC1HWC0, origin NHWC [8, 6, 6, 32]>>

// One cube kernel per Conv3D: K = kd*C1*kh*kw*C0 = 3*2*9*16 = 864, M = N*Do*Ho*Wo = 8*36; the
// B tiles are FRACTAL_Z_3D rows read as FRACTAL_Z's; the bias and the ReLU run in the epilogue.
// The 3x3x3 conv reads each x element 27 times as img2col tiles: the tiling takes the Load3D
// window (x's rows from the first depth plane and row an M block reads to the last); the 3x1x1
// one (depth stride 2: its taps read each element 1.5 times) keeps the img2col tiles (with the
// depth params), K = 3*2*1*1*16 = 96.
// KERNEL:       kernel.cube {{.*}}kind = "Conv3D", {{.*}}tiling = #kernel.tiling<{{.*}}M = 288, N = 32, Ka = 864, {{.*}}fmapRows =
// (x is the graph input: its window loads convert NHWC -> NC1HWC0 on the way, FoldInputTransData)
// KERNEL:       view = "from_origin", {{.*}}depth = array<i64: 4, 4, 3, 1, 1, 1, 1>{{.*}}dst_view = "fmap"
// KERNEL:       view = "load3d"
// KERNEL:       view = "fz"
// KERNEL:       fn = "Relu"
// KERNEL:       kernel.cube {{.*}}kind = "Conv3D", {{.*}}tiling = #kernel.tiling<{{.*}}M = 144, N = 16, Ka = 96,
// KERNEL-NOT:   fmapRows
// KERNEL:       view = "img2col", {{.*}}depth = array<i64: 4, 2, 3, 2, 1, 1, 1>
// KERNEL-NOT:   kernel.vec_kernel
func.func @main(%x: tensor<8x8x8x20xf32>) -> tensor<2x2x6x6x16xf32> {
  %w = cann.Const dense<0.125> : tensor<3x3x3x20x32xf32>
  %b = cann.Const dense<0.5> : tensor<32xf32>
  %w2 = cann.Const dense<0.25> : tensor<3x1x1x32x16xf32>
  %0 = cann.Conv3D %x, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", depth = array<i64: 4, 4, 3, 1, 1, 1, 1>} : (tensor<8x8x8x20xf32>, tensor<3x3x3x20x32xf32>) -> tensor<8x6x6x32xf32>
  %1 = cann.Reshape %0 {shape = array<i64: 2, 4, 6, 6, 32>} : (tensor<8x6x6x32xf32>) -> tensor<2x4x6x6x32xf32>
  %2 = cann.BiasAdd %1, %b {data_format = "NHWC"} : (tensor<2x4x6x6x32xf32>, tensor<32xf32>) -> tensor<2x4x6x6x32xf32>
  %3 = cann.Relu %2 : (tensor<2x4x6x6x32xf32>) -> tensor<2x4x6x6x32xf32>
  %4 = cann.Reshape %3 {shape = array<i64: 8, 6, 6, 32>} : (tensor<2x4x6x6x32xf32>) -> tensor<8x6x6x32xf32>
  %5 = cann.Conv3D %4, %w2 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", depth = array<i64: 4, 2, 3, 2, 1, 1, 1>} : (tensor<8x6x6x32xf32>, tensor<3x1x1x32x16xf32>) -> tensor<4x6x6x16xf32>
  %6 = cann.Reshape %5 {shape = array<i64: 2, 2, 6, 6, 16>} : (tensor<4x6x6x16xf32>) -> tensor<2x2x6x6x16xf32>
  func.return %6 : tensor<2x2x6x6x16xf32>
}
