// RUN: cann-opt --assign-layouts %s | filecheck %s
// RUN: cann-opt --assign-layouts %s | cann-opt --assign-layouts | filecheck %s
// RUN: cann-opt --assign-layouts --cann-to-kernel='soc-version=Ascend910B3' %s | filecheck %s --check-prefix=KERNEL
// RUN: cann-opt --assign-layouts --cann-to-kernel='soc-version=Ascend910B3' %s | cann-opt | filecheck %s --check-prefix=KERNEL
// RUN: cann-opt --assign-layouts='report=-' %s 2>&1 >/dev/null | filecheck %s --check-prefix=REPORT

// Ops over the channels of NC1HWC0 values (dialects/layouts.py RunsOn, compiler/transforms/
// layout_assignment.py rules "rows", "reduce-hw" over C, "reshape-c"): LayerNorm over C (24
// channels: the last C1 block has 8 padding lanes), the flatten [N, H, W, C] -> [N*H*W, C]
// to a matmul's FRACTAL_NZ and back, and a max over C with keep_dims, all between two convs:
// TransData only at the graph's input and output (and the weights, converted at compile time
// when they are constants).
// CHECK-LABEL: func.func @norm_flatten_reduce
// CHECK:         %[[C:.*]] = cann.Conv2D {{.*}} -> tensor<1x2x6x6x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 6, 6, 24]>>
// CHECK-NEXT:    %[[LN:.*]] = cann.LayerNorm %[[C]], %g, %b {{.*}} : (tensor<1x2x6x6x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 6, 6, 24]>>, tensor<24xf32>, tensor<24xf32>) -> tensor<1x2x6x6x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 6, 6, 24]>>
// CHECK-NEXT:    %[[F:.*]] = cann.Reshape %[[LN]] {shape = array<i64: 36, 24>} : (tensor<1x2x6x6x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 6, 6, 24]>>) -> tensor<2x3x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [36, 24]>>
// CHECK:         %[[M:.*]] = cann.MatMulV2 %[[F]], {{.*}} -> tensor<1x3x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [36, 8]>>
// CHECK-NEXT:    %[[U:.*]] = cann.Reshape %[[M]] {shape = array<i64: 1, 6, 6, 8>} : (tensor<1x3x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [36, 8]>>) -> tensor<1x1x6x6x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 6, 6, 8]>>
// CHECK-NEXT:    %[[R:.*]] = cann.ReduceMaxD %[[U]] {axes = array<i64: 3>, keep_dims = 1 : i64} : (tensor<1x1x6x6x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 6, 6, 8]>>) -> tensor<1x1x6x6x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 6, 6, 1]>>
// CHECK:         %[[Y:.*]] = cann.Conv2D %[[R]], {{.*}} -> tensor<1x1x6x6x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 6, 6, 4]>>
// CHECK-NEXT:    %[[O:.*]] = cann.TransData %[[Y]] {src_format = "NC1HWC0", dst_format = "NHWC", groups = 1 : i64}
// CHECK-NEXT:    func.return %[[O]]
// The row kernels read and write rows (n, h, w) of C lanes (`nc1hwc0_rows`); the flatten is a
// kernel moving rows between that view and NZ's (36 rows: not a multiple of 16, so no view).
// KERNEL-LABEL: func.func @norm_flatten_reduce
// KERNEL:         kernel.vec_kernel {{.*}} {kind = "LayerNorm"
// KERNEL:           kernel.load {{.*}} {view = "nc1hwc0_rows", params = {channels = 24 : i64}} : memref<1x2x6x6x16xf32, #kernel.space<GM>> -> memref<36x24xf32, #kernel.space<UB>>
// KERNEL:           kernel.store {{.*}} {view = "nc1hwc0_rows", params = {channels = 24 : i64}}
// KERNEL:         kernel.vec_kernel {{.*}} {kind = "Reshape"
// KERNEL:           kernel.load {{.*}} {view = "nc1hwc0_rows", params = {channels = 24 : i64}}
// KERNEL:           kernel.store {{.*}} {view = "nz_origin_rows", params = {rows = 36 : i64, cols = 24 : i64}}
// KERNEL:         kernel.cube {{.*}} {kind = "MatMulV2"
// KERNEL:         kernel.vec_kernel {{.*}} {kind = "Reshape"
// KERNEL:           kernel.load {{.*}} {view = "nz_origin_rows", params = {rows = 36 : i64, cols = 8 : i64}}
// KERNEL:           kernel.store {{.*}} {view = "nc1hwc0_rows", params = {channels = 8 : i64}}
// KERNEL:         kernel.vec_kernel {{.*}} {kind = "ReduceMaxD"
// KERNEL:           kernel.vec {{.*}} {fn = "RowMax", attrs = {}} : (memref<36x8xf32, #kernel.space<UB>>) -> memref<36x1xf32, #kernel.space<UB>>
// KERNEL:           kernel.store {{.*}} {view = "nc1hwc0_rows", params = {channels = 1 : i64}}
func.func @norm_flatten_reduce(%x: tensor<1x6x6x3xf32>, %w1: tensor<3x3x3x24xf32>, %g: tensor<24xf32>, %b: tensor<24xf32>, %wm: tensor<24x8xf32>, %w2: tensor<3x3x1x4xf32>) -> tensor<1x6x6x4xf32> {
  %0 = cann.Conv2D %x, %w1 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x6x6x3xf32>, tensor<3x3x3x24xf32>) -> tensor<1x6x6x24xf32>
  %1 = cann.LayerNorm %0, %g, %b {begin_norm_axis = 3 : i64, begin_params_axis = 3 : i64, epsilon = 1.0e-06 : f32} : (tensor<1x6x6x24xf32>, tensor<24xf32>, tensor<24xf32>) -> tensor<1x6x6x24xf32>
  %2 = cann.Reshape %1 {shape = array<i64: 36, 24>} : (tensor<1x6x6x24xf32>) -> tensor<36x24xf32>
  %3 = cann.MatMulV2 %2, %wm {transpose_x1 = false, transpose_x2 = false} : (tensor<36x24xf32>, tensor<24x8xf32>) -> tensor<36x8xf32>
  %4 = cann.Reshape %3 {shape = array<i64: 1, 6, 6, 8>} : (tensor<36x8xf32>) -> tensor<1x6x6x8xf32>
  %5 = cann.ReduceMaxD %4 {axes = array<i64: 3>, keep_dims = 1 : i64} : (tensor<1x6x6x8xf32>) -> tensor<1x6x6x1xf32>
  %6 = cann.Conv2D %5, %w2 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x6x6x1xf32>, tensor<3x3x1x4xf32>) -> tensor<1x6x6x4xf32>
  func.return %6 : tensor<1x6x6x4xf32>
}

