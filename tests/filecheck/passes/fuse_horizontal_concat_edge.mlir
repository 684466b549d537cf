// Horizontal fusion + memory plan (compiler/transforms/fusion/horizontal.py _edge_slab,
// compiler/backend/memory_plan.py _in_common_slab): an inception block's b1 1x1 conv is the
// concat's first input, b2a / b3a are read by 3x3 convs.  The wide conv orders b1's piece last,
// so the wide output and the concat's buffer meet on that piece: it is a view of the wide output
// and the concat's first slab at once, and no SplitVD kernel copies it.  The three pieces and
// the concat move no data.
// RUN: cann-opt --fuse %s | filecheck %s
// RUN: cann-opt -p fuse,assign-layouts,cann-to-kernel,plan-memory %s | filecheck %s --check-prefix=PLAN
// RUN: cann-opt -p fuse,assign-layouts,cann-to-kernel,plan-memory %s | cann-opt --print-op-generic | cann-opt | filecheck %s --check-prefix=PLAN

// CHECK: %[[Y:[0-9]+]] = cann.FusedConv2D %x, {{.*}} -> tensor<1x8x8x48xf32>
// CHECK: %[[Q:[0-9]+]], %[[R:[0-9]+]], %[[P:[0-9]+]] = cann.SplitVD %[[Y]] {size_splits = array<i64: 16, 16, 16>
// CHECK: cann.ConcatV2D %[[P]],

// PLAN-COUNT-3: mem.elided, kind = "SplitVD"
// PLAN-NOT: kind = "SplitVD"
// PLAN: mem.elided, kind = "ConcatV2D"
func.func @main(%x: tensor<1x8x8x4xf32>) -> tensor<1x8x8x8xf32> {
  %w1 = cann.Const dense<0.125> : tensor<1x1x4x16xf32>
  %w2 = cann.Const dense<-0.25> : tensor<1x1x4x12xf32>
  %w3 = cann.Const dense<0.5> : tensor<1x1x4x8xf32>
  %wb = cann.Const dense<0.3> : tensor<3x3x12x16xf32>
  %wc = cann.Const dense<0.2> : tensor<3x3x8x16xf32>
  %wo = cann.Const dense<0.1> : tensor<1x1x48x8xf32>
  %0 = cann.FusedConv2D %x, %w1 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "Relu"} : (tensor<1x8x8x4xf32>, tensor<1x1x4x16xf32>) -> tensor<1x8x8x16xf32> loc("b1")
  %1 = cann.FusedConv2D %x, %w2 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "Relu"} : (tensor<1x8x8x4xf32>, tensor<1x1x4x12xf32>) -> tensor<1x8x8x12xf32> loc("b2a")
  %2 = cann.FusedConv2D %x, %w3 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "Relu"} : (tensor<1x8x8x4xf32>, tensor<1x1x4x8xf32>) -> tensor<1x8x8x8xf32> loc("b3a")
  %3 = cann.FusedConv2D %1, %wb {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "Relu"} : (tensor<1x8x8x12xf32>, tensor<3x3x12x16xf32>) -> tensor<1x8x8x16xf32> loc("b2b")
  %4 = cann.FusedConv2D %2, %wc {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "Relu"} : (tensor<1x8x8x8xf32>, tensor<3x3x8x16xf32>) -> tensor<1x8x8x16xf32> loc("b3b")
  %5 = cann.ConcatV2D %0, %3, %4 {concat_dim = 3 : i64, N = 3 : i64} : (tensor<1x8x8x16xf32>, tensor<1x8x8x16xf32>, tensor<1x8x8x16xf32>) -> tensor<1x8x8x48xf32> loc("concat")
  %6 = cann.FusedConv2D %5, %wo {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "none"} : (tensor<1x8x8x48xf32>, tensor<1x1x48x8xf32>) -> tensor<1x8x8x8xf32> loc("out")
  func.return %6 : tensor<1x8x8x8xf32>
}
