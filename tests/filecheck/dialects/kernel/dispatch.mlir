// RUN: cann-opt %s | filecheck %s
// RUN: cann-opt %s | cann-opt | filecheck %s

// A kernel of a range compile (issue 16): `?` in its types (the origin shapes of its storage
// formats too), the cann op it computes in its body, and its tiling function in place of a
// fixed tiling: the solver and the symbolic (operand, dim) inputs.  It prints, parses back and
// verifies.

// CHECK-LABEL: func.func @main
// CHECK:      "kernel.dispatch"(%{{.*}}) <{tiling_fn = #kernel.tiling_fn<vector, symbolic [[0, 0]]>}> ({
// CHECK-NEXT: ^{{.*}}(%{{.*}}: tensor<?x16xf32>):
// CHECK-NEXT:   cann.TransData %{{.*}} {src_format = "ND", dst_format = "FRACTAL_NZ", groups = 1 : i64} : (tensor<?x16xf32>) -> tensor<1x?x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [?, 16]>>
// CHECK-NEXT:   kernel.yield
// CHECK-NEXT: }) : (tensor<?x16xf32>) -> tensor<1x?x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [?, 16]>>
// CHECK:      "kernel.dispatch"(%{{.*}}, %{{.*}}) <{tiling_fn = #kernel.tiling_fn<cube, symbolic [[0, 1]]>}> ({
// CHECK:        cann.MatMulV2 {{.*}} -> tensor<1x?x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [?, 10]>>
builtin.module attributes {cann.soc_version = "Ascend910B3"} {
  func.func @main(%x: tensor<?x16xf32>) -> tensor<1x?x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [?, 10]>> {
    %w = cann.Const dense<0.5> : tensor<1x1x16x16xf32> -> tensor<1x1x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [16, 10]>>
    %a = "kernel.dispatch"(%x) <{tiling_fn = #kernel.tiling_fn<vector, symbolic [[0, 0]]>}> ({
    ^bb0(%x0: tensor<?x16xf32>):
      %t = cann.TransData %x0 {src_format = "ND", dst_format = "FRACTAL_NZ", groups = 1 : i64} : (tensor<?x16xf32>) -> tensor<1x?x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [?, 16]>>
      kernel.yield
    }) : (tensor<?x16xf32>) -> tensor<1x?x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [?, 16]>>
    %y = "kernel.dispatch"(%a, %w) <{tiling_fn = #kernel.tiling_fn<cube, symbolic [[0, 1]]>}> ({
    ^bb0(%a0: tensor<1x?x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [?, 16]>>, %w0: tensor<1x1x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [16, 10]>>):
      %m = cann.MatMulV2 %a0, %w0 {transpose_x1 = false, transpose_x2 = false} : (tensor<1x?x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [?, 16]>>, tensor<1x1x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [16, 10]>>) -> tensor<1x?x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [?, 10]>>
      kernel.yield
    }) : (tensor<1x?x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [?, 16]>>, tensor<1x1x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [16, 10]>>) -> tensor<1x?x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [?, 10]>>
    func.return %y : tensor<1x?x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [?, 10]>>
  }
}