// With N = 1 and H*W = 64 (a multiple of 16) NC1HWC0 (1, C1, 8, 8, C0) and FRACTAL_NZ
// (C1, 4, 16, C0) of [64, C] hold the same bytes: the flatten is a kernel.view.  A reshape
// that regroups H and W only ([1, 8, 8, C] -> [1, 4, 16, C]) between two convs is a view too.
// CHECK-LABEL: func.func @views
// CHECK:         %[[C:.*]] = cann.Conv2D {{.*}} -> tensor<1x2x8x8x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 8, 8, 20]>>
// CHECK-NEXT:    %[[H:.*]] = cann.Reshape %[[C]] {{.*}} -> tensor<1x2x4x16x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 4, 16, 20]>>
// CHECK:         cann.Conv2D %[[H]]
// CHECK:         cann.Reshape %[[C]] {{.*}} -> tensor<2x4x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [64, 20]>>
// KERNEL-LABEL: func.func @views
// KERNEL:         kernel.view {{.*}} : (tensor<1x2x8x8x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 8, 8, 20]>>) -> tensor<1x2x4x16x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 4, 16, 20]>>
// KERNEL:         kernel.view {{.*}} : (tensor<1x2x8x8x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 8, 8, 20]>>) -> tensor<2x4x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [64, 20]>>
// KERNEL-NOT:     kind = "Reshape"
func.func @views(%x: tensor<1x8x8x3xf32>, %w1: tensor<1x1x3x20xf32>, %w2: tensor<1x1x20x4xf32>, %wm: tensor<20x8xf32>) -> (tensor<1x4x16x4xf32>, tensor<64x8xf32>) {
  %0 = cann.Conv2D %x, %w1 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x8x8x3xf32>, tensor<1x1x3x20xf32>) -> tensor<1x8x8x20xf32>
  %1 = cann.Reshape %0 {shape = array<i64: 1, 4, 16, 20>} : (tensor<1x8x8x20xf32>) -> tensor<1x4x16x20xf32>
  %2 = cann.Conv2D %1, %w2 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x4x16x20xf32>, tensor<1x1x20x4xf32>) -> tensor<1x4x16x4xf32>
  %3 = cann.Reshape %0 {shape = array<i64: 64, 20>} : (tensor<1x8x8x20xf32>) -> tensor<64x20xf32>
  %4 = cann.MatMulV2 %3, %wm {transpose_x1 = false, transpose_x2 = false} : (tensor<64x20xf32>, tensor<20x8xf32>) -> tensor<64x8xf32>
  func.return %2, %4 : tensor<1x4x16x4xf32>, tensor<64x8xf32>
}

