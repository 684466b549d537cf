// RUN: cann-opt --assign-layouts --cann-to-kernel %s | filecheck %s
// RUN: cann-opt --assign-layouts --cann-to-kernel %s | cann-opt --print-op-generic | cann-opt | filecheck %s

// Load3D (compiler/target/conv_geometry.py): a conv's A operand may reach L1 as the rows of x
// that an M block of output pixels reads, once, and be expanded to img2col tiles on the
// L1 -> L0A path; the tiling takes it where the cost model finds it cheaper.
// A 3x3 conv reads each x element 9 times as img2col tiles from GM: it takes the window.  Per
// core M = 2*14*14 = 392 pixels over the cores; baseM pixels touch ceil(..) output rows of 14,
// so the window is (rows - 1) * 1 + 3 input rows of 16 pixels (C1 = 2, C0 = 16).
// CHECK: kernel.cube {{.*}}kind = "Conv2D", {{.*}}tiling = #kernel.tiling<{{.*}}M = 392, N = 32, Ka = 288, {{.*}}baseM = [[BM:[0-9]+]], {{.*}}fmapRows = [[ROWS:[0-9]+]], fmapBytes = {{[0-9]+}}>, buffers = [#kernel.buffer<L1, {{[0-9]+}}, "fmap">,
// CHECK: kernel.for {{.*}}step = [[BM]] : i64, limit = 392 : i64
// CHECK-NEXT: ^bb0(%[[M:[0-9]+]]: index):
// (x is the graph input: the window's load converts it NHWC -> NC1HWC0 on the way, view
// from_origin of the fmap view, FoldInputTransData.)
// CHECK-NEXT: %[[WIN:[0-9]+]] = kernel.load %{{[0-9]+}}[%{{[0-9]+}}, %[[M]]] {view = "from_origin", {{.*}}in_hw = array<i64: 16, 16>, dst_shape = array<i64: 2, 2, 16, 16, 16>}, dst_view = "fmap", {{.*}}} : memref<2x16x16x32xf32, #kernel.space<GM>> -> memref<2x[[ROWS]]x16x16xf32, #kernel.space<L1>>
// CHECK-NEXT: kernel.for
// CHECK: kernel.load %[[WIN]][%{{[0-9]+}}, %[[M]], %{{[0-9]+}}] {view = "load3d", {{.*}}#kernel.space<L0A>>
// CHECK-NEXT: kernel.load {{.*}}view = "fz"
// CHECK-NEXT: kernel.load {{.*}}view = "Zn"
// CHECK-NEXT: kernel.mmad
// A 1x1 stride-1 conv with one N block per core: its img2col tiles are x's pixels already, read
// once; the window (whole rows) would move more bytes.  It keeps the A tiles.
// CHECK: kernel.cube {{.*}}kind = "Conv2D", {{.*}}tiling = #kernel.tiling<{{.*}}M = 392, N = 32, Ka = 32, {{.*}}dbL0C = {{[12]}}>, buffers = [#kernel.buffer<L1, {{[0-9]+}}, "A">,
// CHECK-NOT: view = "fmap"
// CHECK: kernel.load {{.*}}view = "img2col"{{.*}}#kernel.space<L1>>
// CHECK-NEXT: kernel.load {{.*}}view = "Zz"{{.*}}#kernel.space<L0A>>
func.func @main(%x: tensor<2x16x16x32xf32>) -> tensor<2x14x14x32xf32> {
  %w = cann.Const dense<0.125> : tensor<3x3x32x32xf32>
  %w1 = cann.Const dense<0.5> : tensor<1x1x32x32xf32>
  %0 = cann.Conv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<2x16x16x32xf32>, tensor<3x3x32x32xf32>) -> tensor<2x14x14x32xf32>
  %1 = cann.Conv2D %0, %w1 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<2x14x14x32xf32>, tensor<1x1x32x32xf32>) -> tensor<2x14x14x32xf32>
  func.return %1 : tensor<2x14x14x32xf32>
}
