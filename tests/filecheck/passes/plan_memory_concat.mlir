// RUN: cann-opt --cann-to-kernel --plan-memory %s | filecheck %s
// RUN: cann-opt --cann-to-kernel --plan-memory %s | cann-opt | filecheck %s
// RUN: cann-opt --cann-to-kernel --plan-memory='report=true' %s -o /dev/null 2>&1 | filecheck %s --check-prefix=REPORT
// RUN: cann-opt --cann-to-kernel --plan-memory --perf-report %s -o /dev/null 2>&1 | filecheck %s --check-prefix=PERF
// RUN: cann-opt --cann-to-kernel --plan-memory='concat=false' %s | filecheck %s --check-prefix=NOCONCAT

// Zero-copy concat, a densely connected chain: each layer's output is written into its slab of
// the next concat, a concat of a concat nests, and the whole chain is one 1024 B buffer.
// %x0 is read twice (by the layer and by the concat): its slab lives as long as the buffer.
// The buffer is the whole arena, at 0:
//   %x0 [1,64]  at +0     %h1 [1,64]  at +256    %c1 [1,128] at +0
//   %h2 [1,128] at +512   %c2 [1,256] at +0 (elided: no launch)

builtin.module attributes {cann.soc_version = "Ascend910B3"} {
  func.func @main(%arg0: tensor<1x64xf32>) -> tensor<1x256xf32> {
    %x0 = cann.Relu %arg0 : (tensor<1x64xf32>) -> tensor<1x64xf32>
    %h1 = cann.Sigmoid %x0 : (tensor<1x64xf32>) -> tensor<1x64xf32>
    %c1 = cann.ConcatV2D %x0, %h1 {concat_dim = 1 : i64, N = 2 : i64} : (tensor<1x64xf32>, tensor<1x64xf32>) -> tensor<1x128xf32>
    %h2 = cann.Tanh %c1 : (tensor<1x128xf32>) -> tensor<1x128xf32>
    %c2 = cann.ConcatV2D %c1, %h2 {concat_dim = 1 : i64, N = 2 : i64} : (tensor<1x128xf32>, tensor<1x128xf32>) -> tensor<1x256xf32>
    %y = cann.Neg %c2 : (tensor<1x256xf32>) -> tensor<1x256xf32>
    func.return %y : tensor<1x256xf32>
  }
}

// CHECK:      mem.plan = {alignment = 512 : i64, arena = 1024 : i64, live_bound = 1024 : i64, naive = 3072 : i64, tensors = 5 : i64, inplace = 0 : i64, concat_inplace = 4 : i64}
// CHECK:      kernel.vec_kernel %arg0 {mem.offsets = array<i64: 0>
// CHECK:      kernel.vec_kernel %{{.*}} {mem.offsets = array<i64: 256>
// CHECK:      kernel.vec_kernel %{{.*}}, %{{.*}} {concat_dim = 1 : i64, mem.offsets = array<i64: 0>, mem.elided, kind = "ConcatV2D"
// CHECK:      kernel.vec_kernel %{{.*}} {mem.offsets = array<i64: 512>
// CHECK:      kernel.vec_kernel %{{.*}}, %{{.*}} {concat_dim = 1 : i64, mem.offsets = array<i64: 0>, mem.elided, kind = "ConcatV2D"
// CHECK:      kernel.vec_kernel %{{.*}} {mem.offsets = array<i64: -1>

// REPORT:     plan-memory: @main: arena 1024 B, live-set bound 1024 B (1.000x), naive sum 3072 B (0.333x), 5 tensors, 0 in place, 4 concat inputs in place

// PERF:       model: 4 kernel launches

// NOCONCAT:   concat_inplace = 0 : i64
// NOCONCAT-NOT: mem.elided
