// Pool epilogues by the automatic fusion (compiler/transforms/fusion/auto.py): MaxPool and AvgPool
// are OutputFusable, so the pointwise ops after a pool (a NAS cell's `AvgPool(x) + MaxPool(x)`) become a
// cann.FusedKernel whose input #0 is the pool's single-use result; cann-to-kernel
// (vector.py PoolToVectorBody) runs its body on the reduced output rows, the other inputs loaded
// as the same rows, so pool + Add + Relu is one vector kernel.  An input of another shape (a
// per-channel vector) is not loadable as rows: that chain stays a kernel of its own.
// RUN: cann-opt --fuse %s | filecheck %s
// RUN: cann-opt --fuse --assign-layouts --cann-to-kernel %s | filecheck %s --check-prefix=KERNEL
// RUN: cann-opt --fuse --fusion-report=- %s 2>&1 >/dev/null | filecheck %s --check-prefix=REPORT

// REPORT: automatic fusion: 5 pointwise ops in 3 fused kernels (2 of them cube epilogues)

// CHECK-LABEL: func.func @pool_add_relu
// CHECK:         %[[Q:.*]] = cann.MaxPool %x
// CHECK-NEXT:    %[[P:.*]] = cann.AvgPool %x
// CHECK-NEXT:    %[[Y:.*]] = cann.FusedKernel %[[P]], %[[Q]]
// CHECK:           cann.Add
// CHECK-NEXT:      cann.Relu
// KERNEL-LABEL: func.func @pool_add_relu
// KERNEL:         kernel.vec_kernel {{.*}}kind = "MaxPool"
// KERNEL:         kernel.vec_kernel {{.*}}kind = "AvgPool"
// KERNEL:           kernel.vec {{.*}}fn = "PoolAvg"
// KERNEL-NEXT:      kernel.load {{.*}}view = "rows"
// KERNEL-NEXT:      kernel.vec {{.*}}fn = "Add"
// KERNEL-NEXT:      kernel.vec {{.*}}fn = "Relu"
// KERNEL-NEXT:      kernel.store
// KERNEL-NOT:     kernel.vec_kernel {{.*}}kind = "Elementwise"
// KERNEL:         func.return
func.func @pool_add_relu(%x: tensor<1x8x8x20xf32>) -> tensor<1x4x4x20xf32> {
  %q = cann.MaxPool %x {ksize = array<i64: 1, 3, 3, 1>, strides = array<i64: 1, 2, 2, 1>, padding = "SAME", data_format = "NHWC"} : (tensor<1x8x8x20xf32>) -> tensor<1x4x4x20xf32>
  %p = cann.AvgPool %x {ksize = array<i64: 1, 3, 3, 1>, strides = array<i64: 1, 2, 2, 1>, padding = "SAME", data_format = "NHWC"} : (tensor<1x8x8x20xf32>) -> tensor<1x4x4x20xf32>
  %0 = cann.Add %p, %q : (tensor<1x4x4x20xf32>, tensor<1x4x4x20xf32>) -> tensor<1x4x4x20xf32>
  %1 = cann.Relu %0 : (tensor<1x4x4x20xf32>) -> tensor<1x4x4x20xf32>
  func.return %1 : tensor<1x4x4x20xf32>
}

// A per-channel operand: not an epilogue of the pool (a FusedKernel of its own).
// CHECK-LABEL: func.func @pool_channel_vector
// CHECK:         %[[P:.*]] = cann.MaxPool %x
// CHECK-NEXT:    %[[Y:.*]] = cann.FusedKernel %[[P]], %b
// KERNEL-LABEL: func.func @pool_channel_vector
// KERNEL:         kernel.vec_kernel {{.*}}kind = "MaxPool"
// KERNEL:         kernel.vec_kernel {{.*}}kind = "Elementwise"
func.func @pool_channel_vector(%x: tensor<1x8x8x20xf32>) -> tensor<1x4x4x20xf32> {
  %b = cann.Const dense<0.5> : tensor<20xf32>
  %p = cann.MaxPool %x {ksize = array<i64: 1, 3, 3, 1>, strides = array<i64: 1, 2, 2, 1>, padding = "SAME", data_format = "NHWC"} : (tensor<1x8x8x20xf32>) -> tensor<1x4x4x20xf32>
  %0 = cann.Mul %p, %b : (tensor<1x4x4x20xf32>, tensor<20xf32>) -> tensor<1x4x4x20xf32>
  %1 = cann.Relu %0 : (tensor<1x4x4x20xf32>) -> tensor<1x4x4x20xf32>
  func.return %1 : tensor<1x4x4x20xf32>
}

// A pool read twice by one Add (NASNet's two identical AvgPools, merged by CSE): one consumer,
// so the Add is the pool's epilogue.
// CHECK-LABEL: func.func @pool_doubled
// CHECK:         %[[P:.*]] = cann.AvgPool %x
// CHECK-NEXT:    %[[Y:.*]] = cann.FusedKernel %[[P]] :
// KERNEL-LABEL: func.func @pool_doubled
// KERNEL:         kernel.vec_kernel {{.*}}kind = "AvgPool"
// KERNEL:           kernel.vec {{.*}}fn = "PoolAvg"
// KERNEL-NEXT:      kernel.vec {{.*}}fn = "Add"
// KERNEL-NEXT:      kernel.store
// KERNEL-NOT:     kernel.vec_kernel {{.*}}kind = "Elementwise"
// KERNEL:         func.return
func.func @pool_doubled(%x: tensor<1x8x8x20xf32>) -> tensor<1x8x8x20xf32> {
  %p = cann.AvgPool %x {ksize = array<i64: 1, 3, 3, 1>, strides = array<i64: 1, 1, 1, 1>, padding = "SAME", data_format = "NHWC"} : (tensor<1x8x8x20xf32>) -> tensor<1x8x8x20xf32>
  %0 = cann.Add %p, %p : (tensor<1x8x8x20xf32>, tensor<1x8x8x20xf32>) -> tensor<1x8x8x20xf32>
  func.return %0 : tensor<1x8x8x20xf32>
}
