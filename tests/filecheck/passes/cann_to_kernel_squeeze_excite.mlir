// RUN: cann-opt --assign-layouts --cann-to-kernel %s | filecheck %s
// RUN: cann-opt --assign-layouts --cann-to-kernel %s | cann-opt | filecheck %s

// The squeeze-excite kernels (compiler/conversions/cann_to_kernel/squeeze_excite.py, cube.py's Conv2DScaled).
// The gate: one vector kernel.  With 2 batches on 40 vector cores, each batch's 3 channel blocks
// go to 3 cores, in two phases with an all-core barrier between: core (n, s) adds up its
// block's H*W chunks in UB, times the w1 block (filter_t), reduced to its partial hidden sums,
// stored as row s of the GM workspace [2, 3, 10] (the kernel's extra result); after
// kernel.sync_all, core (n, s) adds the 3 rows, / H*W, + b1, act1, then w2 times hidden for its
// own 16 output channels, + b2, act2, stored into the NC1HWC0 gate.
// CHECK-LABEL: func.func @se
// CHECK:         %[[X5:.*]] = kernel.transdata %x {src_format = "NHWC", dst_format = "NC1HWC0"
// CHECK:         %[[G:.*]], %[[WS:.*]] = kernel.vec_kernel %[[X5]], %w1, %b1, %w2, %b2 {kind = "SqueezeExcite", block_dim = 6 : i64, tiling = #kernel.tiling<batch = 2, batchPerCore = 1, channels = 40, hidden = 10, channelBlocks = 3, splits = 3, blocksPerSplit = 1, reduceLen = 49, c1Tile = 1, chunkLen = 49, cTile = 16, {{.*}}} : ({{.*}}) -> (tensor<2x3x1x1x16xf32, #cann.format<NC1HWC0, origin NHWC [2, 1, 1, 40]>>, tensor<2x3x10xf32>)
// CHECK-NEXT:    ^bb0({{.*}}, %[[GATE:.*]]: memref<2x3x1x1x16xf32, #kernel.space<GM>>, %[[W:.*]]: memref<2x3x10xf32, #kernel.space<GM>>):
// CHECK-NEXT:      kernel.cores attributes {grid = array<i64: 2, 3>, tile = array<i64: 1, 1>}
// CHECK-NEXT:      ^bb0(%[[N:.*]]: index, %[[S:.*]]: index):
// CHECK-NEXT:        %[[C:.*]] = kernel.mul_index %[[S]] {by = 16 : i64}
// CHECK:             %[[H0:.*]] = kernel.vec {fn = "Fill", attrs = {fill = 0 : i64}} : () -> memref<1x10xf32, #kernel.space<UB>>
// CHECK-NEXT:        kernel.for %[[C]] attributes {extent = 16 : i64, step = 16 : i64, limit = 48 : i64}
// CHECK:                 %[[P:.*]] = kernel.load {{.*}} {view = "hw_chunks", params = {}} : memref<2x3x7x7x16xf32, #kernel.space<GM>> -> memref<1x49x16xf32, #kernel.space<UB>>
// CHECK-NEXT:            kernel.accumulate %[[XS:.*]], %[[P]] {fn = "Add"}
// CHECK:               %[[ACC:.*]] = kernel.vec %[[XS]] {fn = "RowSum", attrs = {}} : (memref<1x49x16xf32, #kernel.space<UB>>) -> memref<1x16xf32, #kernel.space<UB>>
// CHECK:               %[[W1:.*]] = kernel.load {{.*}} {view = "filter_t", params = {}} : memref<1x1x40x10xf32, #kernel.space<GM>> -> memref<10x1x16xf32, #kernel.space<UB>>
// CHECK-NEXT:          %[[M:.*]] = kernel.vec %[[W1]], %[[ACC]] {fn = "Mul", attrs = {}}
// CHECK-NEXT:          %[[R:.*]] = kernel.vec %[[M]] {fn = "ReduceSum", attrs = {axes = array<i64: 1, 2>}} : (memref<10x1x16xf32, #kernel.space<UB>>) -> memref<1x10xf32, #kernel.space<UB>>
// CHECK-NEXT:          kernel.accumulate %[[H0]], %[[R]] {fn = "Add"}
// CHECK:             kernel.store %[[H0]], %[[W]][%[[N]], %[[S]], %{{.*}}] {view = "nd", params = {rows = 3 : i64, cols = 10 : i64, batch = array<i64: 2>}}
// CHECK:           kernel.sync_all
// CHECK-NEXT:      kernel.cores attributes {grid = array<i64: 2, 3>, tile = array<i64: 1, 1>}
// CHECK-NEXT:      ^bb0(%[[N2:.*]]: index, %[[S2:.*]]: index):
// CHECK:             %[[ROWS:.*]] = kernel.load %[[W]][%[[N2]], {{.*}}] {view = "nd", {{.*}} -> memref<3x10xf32, #kernel.space<UB>>
// CHECK-NEXT:        %[[HID:.*]] = kernel.vec %[[ROWS]] {fn = "ReduceSum", attrs = {axes = array<i64: 0>}} : (memref<3x10xf32, #kernel.space<UB>>) -> memref<10xf32, #kernel.space<UB>>
// CHECK-NEXT:        %[[CO:.*]] = kernel.mul_index %[[S2]] {by = 16 : i64}
// CHECK:             kernel.vec %[[HID]] {fn = "Muls", attrs = {value = 0.0204081628 : f32}}
// CHECK:             kernel.vec {{.*}} {fn = "act:Swish", attrs = {}}
// CHECK-NEXT:        kernel.for %[[CO]] attributes {extent = 16 : i64, step = 16 : i64, limit = 40 : i64}
// CHECK:               kernel.load {{.*}} {view = "filter_t", params = {}} : memref<1x1x10x40xf32, #kernel.space<GM>> -> memref<16x10xf32, #kernel.space<UB>>
// CHECK:               kernel.vec {{.*}} {fn = "ReduceSum", attrs = {axes = array<i64: 1>}} : (memref<16x10xf32, #kernel.space<UB>>) -> memref<1x16xf32, #kernel.space<UB>>
// CHECK:               kernel.vec {{.*}} {fn = "act:Sigmoid", attrs = {}}
// CHECK-NEXT:          kernel.store {{.*}}, %[[GATE]][%{{.*}}, %[[N2]], %{{.*}}] {view = "nc1hwc0", params = {out_hw = array<i64: 1, 1>, M = 2 : i64, N = 40 : i64, offset = 0 : i64, cout = 40 : i64}}
// The scaled projection conv: the A (img2col) tile goes GM -> UB, is multiplied by the gate
// broadcast to the tile (img2col_scale), moves UB -> L1, then the usual Zz / mmad / epilogue.
// CHECK:         kernel.cube {{.*}}, %[[G]], {{.*}} {kind = "Conv2DScaled", {{.*}}#kernel.buffer<UB, 2048, "A0">, #kernel.buffer<UB, 2048, "A1">]}
// CHECK:                 %[[A:.*]] = kernel.load {{.*}} {view = "img2col", {{.*}} -> memref<16x32xf32, #kernel.space<UB>>
// CHECK-NEXT:            %[[SC:.*]] = kernel.load {{.*}} {view = "img2col_scale", {{.*}} : memref<2x3x1x1x16xf32, #kernel.space<GM>> -> memref<16x32xf32, #kernel.space<UB>>
// CHECK-NEXT:            %[[AS:.*]] = kernel.vec %[[A]], %[[SC]] {fn = "Mul", attrs = {}}
// CHECK-NEXT:            %[[A1:.*]] = kernel.load %[[AS]][] {view = "copy", params = {}} : memref<16x32xf32, #kernel.space<UB>> -> memref<16x32xf32, #kernel.space<L1>>
// CHECK-NEXT:            kernel.load %[[A1]][] {view = "Zz", params = {}}
// CHECK:                 kernel.mmad
// CHECK:               kernel.fixpipe
// CHECK:               kernel.load {{.*}} {view = "nc1hwc0"
// CHECK:               kernel.store
func.func @se(%x: tensor<2x7x7x40xf32>, %w1: tensor<1x1x40x10xf32>, %b1: tensor<10xf32>, %w2: tensor<1x1x10x40xf32>, %b2: tensor<40xf32>, %wp: tensor<1x1x40x24xf32>, %bp: tensor<24xf32>, %r: tensor<2x7x7x24xf32>) -> tensor<2x7x7x24xf32> {
  %g = cann.FusedSqueezeExcite %x, %w1, %b1, %w2, %b2 {act1 = "Swish", act2 = "Sigmoid"} : (tensor<2x7x7x40xf32>, tensor<1x1x40x10xf32>, tensor<10xf32>, tensor<1x1x10x40xf32>, tensor<40xf32>) -> tensor<2x1x1x40xf32> loc("se/gate")
  %y = cann.FusedConv2DScaled %x, %wp, %bp, %g, %r {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "none", post_activation = "none"} : (tensor<2x7x7x40xf32>, tensor<1x1x40x24xf32>, tensor<24xf32>, tensor<2x1x1x40xf32>, tensor<2x7x7x24xf32>) -> tensor<2x7x7x24xf32> loc("se/project")
  func.return %y : tensor<2x7x7x24xf32>
}

