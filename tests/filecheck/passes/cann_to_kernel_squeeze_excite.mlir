// RUN: cann-opt --assign-layouts --cann-to-kernel %s | filecheck %s
// RUN: cann-opt --assign-layouts --cann-to-kernel %s | cann-opt | filecheck %s

// The squeeze-excite kernels (compiler/conversions/cann_to_kernel/squeeze_excite.py, cube.py's Conv2DScaled).
// The gate: one vector kernel, one batch per core; H*W chunks added up in UB per channel block,
// times the w1 block (filter_t) reduced to the hidden vector; / H*W, + b1, act1; then per block
// of output channels w2 times hidden, + b2, act2, stored into the NC1HWC0 gate.
// CHECK-LABEL: func.func @se
// CHECK:         %[[X5:.*]] = kernel.transdata %x {src_format = "NHWC", dst_format = "NC1HWC0"
// CHECK:         %[[G:.*]] = kernel.vec_kernel %[[X5]], %w1, %b1, %w2, %b2 {kind = "SqueezeExcite", block_dim = 2 : i64, tiling = #kernel.tiling<batch = 2, batchPerCore = 1, channels = 40, hidden = 10, channelBlocks = 3, reduceLen = 49, c1Tile = 3, chunkLen = 49, cTile = 48, {{.*}}} : ({{.*}}) -> tensor<2x3x1x1x16xf32, #cann.format<NC1HWC0, origin NHWC [2, 1, 1, 40]>>
// CHECK:           kernel.cores attributes {grid = array<i64: 2>, tile = array<i64: 1>}
// CHECK:             %[[H0:.*]] = kernel.vec {fn = "Fill", attrs = {fill = 0 : i64}} : () -> memref<10xf32, #kernel.space<UB>>
// CHECK:               %[[XS:.*]] = kernel.vec {fn = "Fill", attrs = {fill = 0 : i64}} : () -> memref<3x49x16xf32, #kernel.space<UB>>
// CHECK:                 %[[P:.*]] = kernel.load {{.*}} {view = "hw_chunks", params = {}} : memref<2x3x7x7x16xf32, #kernel.space<GM>> -> memref<3x49x16xf32, #kernel.space<UB>>
// CHECK-NEXT:            kernel.accumulate %[[XS]], %[[P]] {fn = "Add"}
// CHECK:               %[[ACC:.*]] = kernel.vec %[[XS]] {fn = "RowSum", attrs = {}} : (memref<3x49x16xf32, #kernel.space<UB>>) -> memref<3x16xf32, #kernel.space<UB>>
// CHECK:               %[[W1:.*]] = kernel.load {{.*}} {view = "filter_t", params = {}} : memref<1x1x40x10xf32, #kernel.space<GM>> -> memref<10x3x16xf32, #kernel.space<UB>>
// CHECK-NEXT:          %[[M:.*]] = kernel.vec %[[W1]], %[[ACC]] {fn = "Mul", attrs = {}}
// CHECK-NEXT:          %[[R:.*]] = kernel.vec %[[M]] {fn = "ReduceSum", attrs = {axes = array<i64: 1, 2>}} : (memref<10x3x16xf32, #kernel.space<UB>>) -> memref<10xf32, #kernel.space<UB>>
// CHECK-NEXT:          kernel.accumulate %[[H0]], %[[R]] {fn = "Add"}
// CHECK:             kernel.vec %[[H0]] {fn = "Muls", attrs = {value = 0.0204081628 : f32}}
// CHECK:             kernel.vec {{.*}} {fn = "act:Swish", attrs = {}}
// CHECK:               kernel.load {{.*}} {view = "filter_t", params = {}} : memref<1x1x10x40xf32, #kernel.space<GM>> -> memref<48x10xf32, #kernel.space<UB>>
// CHECK:               kernel.vec {{.*}} {fn = "ReduceSum", attrs = {axes = array<i64: 1>}} : (memref<48x10xf32, #kernel.space<UB>>) -> memref<1x48xf32, #kernel.space<UB>>
// CHECK:               kernel.vec {{.*}} {fn = "act:Sigmoid", attrs = {}}
// CHECK-NEXT:          kernel.store {{.*}} {view = "nc1hwc0", params = {out_hw = array<i64: 1, 1>, M = 2 : i64, N = 40 : i64, offset = 0 : i64, cout = 40 : i64}}
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
