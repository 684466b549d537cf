// RUN: cann-opt --plan-memory %s | filecheck %s
// RUN: cann-opt --plan-memory %s | cann-opt | filecheck %s
// RUN: cann-opt --plan-memory='inplace=false' %s | filecheck %s --check-prefix=NOINPLACE
// RUN: cann-opt --plan-memory='report=true' %s -o /dev/null 2>&1 | filecheck %s --check-prefix=REPORT
// RUN: cann-opt --plan-memory --perf-report %s -o /dev/null 2>&1 | filecheck %s --check-prefix=PERF

// A Relu chain on NC1HWC0 tiles (4096 B each), two kernels with a GM workspace.  In place, the
// chain lives in one 4096 B buffer; the workspaces (3000 -> 3072 B, 5000 -> 5120 B) share one.

builtin.module attributes {cann.soc_version = "Ascend910B3"} {
  func.func @main(%arg0: tensor<1x1x8x8x16xf32>) -> tensor<1x1x8x8x16xf32> {
    %0 = kernel.vector %arg0 {fn = "Relu", block_dim = 1 : i64, tiling = #kernel.tiling<totalElems = 1024, elemsPerCore = 1024, tileElems = 1024, tilesPerCore = 1>, buffers = [#kernel.buffer<UB, 8192, "io0">]} : (tensor<1x1x8x8x16xf32>) -> tensor<1x1x8x8x16xf32>
    %1 = kernel.vector %0 {fn = "Relu", block_dim = 1 : i64, tiling = #kernel.tiling<totalElems = 1024, elemsPerCore = 1024, tileElems = 1024, tilesPerCore = 1>, buffers = [#kernel.buffer<UB, 8192, "io0">, #kernel.buffer<GM, 3000, "workspace">]} : (tensor<1x1x8x8x16xf32>) -> tensor<1x1x8x8x16xf32>
    %2 = kernel.vector %1 {fn = "Relu", block_dim = 1 : i64, tiling = #kernel.tiling<totalElems = 1024, elemsPerCore = 1024, tileElems = 1024, tilesPerCore = 1>, buffers = [#kernel.buffer<UB, 8192, "io0">, #kernel.buffer<GM, 5000, "workspace">]} : (tensor<1x1x8x8x16xf32>) -> tensor<1x1x8x8x16xf32>
    %3 = kernel.vector %2 {fn = "Relu", block_dim = 1 : i64, tiling = #kernel.tiling<totalElems = 1024, elemsPerCore = 1024, tileElems = 1024, tilesPerCore = 1>, buffers = [#kernel.buffer<UB, 8192, "io0">]} : (tensor<1x1x8x8x16xf32>) -> tensor<1x1x8x8x16xf32>
    func.return %3 : tensor<1x1x8x8x16xf32>
  }
}

// CHECK:      func.func @main
// CHECK-SAME: mem.plan = {alignment = 512 : i64, arena = 9216 : i64, live_bound = 9216 : i64, naive = 20480 : i64, tensors = 5 : i64, inplace = 2 : i64, concat_inplace = 0 : i64}
// CHECK:      %[[A:.*]] = kernel.vector %arg0 {mem.offsets = array<i64: [[OFF:[0-9]+]]>, fn = "Relu"
// CHECK:      kernel.vector %[[A]] {mem.offsets = array<i64: [[OFF]]>, mem.workspace = array<i64: [[WS:[0-9]+]], 3000>, fn = "Relu"
// CHECK:      kernel.vector %{{.*}} {mem.offsets = array<i64: [[OFF]]>, mem.workspace = array<i64: [[WS]], 5000>, fn = "Relu"
// CHECK:      kernel.vector %{{.*}} {mem.offsets = array<i64: -1>, fn = "Relu"
// CHECK:      func.return

// NOINPLACE:  mem.plan = {alignment = 512 : i64, arena = 13312 : i64, live_bound = 13312 : i64, naive = 20480 : i64, tensors = 5 : i64, inplace = 0 : i64

// REPORT:     plan-memory: @main: arena 9216 B, live-set bound 9216 B (1.000x), naive sum 20480 B (0.450x), 5 tensors, 2 in place, 0 concat inputs in place

// PERF:       performance estimate on Ascend910B3
// PERF:       assumption: HBM bandwidth 1.6 TB/s
// PERF:       assumption: launch overhead 3.0 us per kernel
// PERF:       {{ *}}0 vector
// PERF:       {{ *}}3 vector
// PERF:       model: 4 kernel launches, 32768 HBM bytes, 0 cube FLOPs, estimated latency {{.*}} us, bound: host
// PERF:       roofline: max(
// PERF:       device arena: 9216 bytes