// The reshapes, pads and broadcasts between convs of upsamplings written with unit axes (the
// zero insertion of a stride-2 transposed conv; tf.repeat): the rank-5 and rank-6 values are
// channels-last NC1HWC0 (d0, C1, d1, .., C0) (compiler/target/formats.py channels_last_shape),
// the reshapes that keep d0 and C views, PadD pads the middle axes of the stored array and
// BroadcastToD broadcasts it over the inserted axis (rules pad-hw and broadcast-c).
// CHECK-LABEL: func.func @upsample
// CHECK:         %[[C:.*]] = cann.Conv2D {{.*}} -> tensor<1x2x3x4x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 3, 4, 20]>>
// CHECK-NEXT:    %[[R:.*]] = cann.Reshape %[[C]] {{.*}} -> tensor<1x2x3x1x4x1x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 3, 1, 4, 1, 20]>>
// CHECK-NEXT:    %[[P:.*]] = cann.PadD %[[R]] {{.*}} -> tensor<1x2x3x2x4x2x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 3, 2, 4, 2, 20]>>
// CHECK-NEXT:    %[[S:.*]] = cann.Reshape %[[P]] {{.*}} -> tensor<1x2x6x8x1x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 6, 8, 1, 20]>>
// CHECK-NEXT:    %[[B:.*]] = cann.BroadcastToD %[[S]] {{.*}} -> tensor<1x2x6x8x2x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 6, 8, 2, 20]>>
// CHECK-NEXT:    %[[U:.*]] = cann.Reshape %[[B]] {{.*}} -> tensor<1x2x6x16x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 6, 16, 20]>>
// CHECK:         cann.Conv2D %[[U]]
// KERNEL-LABEL: func.func @upsample
// KERNEL:         kernel.view {{.*}} -> tensor<1x2x3x1x4x1x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 3, 1, 4, 1, 20]>>
// KERNEL:         kernel.vec_kernel {{.*}} {kind = "PadD"
// KERNEL:           kernel.load {{.*}} {view = "pad_rows", params = {pads = array<i64: 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0>, shape = array<i64: 1, 2, 3, 2, 4, 2, 16>}}
// KERNEL:         kernel.view {{.*}} -> tensor<1x2x6x8x1x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 6, 8, 1, 20]>>
// KERNEL:         kernel.vec_kernel {{.*}} {kind = "BroadcastToD"
// KERNEL:         kernel.view {{.*}} -> tensor<1x2x6x16x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 6, 16, 20]>>
// KERNEL:         kernel.cube {{.*}} {kind = "Conv2D"
func.func @upsample(%x: tensor<1x3x4x3xf32>, %w1: tensor<1x1x3x20xf32>, %w2: tensor<1x1x20x4xf32>) -> tensor<1x6x16x4xf32> {
  %0 = cann.Conv2D %x, %w1 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x3x4x3xf32>, tensor<1x1x3x20xf32>) -> tensor<1x3x4x20xf32>
  %1 = cann.Reshape %0 {shape = array<i64: 1, 3, 1, 4, 1, 20>} : (tensor<1x3x4x20xf32>) -> tensor<1x3x1x4x1x20xf32>
  %2 = cann.PadD %1 {paddings = array<i64: 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0>} : (tensor<1x3x1x4x1x20xf32>) -> tensor<1x3x2x4x2x20xf32>
  %3 = cann.Reshape %2 {shape = array<i64: 1, 6, 8, 1, 20>} : (tensor<1x3x2x4x2x20xf32>) -> tensor<1x6x8x1x20xf32>
  %4 = cann.BroadcastToD %3 {shape = array<i64: 1, 6, 8, 2, 20>} : (tensor<1x6x8x1x20xf32>) -> tensor<1x6x8x2x20xf32>
  %5 = cann.Reshape %4 {shape = array<i64: 1, 6, 16, 20>} : (tensor<1x6x8x2x20xf32>) -> tensor<1x6x16x20xf32>
  %6 = cann.Conv2D %5, %w2 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x6x16x20xf32>, tensor<1x1x20x4xf32>) -> tensor<1x6x16x4xf32>
  func.return %6 : tensor<1x6x16x4xf32>
}

