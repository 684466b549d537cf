// RUN: cann-opt --assign-layouts --cann-to-kernel %s | filecheck %s
// RUN: cann-opt --assign-layouts --cann-to-kernel %s | cann-opt --print-op-generic | cann-opt | filecheck %s

// GatherV2D: per tile of result rows, the indices (broadcast over the rows before the axis) go
// to UB, then one row of x per index (kernel.gather), stored as rows.
// CHECK-LABEL: func.func @gather
// CHECK: kernel.vec_kernel %x, %i {kind = "GatherV2D", block_dim = 1 : i64, tiling = #kernel.tiling<totalElems = 12, elemsPerCore = 12, tileElems = 12, tilesPerCore = 1, axisLen = 50, innerElems = 5>
// CHECK: %[[IDS:.*]] = kernel.load %{{.*}}[%[[T:.*]]] {view = "flat", params = {shape = array<i64: 4, 3>}} : memref<3xi32, #kernel.space<GM>> -> memref<12xi32, #kernel.space<UB>>
// CHECK-NEXT: %[[ROWS:.*]] = kernel.gather %{{.*}}[%[[T]]], %[[IDS]] {params = {axis_len = 50 : i64, num_ids = 3 : i64, inner = 5 : i64}} : memref<4x50x5xf32, #kernel.space<GM>>, memref<12xi32, #kernel.space<UB>> -> memref<12x5xf32, #kernel.space<UB>>
// CHECK-NEXT: kernel.store %[[ROWS]], %{{.*}}[%[[T]]] {view = "rows", params = {}}
func.func @gather(%x: tensor<4x50x5xf32>, %i: tensor<3xi32>) -> tensor<4x3x5xf32> {
  %y = cann.GatherV2D %x, %i {axis = 1 : i64} : (tensor<4x50x5xf32>, tensor<3xi32>) -> tensor<4x3x5xf32>
  func.return %y : tensor<4x3x5xf32>
}

// Comparisons and logic: general elementwise kernels, operands in their own type, i1 result.
// CHECK-LABEL: func.func @compare
// CHECK: kernel.vec_kernel %a, %b {kind = "Elementwise"
// CHECK: kernel.vec %{{.*}}, %{{.*}} {fn = "GreaterEqual", attrs = {}} : (memref<{{[0-9]+}}xi32, #kernel.space<UB>>, memref<{{[0-9]+}}xi32, #kernel.space<UB>>) -> memref<{{[0-9]+}}xi1, #kernel.space<UB>>
// CHECK: kernel.vec %{{.*}} {fn = "LogicalNot", attrs = {}}
func.func @compare(%a: tensor<3x37xi32>, %b: tensor<37xi32>) -> tensor<3x37xi1> {
  %c = cann.GreaterEqual %a, %b : (tensor<3x37xi32>, tensor<37xi32>) -> tensor<3x37xi1>
  %n = cann.LogicalNot %c : (tensor<3x37xi1>) -> tensor<3x37xi1>
  func.return %n : tensor<3x37xi1>
}

// ResizeBilinearV2 after a conv runs on its NC1HWC0 output (per (n, c1) plane, C0 lanes): four
// corner loads, two weight loads, three lerps; no TransData remains (the input's folds into the
// conv's loads, FoldInputTransData; the output one into the resize's rows store: view
// to_origin, an NHWC result).
// CHECK-LABEL: func.func @resize
// CHECK-NOT: kernel.transdata
// CHECK: kernel.cube %x,
// CHECK: kernel.vec_kernel %{{.*}} {kind = "ResizeBilinearV2", block_dim = 2 : i64, tiling = #kernel.tiling<totalElems = 104, elemsPerCore = 52, {{.*}}} : (tensor<1x2x6x9x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 6, 9, 19]>>) -> tensor<1x13x4x19xf32> {
// CHECK-COUNT-4: kernel.load {{.*}} {view = "resize_rows", params = {corner = {{[0-3]}} : i64, out_hw = array<i64: 13, 4>, align_corners = 0 : i64, half_pixel_centers = 1 : i64}} : memref<1x2x6x9x16xf32, #kernel.space<GM>> -> memref<52x16xf32, #kernel.space<UB>>
// CHECK-COUNT-2: kernel.load {{.*}} {view = "resize_weights", params = {axis = {{[01]}} : i64, {{.*}}} : {{.*}} -> memref<52x1xf32, #kernel.space<UB>>
// CHECK-COUNT-3: kernel.vec {{.*}} {fn = "Sub"
// CHECK: kernel.store {{.*}} {view = "to_origin", params = {src_shape = array<i64: 1, 2, 13, 4, 16>}, src_view = "rows", src_format = "NC1HWC0", dst_format = "NHWC"} : memref<52x16xf32, #kernel.space<UB>>, memref<1x13x4x19xf32, #kernel.space<GM>>
// CHECK-NOT: kernel.transdata
// CHECK: func.return
func.func @resize(%x: tensor<1x6x9x3xf32>) -> tensor<1x13x4x19xf32> {
  %w = cann.Const dense<0.5> : tensor<1x1x3x19xf32>
  %c = cann.Conv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x6x9x3xf32>, tensor<1x1x3x19xf32>) -> tensor<1x6x9x19xf32>
  %s = cann.Const dense<[13, 4]> : tensor<2xi32>
  %y = cann.ResizeBilinearV2 %c, %s {align_corners = 0 : i64, half_pixel_centers = 1 : i64} : (tensor<1x6x9x19xf32>, tensor<2xi32>) -> tensor<1x13x4x19xf32>
  func.return %y : tensor<1x13x4x19xf32>
}

