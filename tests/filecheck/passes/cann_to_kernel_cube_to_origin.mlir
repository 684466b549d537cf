// RUN: cann-opt --assign-layouts --cann-to-kernel %s | filecheck %s
// RUN: cann-opt --assign-layouts --cann-to-kernel %s | cann-opt --print-op-generic | cann-opt | filecheck %s

// A conv at the graph output: its result's TransData NC1HWC0 -> NHWC folds into the cube
// kernel's stores (FoldOriginTransData): they take the to_origin view of the conv's nc1hwc0
// store, and the kernel's result is the NHWC output; the input's TransData folds into the
// kernel's loads (FoldInputTransData, tests/filecheck/passes/cann_to_kernel_fold_input.mlir).
// CHECK-LABEL: func.func @main
// CHECK-NOT:     kernel.transdata
// CHECK:         kernel.cube %x, {{.*}}kind = "Conv2D"{{.*}} -> tensor<1x6x6x21xf32>
// CHECK:         kernel.store {{.*}}view = "to_origin", {{.*}}src_view = "nc1hwc0", src_format = "NC1HWC0", dst_format = "NHWC"}{{.*}}memref<1x6x6x21xf32, #kernel.space<GM>>
// CHECK-NOT:     kernel.transdata
// CHECK:         func.return
func.func @main(%x: tensor<1x8x8x5xf32>) -> tensor<1x6x6x21xf32> {
  %w = cann.Const dense<0.125> : tensor<3x3x5x21xf32>
  %b = cann.Const dense<0.5> : tensor<21xf32>
  %y = cann.FusedConv2D %x, %w, %b {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "Relu"} : (tensor<1x8x8x5xf32>, tensor<3x3x5x21xf32>, tensor<21xf32>) -> tensor<1x6x6x21xf32>
  func.return %y : tensor<1x6x6x21xf32>
}