// GatherV2D of table rows (axis 0 of a 2-D table, one batch of M = 20 rows) feeding a matmul
// writes FRACTAL_NZ (rule gather-rows; the table and the ids stay ND): each gathered row is
// stored across the K1 column blocks, the padding rows 20..31 as zeros.
// CHECK-LABEL: func.func @embedding
// CHECK:         %[[E:.*]] = cann.GatherV2D %t, %ids {axis = 0 : i64} : (tensor<50x24xf32>, tensor<20xi32>) -> tensor<2x2x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [20, 24]>>
// CHECK-NOT:     cann.TransData %[[E]]
// CHECK:         cann.MatMulV2 %[[E]], {{.*}}
// KERNEL-LABEL: func.func @embedding
// KERNEL:         kernel.vec_kernel {{.*}} {kind = "GatherV2D"
// KERNEL:           kernel.store {{.*}} {view = "nz_origin_rows", params = {rows = 20 : i64, cols = 24 : i64}}
func.func @embedding(%t: tensor<50x24xf32>, %ids: tensor<20xi32>, %w: tensor<24x8xf32>) -> tensor<20x8xf32> {
  %0 = cann.GatherV2D %t, %ids {axis = 0 : i64} : (tensor<50x24xf32>, tensor<20xi32>) -> tensor<20x24xf32>
  %1 = cann.MatMulV2 %0, %w {transpose_x1 = false, transpose_x2 = false} : (tensor<20x24xf32>, tensor<24x8xf32>) -> tensor<20x8xf32>
  func.return %1 : tensor<20x8xf32>
}

// An op that has a FRACTAL_NZ kernel but stays on ND because a neighbour has none: the report
// names that neighbour and its reason (here the Add, between a ConcatV2D whose first input ends
// at row 10, inside a 16-row NZ block, and a matmul).
// REPORT: TransData FRACTAL_NZ -> ND [20, 24] at 'mm': cann.Add 'add' runs on ND: cheaper than converting its other operands (its neighbours on ND: cann.ConcatV2D 'cat' (an input ends inside a FRACTAL_NZ block (columns not a multiple of C0, or rows of 16)))
func.func @blocked(%a: tensor<10x24xf32>, %b: tensor<10x24xf32>, %x: tensor<20x40xf32>, %w: tensor<40x24xf32>) -> tensor<20x24xf32> {
  %0 = cann.ConcatV2D %a, %b {concat_dim = 0 : i64, N = 2 : i64} : (tensor<10x24xf32>, tensor<10x24xf32>) -> tensor<20x24xf32> loc("cat")
  %1 = cann.MatMulV2 %x, %w {transpose_x1 = false, transpose_x2 = false} : (tensor<20x40xf32>, tensor<40x24xf32>) -> tensor<20x24xf32> loc("mm")
  %2 = cann.Add %0, %1 : (tensor<20x24xf32>, tensor<20x24xf32>) -> tensor<20x24xf32> loc("add")
  func.return %2 : tensor<20x24xf32>
}
