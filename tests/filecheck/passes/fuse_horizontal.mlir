// Horizontal fusion (compiler/transforms/fusion/horizontal.py, switch HorizontalConvFusion): the
// three 1x1 convs that open an inception block read the same x, so they become ONE FusedConv2D
// with the filters and biases concatenated along Cout and a SplitVD of its output.  The 12-channel
// piece is read only by a conv, so it is padded to C0 = 16 with zero filter columns and that conv
// gets zero input rows (3x3x16x8); the 8-channel piece, read by a max pool, cannot be padded and
// goes last.  Every piece is then whole C0 blocks of the NC1HWC0 output, so plan-memory makes
// each of the split's kernels a view of the wide conv's output (mem.elided: no launch): 3 conv
// launches become 1 (6 launches -> 4 with the readers; the input's TransData folds into the
// wide conv's loads, the output TransData of the max pool and of the two convs into their stores).
// Without it, 5 launches: the five convs and the pool, b2a computed in b2b's window
// (compiler/transforms/fusion/conv_stage.py).
// RUN: cann-opt --fuse='report=-' %s 2>%t.report | filecheck %s
// RUN: filecheck %s --check-prefix=REPORT < %t.report
// RUN: cann-opt --fuse='disable=HorizontalConvFusion' %s | filecheck %s --check-prefix=OFF
// RUN: cann-opt -p fuse,assign-layouts,cann-to-kernel,plan-memory %s | filecheck %s --check-prefix=PLAN
// RUN: cann-opt -p fuse,assign-layouts,cann-to-kernel,plan-memory %s | cann-opt --perf-report 2>&1 | filecheck %s --check-prefix=PERF
// RUN: cann-opt -p 'fuse{disable=HorizontalConvFusion},assign-layouts,cann-to-kernel,plan-memory' %s | cann-opt --perf-report 2>&1 | filecheck %s --check-prefix=PERF-OFF

// CHECK-LABEL: func.func @main(
// CHECK: %[[W:[0-9]+]] = cann.Const dense<{{.*}}> : tensor<1x1x4x40xf32>
// CHECK: %[[B:[0-9]+]] = cann.Const dense<{{.*}}> : tensor<40xf32>
// CHECK: %[[Y:[0-9]+]] = cann.FusedConv2D %x, %[[W]], %[[B]] {{{.*}}activation = "Relu"} : (tensor<1x8x8x4xf32>, tensor<1x1x4x40xf32>, tensor<40xf32>) -> tensor<1x8x8x40xf32>
// CHECK: %[[P:[0-9]+]], %[[Q:[0-9]+]], %[[R:[0-9]+]] = cann.SplitVD %[[Y]] {size_splits = array<i64: 16, 16, 8>, split_dim = 3 : i64, num_split = 3 : i64} : (tensor<1x8x8x40xf32>) -> (tensor<1x8x8x16xf32>, tensor<1x8x8x16xf32>, tensor<1x8x8x8xf32>)
// CHECK-DAG: cann.FusedConv2D %[[P]], %wa, %ba
// CHECK-DAG: %[[W2:[0-9]+]] = cann.Const dense<{{.*}}> : tensor<3x3x16x8xf32>
// CHECK-DAG: cann.FusedConv2D %[[Q]], %[[W2]], %b2b
// CHECK-DAG: cann.MaxPool %[[R]]
// CHECK-NOT: cann.FusedConv2D %x

// REPORT: horizontal fusion: 1 groups of sibling cube ops merged (one wide conv or matmul + SplitVD)
// REPORT-NEXT: on an argument: FusedConv2D 'b1', FusedConv2D 'b2a', FusedConv2D 'b3a' -> pieces [16, 16, 8]; zero input rows added to FusedConv2D 'b2b'

// OFF-COUNT-5: cann.FusedConv2D
// OFF-NOT: cann.SplitVD

// PLAN-COUNT-3: mem.elided, kind = "SplitVD"
// PLAN-NOT: kind = "SplitVD"

// PERF: model: 4 kernel launches
// PERF-OFF: model: 5 kernel launches
func.func @main(%x: tensor<1x8x8x4xf32>) -> (tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>, tensor<1x4x4x8xf32>) {
  %w1 = cann.Const dense<0.125> : tensor<1x1x4x16xf32>
  %w2 = cann.Const dense<-0.25> : tensor<1x1x4x12xf32>
  %w3 = cann.Const dense<0.5> : tensor<1x1x4x8xf32>
  %b1 = cann.Const dense<0.1> : tensor<16xf32>
  %b2 = cann.Const dense<0.2> : tensor<12xf32>
  %wa = cann.Const dense<0.05> : tensor<1x1x16x8xf32>
  %ba = cann.Const dense<0.6> : tensor<8xf32>
  %wb = cann.Const dense<0.3> : tensor<3x3x12x8xf32>
  %b2b = cann.Const dense<0.4> : tensor<8xf32>
  %0 = cann.FusedConv2D %x, %w1, %b1 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "Relu"} : (tensor<1x8x8x4xf32>, tensor<1x1x4x16xf32>, tensor<16xf32>) -> tensor<1x8x8x16xf32> loc("b1")
  %1 = cann.FusedConv2D %x, %w2, %b2 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "Relu"} : (tensor<1x8x8x4xf32>, tensor<1x1x4x12xf32>, tensor<12xf32>) -> tensor<1x8x8x12xf32> loc("b2a")
  %2 = cann.FusedConv2D %x, %w3 {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "Relu"} : (tensor<1x8x8x4xf32>, tensor<1x1x4x8xf32>) -> tensor<1x8x8x8xf32> loc("b3a")
  %3 = cann.FusedConv2D %0, %wa, %ba {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "none"} : (tensor<1x8x8x16xf32>, tensor<1x1x16x8xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32> loc("b1b")
  %4 = cann.FusedConv2D %1, %wb, %b2b {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "Relu"} : (tensor<1x8x8x12xf32>, tensor<3x3x12x8xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32> loc("b2b")
  %5 = cann.MaxPool %2 {ksize = array<i64: 1, 2, 2, 1>, strides = array<i64: 1, 2, 2, 1>, padding = "VALID", data_format = "NHWC"} : (tensor<1x8x8x8xf32>) -> tensor<1x4x4x8xf32> loc("pool")
  func.return %3, %4, %5 : tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>, tensor<1x4x4x8xf32>
}
