// RUN: not cann-opt --assign-layouts --cann-to-kernel %s 2>&1 | filecheck %s

// An op the kernel level cannot serve is a diagnostic naming the op and its TF node.
// CHECK: cann_to_kernel_unsupported.mlir:[[# @LINE + 3]]:3: error: cann.SoftmaxV2: softmax over axes [0] of a rank-2 tensor has no kernel lowering (only the last axis) [node 'probs/Softmax']
// CHECK-NEXT: cann_to_kernel_unsupported.mlir:[[# @LINE + 3]]:3: error: cann.ReduceMeanD: a reduction over no axes has no kernel lowering [node 'm/Mean']
func.func @bad(%x: tensor<4x6xf32>, %z: tensor<2x6x4xf32>) -> (tensor<4x6xf32>, tensor<2x6x4xf32>) {
  %y = cann.SoftmaxV2 %x {axes = array<i64: 0>} : (tensor<4x6xf32>) -> tensor<4x6xf32> loc("probs/Softmax")
  %m = cann.ReduceMeanD %z {axes = array<i64>, keep_dims = false} : (tensor<2x6x4xf32>) -> tensor<2x6x4xf32> loc("m/Mean")
  func.return %y, %m : tensor<4x6xf32>, tensor<2x6x4xf32>
}
