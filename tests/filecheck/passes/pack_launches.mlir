// RUN: cann-opt --assign-layouts --pack-launches --cann-to-kernel %s | filecheck %s
// RUN: cann-opt --assign-layouts --pack-launches --cann-to-kernel --plan-memory %s | cann-opt --print-op-generic | cann-opt | filecheck %s --check-prefix=PLAN
// RUN: cann-opt --assign-layouts --pack-launches=enabled=false --cann-to-kernel %s | filecheck %s --check-prefix=OFF

// pack-launches (compiler/transforms/launch_packing.py): two convs that read one input and do
// not read each other are independent; each alone uses 16 of the 910B3's 20 cube cores and
// computes in well under the 3 us a launch costs, so one launch with each conv tiled for its
// share of the cores is cheaper.  Both kernels carry one `kernel.pack` id: one launch.
// Each is tiled for 10 of the 20 cube cores.
// CHECK: kernel.cube %{{[0-9x]+}}, %{{[0-9]+}} {kernel.pack = 0 : i64, kind = "Conv2D", block_dim = 10 : i64
// CHECK: kernel.cube %{{[0-9x]+}}, %{{[0-9]+}} {kernel.pack = 0 : i64, kind = "Conv2D", block_dim = 10 : i64
// The third conv reads the first: it is not independent of it and launches alone.
// CHECK: kernel.cube %{{[0-9x]+}}, %{{[0-9]+}} {kind = "Conv2D", block_dim = 18 : i64
// CHECK-NOT: kernel.pack
// CHECK: func.return

// The memory plan keeps both members' buffers apart (one time slot); the IR round-trips.
// PLAN: mem.plan
// PLAN: kernel.pack = 0 : i64
// PLAN: kernel.pack = 0 : i64

// OFF-NOT: kernel.pack
func.func @main(%x: tensor<1x16x16x32xf32>) -> (tensor<1x14x14x32xf32>, tensor<1x12x12x32xf32>) {
  %w = cann.Const dense<0.125> : tensor<3x3x32x32xf32>
  %w1 = cann.Const dense<0.5> : tensor<3x3x32x32xf32>
  %w2 = cann.Const dense<0.25> : tensor<3x3x32x32xf32>
  %0 = cann.Conv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x16x16x32xf32>, tensor<3x3x32x32xf32>) -> tensor<1x14x14x32xf32>
  %1 = cann.Conv2D %x, %w1 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x16x16x32xf32>, tensor<3x3x32x32xf32>) -> tensor<1x14x14x32xf32>
  %2 = cann.Conv2D %0, %w2 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x14x14x32xf32>, tensor<3x3x32x32xf32>) -> tensor<1x12x12x32xf32>
  func.return %1, %2 : tensor<1x14x14x32xf32>, tensor<1x12x12x32xf32>
}
