// RUN: cann-opt --tf-to-cann %s | filecheck %s
// RUN: cann-opt --tf-to-cann %s | cann-opt | filecheck %s
// RUN: cann-opt --tf-to-cann --assign-layouts --cann-to-kernel %s | filecheck %s --check-prefix=KERNEL
// RUN: not cann-opt --tf-to-cann %S/Inputs/topk_errors.mlir 2>&1 | filecheck %s --check-prefix=ERR

// TopKV2(input, k; sorted, index_type) -> cann.TopKV2 along the last axis: the constant k (any
// integer type) becomes an attribute, the indices are int32 (Cast to an int64 index_type).
// CHECK-LABEL: func.func @topk(
// CHECK-NEXT: %k = cann.Const dense<3> : tensor<i32>
// CHECK-NEXT: %k4 = cann.Const dense<4> : tensor<i64>
// CHECK-NEXT: %0, %1 = cann.TopKV2 %x {k = 3 : i64, sorted = true, dim = -1 : i64, largest = true} : (tensor<2x3x7xf32>) -> (tensor<2x3x3xf32>, tensor<2x3x3xi32>)
// CHECK-NEXT: %2, %3 = cann.TopKV2 %i {k = 4 : i64, sorted = false, dim = -1 : i64, largest = true} : (tensor<5x4xi32>) -> (tensor<5x4xi32>, tensor<5x4xi32>)
// CHECK-NEXT: %4 = cann.Cast %3 {dst_type = i64} : (tensor<5x4xi32>) -> tensor<5x4xi64>
// CHECK-NEXT: func.return %0, %1, %2, %4
func.func @topk(%x: tensor<2x3x7xf32>, %i: tensor<5x4xi32>) -> (tensor<2x3x3xf32>, tensor<2x3x3xi32>, tensor<5x4xi32>, tensor<5x4xi64>) {
  %k = "tf.Const"() {value = dense<3> : tensor<i32>} : () -> tensor<i32>
  %k4 = "tf.Const"() {value = dense<4> : tensor<i64>} : () -> tensor<i64>
  %0:2 = "tf.TopKV2"(%x, %k) {sorted = true} : (tensor<2x3x7xf32>, tensor<i32>) -> (tensor<2x3x3xf32>, tensor<2x3x3xi32>) loc("top")
  %1:2 = "tf.TopKV2"(%i, %k4) {sorted = false, index_type = i64} : (tensor<5x4xi32>, tensor<i64>) -> (tensor<5x4xi32>, tensor<5x4xi64>)
  func.return %0#0, %0#1, %1#0, %1#1 : tensor<2x3x3xf32>, tensor<2x3x3xi32>, tensor<5x4xi32>, tensor<5x4xi64>
}

// The row kernel (compiler/conversions/cann_to_kernel/topk.py): tiles of whole rows; each row's
// first k positions after a stable sort, the values gathered by them; values is the kernel's
// result, indices its extra result.
// KERNEL-LABEL: func.func @topk(
// KERNEL: %0, %1 = kernel.vec_kernel %x {kind = "TopKV2", {{.*}}rowLen = 7, k = 3>{{.*}} : (tensor<2x3x7xf32>) -> (tensor<2x3x3xf32>, tensor<2x3x3xi32>)
// KERNEL-NEXT: ^bb0(%{{.*}}: memref<2x3x7xf32, #kernel.space<GM>>, %[[V:.*]]: memref<2x3x3xf32, #kernel.space<GM>>, %[[I:.*]]: memref<2x3x3xi32, #kernel.space<GM>>):
// KERNEL: kernel.load {{.*}}{view = "rows", params = {}} : memref<2x3x7xf32, #kernel.space<GM>> -> memref<6x7xf32, #kernel.space<UB>>
// KERNEL-NEXT: %[[IDX:.*]] = kernel.vec %{{.*}} {fn = "TopKIndices", attrs = {k = 3 : i64, largest = 1 : i64}} : (memref<6x7xf32, #kernel.space<UB>>) -> memref<6x3xi32, #kernel.space<UB>>
// KERNEL-NEXT: %[[VAL:.*]] = kernel.vec %{{.*}}, %[[IDX]] {fn = "GatherLanes", attrs = {}} : (memref<6x7xf32, #kernel.space<UB>>, memref<6x3xi32, #kernel.space<UB>>) -> memref<6x3xf32, #kernel.space<UB>>
// KERNEL-NEXT: kernel.store %[[VAL]], %[[V]]
// KERNEL-NEXT: kernel.store %[[IDX]], %[[I]]
// KERNEL: kernel.vec_kernel %i {kind = "TopKV2", {{.*}}rowLen = 4, k = 4>
// KERNEL: kernel.vec_kernel %{{.*}} {kind = "Elementwise"{{.*}} : (tensor<5x4xi32>) -> tensor<5x4xi64>
// KERNEL-NOT: cann.TopKV2

// ERR: topk_errors.mlir:{{[0-9]+}}:{{[0-9]+}}: error: tf.TopKV2 cannot be legalized: input 1 (k) must be a constant [node 'runtime_k']
// ERR: topk_errors.mlir:{{[0-9]+}}:{{[0-9]+}}: error: tf.TopKV2 cannot be legalized: k = 4 is out of range [0, 3] (the last dimension) [node 'big_k']
// ERR: topk_errors.mlir:{{[0-9]+}}:{{[0-9]+}}: error: tf.TopKV2 cannot be legalized: TopKV2 supports float16, float32, bfloat16, int32; got float64 [node 'f64']
// ERR: topk_errors.mlir:{{[0-9]+}}:{{[0-9]+}}: error: tf.TopKV2 cannot be legalized: needs a static last dimension (the sorted rows) [node 'dynamic']