// 24 batches fill more than half of the 40 vector cores: one batch per core, one phase, no
// workspace: per block of channel blocks the H*W sum times w1, then per block of output channels.
// CHECK-LABEL: func.func @se_batches
// CHECK:         kernel.vec_kernel {{.*}} {kind = "SqueezeExcite", block_dim = 24 : i64, tiling = #kernel.tiling<batch = 24, batchPerCore = 1, channels = 40, hidden = 10, channelBlocks = 3, splits = 1, {{.*}}} : ({{.*}}) -> tensor<24x1x1x40xf32> {
// CHECK:           kernel.cores attributes {grid = array<i64: 24>, tile = array<i64: 1>}
// CHECK:             kernel.vec {fn = "Fill", attrs = {fill = 0 : i64}} : () -> memref<10xf32, #kernel.space<UB>>
// CHECK:               kernel.load {{.*}} {view = "hw_chunks", params = {}} : memref<24x3x7x7x16xf32, #kernel.space<GM>> -> memref<3x49x16xf32, #kernel.space<UB>>
// CHECK:               kernel.vec {{.*}} {fn = "ReduceSum", attrs = {axes = array<i64: 1, 2>}} : (memref<10x3x16xf32, #kernel.space<UB>>) -> memref<10xf32, #kernel.space<UB>>
// CHECK-NOT:       kernel.sync_all
// CHECK:             kernel.vec {{.*}} {fn = "act:Swish", attrs = {}}
// CHECK:               kernel.store {{.*}} {view = "{{.*}}M = 24 : i64, N = 40 : i64
func.func @se_batches(%x: tensor<24x7x7x40xf32>, %w1: tensor<1x1x40x10xf32>, %b1: tensor<10xf32>, %w2: tensor<1x1x10x40xf32>, %b2: tensor<40xf32>) -> tensor<24x1x1x40xf32> {
  %g = cann.FusedSqueezeExcite %x, %w1, %b1, %w2, %b2 {act1 = "Swish", act2 = "Sigmoid"} : (tensor<24x7x7x40xf32>, tensor<1x1x40x10xf32>, tensor<10xf32>, tensor<1x1x10x40xf32>, tensor<40xf32>) -> tensor<24x1x1x40xf32> loc("se/gate")
  func.return %g : tensor<24x1x1x40xf32>
}
