// RUN: cann-opt %s | cann-opt | filecheck %s
// RUN: cann-opt %s --print-op-generic | cann-opt | filecheck %s

// The library ops print and parse back in their custom form.
// CHECK: cann.MatMulV2 %a, %b {transpose_x1 = false, transpose_x2 = true} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
// CHECK: cann.BatchMatMulV2 %{{.*}}, %{{.*}} {adj_x1 = false, adj_x2 = false} : (tensor<1x2x4xf32>, tensor<4x4x5xf32>) -> tensor<4x2x5xf32>
// CHECK: cann.LayerNorm %{{.*}}, %g, %g {begin_norm_axis = -1 : i64, begin_params_axis = -1 : i64, epsilon = 1.000000e-12 : f32}
// CHECK: cann.ConcatV2D %{{.*}}, %{{.*}} {concat_dim = 1 : i64, N = 2 : i64}
// CHECK: cann.HostCall %{{.*}} {op_type = "Cumprod", tf_attrs = {exclusive = false}}
func.func @ops(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>, %g: tensor<4xf32>, %c: tensor<1x2x4xf32>, %d: tensor<4x4x5xf32>, %ax: tensor<i32>) -> (tensor<2x4xf32>, tensor<4x2x5xf32>, tensor<2x8xf32>, tensor<2x4xf32>) {
  %0 = cann.MatMulV2 %a, %b {transpose_x1 = false, transpose_x2 = true} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
  %1 = cann.BatchMatMulV2 %c, %d {adj_x1 = false, adj_x2 = false} : (tensor<1x2x4xf32>, tensor<4x4x5xf32>) -> tensor<4x2x5xf32>
  %2 = cann.LayerNorm %0, %g, %g {begin_norm_axis = -1 : i64, begin_params_axis = -1 : i64, epsilon = 1.0e-12 : f32} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %3 = cann.ConcatV2D %2, %0 {concat_dim = 1 : i64, N = 2 : i64} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x8xf32>
  %4 = cann.HostCall %0, %ax {op_type = "Cumprod", tf_attrs = {exclusive = false}} : (tensor<2x4xf32>, tensor<i32>) -> tensor<2x4xf32>
  func.return %0, %1, %3, %4 : tensor<2x4xf32>, tensor<4x2x5xf32>, tensor<2x8xf32>, tensor<2x4xf32>
}