// ResizeNearestNeighborV2 on NHWC: one load of the nearest source pixels per tile.
// CHECK-LABEL: func.func @nearest
// CHECK: kernel.vec_kernel %x {kind = "ResizeNearestNeighborV2"
// CHECK: kernel.load {{.*}} {view = "resize_rows", params = {corner = -1 : i64, out_hw = array<i64: 3, 8>, align_corners = 1 : i64, half_pixel_centers = 0 : i64}} : memref<2x5x4x7xi8, #kernel.space<GM>> -> memref<48x7xi8, #kernel.space<UB>>
func.func @nearest(%x: tensor<2x5x4x7xi8>) -> tensor<2x3x8x7xi8> {
  %s = cann.Const dense<[3, 8]> : tensor<2xi32>
  %y = cann.ResizeNearestNeighborV2 %x, %s {align_corners = 1 : i64, half_pixel_centers = 0 : i64} : (tensor<2x5x4x7xi8>, tensor<2xi32>) -> tensor<2x3x8x7xi8>
  func.return %y : tensor<2x3x8x7xi8>
}

// SplitVD: one slice kernel per part; an empty part is an empty constant.
// CHECK-LABEL: func.func @split
// CHECK: kernel.vec_kernel %x {kind = "SplitVD"
// CHECK: kernel.load {{.*}} {view = "slice_flat", params = {start = array<i64: 0, 0>, step = array<i64: 1, 1>, count = array<i64: 4, 2>}}
// CHECK: cann.Const dense<> : tensor<4x0xf32>
// CHECK: kernel.vec_kernel %x {kind = "SplitVD"
// CHECK: kernel.load {{.*}} {view = "slice_flat", params = {start = array<i64: 0, 2>, step = array<i64: 1, 1>, count = array<i64: 4, 7>}}
func.func @split(%x: tensor<4x9xf32>) -> (tensor<4x2xf32>, tensor<4x0xf32>, tensor<4x7xf32>) {
  %y:3 = cann.SplitVD %x {size_splits = array<i64: 2, 0, 7>, split_dim = -1 : i64, num_split = 3 : i64} : (tensor<4x9xf32>) -> (tensor<4x2xf32>, tensor<4x0xf32>, tensor<4x7xf32>)
  func.return %y#0, %y#1, %y#2 : tensor<4x2xf32>, tensor<4x0xf32>, tensor<4x7xf32>
}

// PadV2D (a value) and MirrorPad: rows of the padded result through `padded_rows`.
// CHECK-LABEL: func.func @pads
// CHECK: kernel.vec_kernel %x {kind = "PadV2D"
// CHECK: {view = "padded_rows", params = {mode = 0 : i64, value = -1.500000e+00 : f64, pads = array<i64: 1, 2, 0, 1>, shape = array<i64: 6, 38>}}
// CHECK: kernel.vec_kernel %x {kind = "MirrorPad"
// CHECK: {view = "padded_rows", params = {mode = 2 : i64, pads = array<i64: 1, 2, 0, 1>, shape = array<i64: 6, 38>}}
func.func @pads(%x: tensor<3x37xf32>) -> (tensor<6x38xf32>, tensor<6x38xf32>) {
  %a = cann.PadV2D %x {paddings = array<i64: 1, 2, 0, 1>, constant_values = -1.5 : f32} : (tensor<3x37xf32>) -> tensor<6x38xf32>
  %b = cann.MirrorPad %x {paddings = array<i64: 1, 2, 0, 1>, mode = "SYMMETRIC"} : (tensor<3x37xf32>) -> tensor<6x38xf32>
  func.return %a, %b : tensor<6x38xf32>, tensor<6x38xf32>
}

// ReduceProdD over a middle axis: rows x L x inner = 3 x 5 x 7, accumulated with Mul from 1.
// CHECK-LABEL: func.func @prod
// CHECK: kernel.vec_kernel %x {kind = "ReduceProdD"
// CHECK: kernel.vec {fn = "Fill", attrs = {fill = 3 : i64}} : () -> memref<3x7xf32, #kernel.space<UB>>
// CHECK: kernel.load {{.*}} {view = "chunk_rows", params = {rows = 3 : i64, length = 5 : i64, inner = 7 : i64, fill = 3 : i64}}
// CHECK: kernel.vec {{.*}} {fn = "RowProd"
// CHECK: kernel.accumulate {{.*}} {fn = "Mul"}
func.func @prod(%x: tensor<3x5x7xf32>) -> tensor<3x7xf32> {
  %y = cann.ReduceProdD %x {axes = array<i64: 1>, keep_dims = false} : (tensor<3x5x7xf32>) -> tensor<3x7xf32>
  func.return %y : tensor<3x7xf32>
}
