// RUN: cann-opt %s | filecheck %s
// RUN: cann-opt %s --print-op-generic | cann-opt | filecheck %s
// RUN: cann-opt --assign-layouts --cann-to-kernel %s | filecheck %s --check-prefix=KERNEL

// cann.InplaceUpdate (CANN's InplaceUpdate: y = x with rows indices[i] = v[i]; what
// TensorListSetItem legalizes to) round-trips.
// CHECK-LABEL: func.func private @body(
// CHECK: %y = cann.InplaceUpdate %buf, %idx, %row : (tensor<6x4xf32>, tensor<1xi32>, tensor<1x4xf32>) -> tensor<6x4xf32>

// Where the buffer may still be read afterwards (here by the While): the kernel copies it to y
// first, then writes the row.
// KERNEL-LABEL: func.func @main(
// KERNEL: kernel.vec_kernel %b0, %i0, %r0 {kind = "InplaceUpdate"
// KERNEL: kernel.store %{{.*}}, %{{.*}}[%{{.*}}] {view = "flat"
// KERNEL: kernel.scatter

// In a while body, on the loop variable it returns at the same position and nothing else
// reads: the kernel writes only the row (index tile and row GM -> UB, one kernel.scatter) over
// the buffer itself (mem.inplace_of = 0); no copy of the buffer.
// KERNEL-LABEL: func.func private @body(
// KERNEL: kernel.vec_kernel %buf, %idx, %row {mem.inplace_of = 0 : i64, kind = "InplaceUpdate"
// KERNEL-NOT: kernel.store
// KERNEL: kernel.load %{{.*}}[%{{.*}}] {view = "flat"{{.*}}} : memref<1xi32, #kernel.space<GM>> -> memref<1xi32, #kernel.space<UB>>
// KERNEL: kernel.load %{{.*}}[%{{.*}}] {view = "rows"{{.*}}} : memref<1x4xf32, #kernel.space<GM>> -> memref<1x4xf32, #kernel.space<UB>>
// KERNEL: kernel.scatter %{{.*}}, %{{.*}}[%{{.*}}], %{{.*}} {params = {rows = 6 : i64, num_ids = 1 : i64}}
// KERNEL: func.return
func.func @main(%b0: tensor<6x4xf32>, %i0: tensor<1xi32>, %r0: tensor<1x4xf32>) -> (tensor<6x4xf32>, tensor<6x4xf32>) {
  %y = cann.InplaceUpdate %b0, %i0, %r0 : (tensor<6x4xf32>, tensor<1xi32>, tensor<1x4xf32>) -> tensor<6x4xf32>
  %n:3 = cann.While %b0, %i0, %r0 {cond = @cond, body = @body} : (tensor<6x4xf32>, tensor<1xi32>, tensor<1x4xf32>) -> (tensor<6x4xf32>, tensor<1xi32>, tensor<1x4xf32>)
  func.return %y, %n#0 : tensor<6x4xf32>, tensor<6x4xf32>
}
func.func private @cond(%buf: tensor<6x4xf32>, %idx: tensor<1xi32>, %row: tensor<1x4xf32>) -> tensor<i1> {
  %f = cann.Const dense<false> : tensor<i1>
  func.return %f : tensor<i1>
}
func.func private @body(%buf: tensor<6x4xf32>, %idx: tensor<1xi32>, %row: tensor<1x4xf32>) -> (tensor<6x4xf32>, tensor<1xi32>, tensor<1x4xf32>) {
  %y = cann.InplaceUpdate %buf, %idx, %row : (tensor<6x4xf32>, tensor<1xi32>, tensor<1x4xf32>) -> tensor<6x4xf32>
  func.return %y, %idx, %row : tensor<6x4xf32>, tensor<1xi32>, tensor<1x4xf32>
}
