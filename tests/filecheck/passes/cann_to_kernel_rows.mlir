// RUN: cann-opt --assign-layouts --cann-to-kernel %s | filecheck %s
// RUN: cann-opt --assign-layouts --cann-to-kernel %s | cann-opt --print-op-generic | cann-opt | filecheck %s

// Softmax over the last axis: a vector kernel over tiles of whole rows, reductions along the row.
// CHECK-LABEL: func.func @softmax
// CHECK: kernel.vec_kernel %x {kind = "SoftmaxV2", block_dim = 4 : i64, tiling = #kernel.tiling<totalElems = 4, elemsPerCore = 1, tileElems = 1, tilesPerCore = 1>
// CHECK: kernel.load {{.*}}view = "rows"{{.*}} -> memref<1x1000xf32, #kernel.space<UB>>
// CHECK-NEXT: kernel.vec {{.*}}fn = "RowMax"{{.*}} -> memref<1x1xf32, #kernel.space<UB>>
// CHECK-NEXT: kernel.vec {{.*}}fn = "Sub"
// CHECK-NEXT: kernel.vec {{.*}}fn = "Exp"
// CHECK-NEXT: kernel.vec {{.*}}fn = "RowSum"
// CHECK-NEXT: kernel.vec {{.*}}fn = "RealDiv"
// CHECK-NEXT: kernel.store {{.*}}view = "rows"
func.func @softmax(%x: tensor<4x1000xf32>) -> tensor<4x1000xf32> {
  %y = cann.SoftmaxV2 %x {axes = array<i64: -1>} : (tensor<4x1000xf32>) -> tensor<4x1000xf32>
  func.return %y : tensor<4x1000xf32>
}

// AddLayerNorm: residual add, mean, variance, rsqrt, gamma and beta (loaded once per core).
// CHECK-LABEL: func.func @add_layer_norm
// CHECK: kernel.vec_kernel {{.*}}kind = "AddLayerNorm"
// CHECK: kernel.cores
// CHECK: kernel.load {{.*}}view = "flat"{{.*}} -> memref<256xf32, #kernel.space<UB>>
// CHECK: kernel.load {{.*}}view = "flat"{{.*}} -> memref<256xf32, #kernel.space<UB>>
// CHECK: kernel.for
// CHECK: fn = "Add"
// CHECK-NEXT: kernel.vec {{.*}}fn = "RowMean"
// CHECK: kernel.vec {{.*}}fn = "Adds", attrs = {value = 1.000000e-12 : f32}
// CHECK-NEXT: kernel.vec {{.*}}fn = "Rsqrt"
func.func @add_layer_norm(%a: tensor<1x128x256xf32>, %b: tensor<1x128x256xf32>, %g: tensor<256xf32>, %be: tensor<256xf32>) -> tensor<1x128x256xf32> {
  %y = cann.AddLayerNorm %a, %b, %g, %be {begin_norm_axis = 2 : i64, begin_params_axis = 2 : i64, epsilon = 1.0e-12 : f32} : (tensor<1x128x256xf32>, tensor<1x128x256xf32>, tensor<256xf32>, tensor<256xf32>) -> tensor<1x128x256xf32>
  func.return %y : tensor<1x128x256xf32>
}

// Reshape of a row-major tensor is a view (no kernel); a reshaped constant folds.
// CHECK-LABEL: func.func @reshape
// CHECK-NEXT: %{{.*}} = kernel.view %x : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
// CHECK-NEXT: func.return
func.func @reshape(%x: tensor<2x3x4xf32>) -> tensor<6x4xf32> {
  %y = cann.Reshape %x {shape = array<i64: 6, 4>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  func.return %y : tensor<6x4xf32>
}
