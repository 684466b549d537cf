// RUN: cann-opt --tf-to-cann %s | filecheck %s
// RUN: cann-opt --tf-to-cann %s | cann-opt | filecheck %s
// RUN: cann-opt --tf-to-cann --assign-layouts --cann-to-kernel %s | filecheck %s --check-prefix=KERNEL
// RUN: not cann-opt --tf-to-cann %S/Inputs/cumsum_errors.mlir 2>&1 | filecheck %s --check-prefix=ERR

// Cumsum(x, axis; exclusive, reverse) -> cann.Cumsum: the constant axis (any integer type,
// negative counted from the end) becomes an attribute, exclusive / reverse stay bools.  A Cumsum
// of a constant (Keras 3's causal mask: cumsum(ones) on both axes) is folded to a cann.Const.
// CHECK-LABEL: func.func @cumsum(
// CHECK-NEXT: %ax = cann.Const dense<1> : tensor<i32>
// CHECK-NEXT: %neg = cann.Const dense<-2> : tensor<i64>
// CHECK-NEXT: %0 = cann.Cumsum %x {axis = 1 : i64, exclusive = true, reverse = true} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %1 = cann.Cumsum %i {axis = 0 : i64, exclusive = false, reverse = false} : (tensor<4x5xi32>) -> tensor<4x5xi32>
// CHECK-NEXT: %ones = cann.Const dense<1> : tensor<3x3xi32>
// CHECK-NEXT: %2 = cann.Const dense<{{\[}}[1, 1, 1], [2, 2, 2], [3, 3, 3]]> : tensor<3x3xi32>
// CHECK-NEXT: func.return %0, %1, %2
func.func @cumsum(%x: tensor<2x3xf32>, %i: tensor<4x5xi32>) -> (tensor<2x3xf32>, tensor<4x5xi32>, tensor<3x3xi32>) {
  %ax = "tf.Const"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
  %neg = "tf.Const"() {value = dense<-2> : tensor<i64>} : () -> tensor<i64>
  %0 = "tf.Cumsum"(%x, %ax) {exclusive = true, reverse = true} : (tensor<2x3xf32>, tensor<i32>) -> tensor<2x3xf32> loc("cs")
  %1 = "tf.Cumsum"(%i, %neg) {exclusive = false, reverse = false} : (tensor<4x5xi32>, tensor<i64>) -> tensor<4x5xi32>
  %ones = "tf.Const"() {value = dense<1> : tensor<3x3xi32>} : () -> tensor<3x3xi32>
  %2 = "tf.Cumsum"(%ones, %neg) {exclusive = false, reverse = false} : (tensor<3x3xi32>, tensor<i64>) -> tensor<3x3xi32>
  func.return %0, %1, %2 : tensor<2x3xf32>, tensor<4x5xi32>, tensor<3x3xi32>
}

// The scan kernel (compiler/conversions/cann_to_kernel/scan.py): x as [rows, length, inner]; per tile of rows a
// carry starts at 0, each chunk of the axis is scanned from it, stored, and summed into it.
// KERNEL-LABEL: func.func @cumsum(
// KERNEL: kernel.vec_kernel %x {kind = "Cumsum", {{.*}}scanLen = 3, chunkLen = 3, inner = 1>
// KERNEL: kernel.vec {fn = "Fill", attrs = {fill = 0 : i64}} : () -> memref<2x1xf32, #kernel.space<UB>>
// KERNEL: kernel.for
// KERNEL-NEXT: ^bb{{[0-9]+}}(%{{.*}}: index):
// KERNEL-NEXT: kernel.load {{.*}}{view = "scan_rows", params = {rows = 2 : i64, length = 3 : i64, inner = 1 : i64, reverse = 1 : i64}} {{.*}} -> memref<2x3x1xf32, #kernel.space<UB>>
// KERNEL-NEXT: kernel.vec {{.*}}{fn = "Cumsum", attrs = {exclusive = 1 : i64}} : (memref<2x3x1xf32, #kernel.space<UB>>, memref<2x1xf32, #kernel.space<UB>>) -> memref<2x3x1xf32, #kernel.space<UB>>
// KERNEL-NEXT: kernel.store {{.*}}{view = "scan_rows", params = {rows = 2 : i64, length = 3 : i64, inner = 1 : i64, reverse = 1 : i64}}
// KERNEL-NEXT: kernel.vec {{.*}}{fn = "RowSum", attrs = {}} {{.*}} -> memref<2x1xf32, #kernel.space<UB>>
// KERNEL-NEXT: kernel.accumulate {{.*}}{fn = "Add"}
// KERNEL: kernel.vec_kernel %i {kind = "Cumsum", {{.*}}scanLen = 4, chunkLen = 4, inner = 5>
// KERNEL: kernel.load {{.*}}params = {rows = 1 : i64, length = 4 : i64, inner = 5 : i64, reverse = 0 : i64}} {{.*}} -> memref<1x4x5xi32, #kernel.space<UB>>
// KERNEL-NOT: cann.Cumsum

// Cumprod: the same rows and kernel, the running product: cann.Cumprod; in the kernel the carry
// starts at 1 (Fill 3), each chunk is scanned by Cumprod from it and multiplied into it.
// CHECK-LABEL: func.func @cumprod(
// CHECK-NEXT: %ax = cann.Const dense<-1> : tensor<i32>
// CHECK-NEXT: %0 = cann.Cumprod %x {axis = 1 : i64, exclusive = true, reverse = false} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: func.return %0
// KERNEL-LABEL: func.func @cumprod(
// KERNEL: kernel.vec_kernel %x {kind = "Cumprod", {{.*}}scanLen = 3, chunkLen = 3, inner = 1>
// KERNEL: kernel.vec {fn = "Fill", attrs = {fill = 3 : i64}} : () -> memref<2x1xf32, #kernel.space<UB>>
// KERNEL: kernel.vec {{.*}}{fn = "Cumprod", attrs = {exclusive = 1 : i64}} : (memref<2x3x1xf32, #kernel.space<UB>>, memref<2x1xf32, #kernel.space<UB>>) -> memref<2x3x1xf32, #kernel.space<UB>>
// KERNEL: kernel.vec {{.*}}{fn = "RowProd", attrs = {}} {{.*}} -> memref<2x1xf32, #kernel.space<UB>>
// KERNEL-NEXT: kernel.accumulate {{.*}}{fn = "Mul"}
// KERNEL-NOT: cann.Cumprod
func.func @cumprod(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %ax = "tf.Const"() {value = dense<-1> : tensor<i32>} : () -> tensor<i32>
  %0 = "tf.Cumprod"(%x, %ax) {exclusive = true, reverse = false} : (tensor<2x3xf32>, tensor<i32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// ERR: cumsum_errors.mlir:{{[0-9]+}}:{{[0-9]+}}: error: tf.Cumsum cannot be legalized: input 1 (axis) must be a constant [node 'runtime_axis']
// ERR: cumsum_errors.mlir:{{[0-9]+}}:{{[0-9]+}}: error: tf.Cumsum cannot be legalized: axis 2 is out of range for rank 2 [node 'bad_axis']
// ERR: cumsum_errors.mlir:{{[0-9]+}}:{{[0-9]+}}: error: tf.Cumsum cannot be legalized: Cumsum supports float16, float32, bfloat16, int32; got float64 [node 'f64']
// ERR: cumsum_errors.mlir:{{[0-9]+}}:{{[0-9]+}}: error: tf.Cumprod cannot be legalized: input 1 (axis) must be a constant [node 'runtime_axis_prod']
