// cann-translate --import-graphdef on examples/conv_block.pbtxt (a copy lives in Inputs/).
// The node names are printed by default (the locations naming TF nodes), and kept by cann-opt:
// RUN: cann-translate --import-graphdef %S/Inputs/conv_block.pbtxt -o %t.mlir
// RUN: filecheck %s --input-file=%t.mlir
// RUN: cann-opt %t.mlir | filecheck %s
// RUN: cann-translate --import-graphdef %S/Inputs/conv_block.pbtxt --print-debuginfo | filecheck %s
// so import -> text -> cann-opt -> export keeps every node name:
// RUN: cann-opt %t.mlir -o %t.opt.mlir
// RUN: cann-translate --export-graphdef %t.opt.mlir -o %t.pbtxt
// RUN: filecheck %s --check-prefix=EXPORT --input-file=%t.pbtxt
// --strip-debuginfo prints no location:
// RUN: cann-translate --import-graphdef %S/Inputs/conv_block.pbtxt --strip-debuginfo | filecheck %s --check-prefix=NOLOC
// RUN: cann-opt --strip-debuginfo %t.mlir | filecheck %s --check-prefix=NOLOC
// The output is valid input for cann-opt, generic form included, locations kept:
// RUN: cann-translate --import-graphdef %S/Inputs/conv_block.pbtxt --print-op-generic --print-debuginfo | cann-opt --print-debuginfo | filecheck %s

// CHECK:      func.func @main(%arg0: tensor<1x8x8x3xf32>{{.*}}) -> tensor<1x8x8x4xf32>
// CHECK-SAME:   attributes {tf.entry_function = {inputs = "x", outputs = "output"}}
// CHECK-NEXT:   %[[X:.*]] = tf.Placeholder %arg0 {shape = #tf.shape<1x8x8x3>} : (tensor<1x8x8x3xf32>) -> tensor<1x8x8x3xf32> loc("x")
// CHECK-NEXT:   %[[W:.*]] = tf.Const dense<"0x{{[0-9A-F]+}}"> : tensor<3x3x3x4xf32> loc("conv1/filter")
// CHECK-NEXT:   %[[B:.*]] = tf.Const dense<[{{.*}}]> : tensor<4xf32> loc("conv1/bias")
// CHECK-NEXT:   %[[C:.*]] = tf.Conv2D %[[X]], %[[W]] {T = f32, data_format = "NHWC", dilations = array<i64: 1, 1, 1, 1>, explicit_paddings = array<i64>, padding = "SAME", strides = array<i64: 1, 1, 1, 1>, use_cudnn_on_gpu = true} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32> loc("conv1/Conv2D")
// CHECK-NEXT:   %[[BA:.*]] = tf.BiasAdd %[[C]], %[[B]] {T = f32, data_format = "NHWC"} : (tensor<1x8x8x4xf32>, tensor<4xf32>) -> tensor<1x8x8x4xf32> loc("conv1/BiasAdd")
// CHECK-NEXT:   %[[R:.*]] = tf.Relu %[[BA]] {T = f32} : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32> loc("conv1/Relu")
// CHECK-NEXT:   %[[O:.*]] = tf.Identity %[[R]] {T = f32} : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32> loc("output")
// CHECK-NEXT:   func.return %[[O]] : tensor<1x8x8x4xf32>

// NOLOC:     tf.Conv2D
// NOLOC-NOT: loc(

// EXPORT-DAG: name: "x"
// EXPORT-DAG: name: "conv1/filter"
// EXPORT-DAG: name: "conv1/bias"
// EXPORT-DAG: name: "conv1/Conv2D"
// EXPORT-DAG: name: "conv1/BiasAdd"
// EXPORT-DAG: name: "conv1/Relu"
// EXPORT-DAG: name: "output"
