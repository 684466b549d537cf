// RUN: not cann-opt --plan-memory %s 2>&1 | filecheck %s

// plan-memory needs kernel launches: cann-level ops are one clear error.
// CHECK: plan_memory_errors.mlir: error: plan-memory: @main: cann.Relu is not a kernel launch; run cann-to-kernel before plan-memory
// CHECK-NOT: Traceback

builtin.module {
  func.func @main(%arg0: tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32> {
    %0 = cann.Relu %arg0 : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
    func.return %0 : tensor<1x8x8x4xf32>
  }
}
