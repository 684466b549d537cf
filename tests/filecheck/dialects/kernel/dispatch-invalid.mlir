// RUN: not cann-opt --split-input-file %s 2>&1 | filecheck %s

// kernel.dispatch (a kernel tiled at dispatch): its tiling function names exactly the `?`
// operand dimensions, a known solver, and its body op has the kernel's types.

builtin.module attributes {cann.soc_version = "Ascend910B3"} {
  func.func @missing_dim(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
    // CHECK: dispatch-invalid.mlir:[[# @LINE + 1]]:5: error: kernel.dispatch: tiling_fn must name every `?` operand dimension [[0, 0], [0, 1]]
    %y = "kernel.dispatch"(%x) <{tiling_fn = #kernel.tiling_fn<vector, symbolic [[0, 0]]>}> ({
    ^bb0(%a: tensor<?x?xf32>):
      %r = cann.Relu %a : (tensor<?x?xf32>) -> tensor<?x?xf32>
      kernel.yield
    }) : (tensor<?x?xf32>) -> tensor<?x?xf32>
    func.return %y : tensor<?x?xf32>
  }
}

// -----

builtin.module attributes {cann.soc_version = "Ascend910B3"} {
  func.func @static_dim(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
    // CHECK: dispatch-invalid.mlir:[[# @LINE + 1]]:5: error: kernel.dispatch: tiling_fn names operand 0 dim 1, which is not a `?` dimension of an operand
    %y = "kernel.dispatch"(%x) <{tiling_fn = #kernel.tiling_fn<vector, symbolic [[0, 0], [0, 1]]>}> ({
    ^bb0(%a: tensor<?x8xf32>):
      %r = cann.Relu %a : (tensor<?x8xf32>) -> tensor<?x8xf32>
      kernel.yield
    }) : (tensor<?x8xf32>) -> tensor<?x8xf32>
    func.return %y : tensor<?x8xf32>
  }
}

// -----

builtin.module attributes {cann.soc_version = "Ascend910B3"} {
  func.func @result_type(%x: tensor<?x8xf32>) -> tensor<4x8xf32> {
    // CHECK: dispatch-invalid.mlir:[[# @LINE + 1]]:5: error: kernel.dispatch: results must have the types of cann.Relu's results
    %y = "kernel.dispatch"(%x) <{tiling_fn = #kernel.tiling_fn<vector, symbolic [[0, 0]]>}> ({
    ^bb0(%a: tensor<?x8xf32>):
      %r = cann.Relu %a : (tensor<?x8xf32>) -> tensor<?x8xf32>
      kernel.yield
    }) : (tensor<?x8xf32>) -> tensor<4x8xf32>
    func.return %y : tensor<4x8xf32>
  }
}

// -----

builtin.module attributes {cann.soc_version = "Ascend910B3"} {
  func.func @solver(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
    // CHECK: dispatch-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: unknown solver 'gemm'; known: cube, vector
    %y = "kernel.dispatch"(%x) <{tiling_fn = #kernel.tiling_fn<gemm, symbolic [[0, 0]]>}> ({
    ^bb0(%a: tensor<?x8xf32>):
      %r = cann.Relu %a : (tensor<?x8xf32>) -> tensor<?x8xf32>
      kernel.yield
    }) : (tensor<?x8xf32>) -> tensor<?x8xf32>
    func.return %y : tensor<?x8xf32>
  }
}
