// RUN: not cann-opt --assign-layouts --cann-to-kernel %s 2>&1 | filecheck %s

// Shapes the kernel level cannot serve are diagnostics at the op with its TF node name, all in one run.
// CHECK: cann_to_kernel_errors.mlir:[[# @LINE + 2]]:3: error: cann.Sigmoid: dynamic dimension in tensor<?x8xf32> is not supported at the kernel level (the tiling needs static shapes) [node 'act/Sigmoid']
func.func @main(%x: tensor<?x8xf32>, %a: tensor<3000000000xf16>) -> (tensor<?x8xf32>, tensor<3000000000xf16>) {
  %y = cann.Sigmoid %x : (tensor<?x8xf32>) -> tensor<?x8xf32> loc("act/Sigmoid")
  // CHECK-NEXT: cann_to_kernel_errors.mlir:[[# @LINE + 1]]:3: error: Tanh: elements=3000000000 exceeds the tiling's int32 range (2147483647) [node 'big/Tanh']
  %z = cann.Tanh %a : (tensor<3000000000xf16>) -> tensor<3000000000xf16> loc("big/Tanh")
  func.return %y, %z : tensor<?x8xf32>, tensor<3000000000xf16>
}
