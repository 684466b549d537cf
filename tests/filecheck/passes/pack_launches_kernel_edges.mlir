// RUN: cann-opt --assign-layouts --pack-launches --cann-to-kernel %s | filecheck %s
// RUN: cann-opt --assign-layouts --pack-launches --cann-to-kernel --plan-memory %s | cann-opt --print-op-generic | cann-opt | filecheck %s --check-prefix=PLAN

// pack-launches (compiler/transforms/launch_packing.py) on an Xception-like entry block: the
// main path's conv %a, a stride-2 max pool of it, a 1x1 stride-2 shortcut conv %s of the same
// input, and their residual Add.  The MaxPool's kernel takes the Add in as its epilogue, so it
// reads the shortcut conv's result although no cann path leads from %s to the MaxPool: that
// kernel edge joins the packing graph (the MaxPool's op depends on %s there), and the shortcut
// conv, independent of %a, is packed with it into one launch (one `kernel.pack` id), each
// tiled for its share of the 910B3's 20 cube cores.
// CHECK: kernel.cube %x, %{{[0-9a-z_]+}} {kernel.pack = 0 : i64, kind = "Conv2D", block_dim = 16 : i64
// CHECK: kernel.cube %x, %{{[0-9a-z_]+}} {kernel.pack = 0 : i64, kind = "Conv2D", block_dim = 4 : i64
// The MaxPool + Add kernel reads both members: it launches after them, alone.
// CHECK: kernel.vec_kernel %a_1, %s_1 {kind = "MaxPool"
// CHECK-NOT: kernel.pack
// CHECK: func.return

// The memory plan keeps both members' buffers apart (one time slot); the IR round-trips.
// PLAN: mem.plan
// PLAN: kernel.pack = 0 : i64
// PLAN: kernel.pack = 0 : i64
func.func @main(%x: tensor<1x16x16x32xf32>) -> tensor<1x8x8x32xf32> {
  %w = cann.Const dense<0.125> : tensor<3x3x32x32xf32>
  %w1 = cann.Const dense<0.5> : tensor<1x1x32x32xf32>
  %a = cann.Conv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x16x16x32xf32>, tensor<3x3x32x32xf32>) -> tensor<1x16x16x32xf32>
  %p = cann.MaxPool %a {ksize = array<i64: 1, 3, 3, 1>, strides = array<i64: 1, 2, 2, 1>, padding = "SAME", data_format = "NHWC"} : (tensor<1x16x16x32xf32>) -> tensor<1x8x8x32xf32>
  %s = cann.Conv2D %x, %w1 {strides = array<i64: 1, 2, 2, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x16x16x32xf32>, tensor<1x1x32x32xf32>) -> tensor<1x8x8x32xf32>
  %r = cann.FusedKernel %p, %s : (tensor<1x8x8x32xf32>, tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32> {
  ^bb0(%u: tensor<1x8x8x32xf32>, %v: tensor<1x8x8x32xf32>):
    %t = cann.Add %u, %v : (tensor<1x8x8x32xf32>, tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32>
    cann.Yield %t : tensor<1x8x8x32xf32>
  }
  func.return %r : tensor<1x8x8x32xf32>
}
