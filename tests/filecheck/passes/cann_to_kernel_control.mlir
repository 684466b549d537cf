// RUN: cann-opt --assign-layouts --cann-to-kernel %s | filecheck %s
// RUN: cann-opt --assign-layouts --cann-to-kernel %s | cann-opt | filecheck %s
// RUN: cann-opt --assign-layouts --cann-to-kernel --plan-memory %s | filecheck %s --check-prefix=PLAN
// RUN: cann-opt --assign-layouts --cann-to-kernel --plan-memory='report=true' %s -o /dev/null 2>&1 | filecheck %s --check-prefix=REPORT

// cann.If / Case / While become the host-side kernel.if / case / while naming the same functions;
// the functions are lowered like @main (layouts too: the conv in @conv_branch gets NC1HWC0 /
// FRACTAL_Z and conversions at its boundary, which stays in the origin layout; with C = C0 = 16
// NC1HWC0 has the bytes of NHWC, so each conversion is a kernel.view, no launch).

// CHECK-LABEL: func.func @main(
// CHECK-NEXT: %0 = kernel.if %p, %x {then_branch = @conv_branch, else_branch = @relu} : (tensor<i1>, tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32>
// CHECK-NEXT: %1 = kernel.case %i, %x {branches = [@relu, @neg]} : (tensor<i32>, tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32>
// CHECK-NEXT: %2, %3 = kernel.while %n, %0 {cond = @nonzero, body = @step} : (tensor<i32>, tensor<1x4x4x16xf32>) -> (tensor<i32>, tensor<1x4x4x16xf32>)
// CHECK-NEXT: func.return %1, %3
func.func @main(%p: tensor<i1>, %i: tensor<i32>, %n: tensor<i32>, %x: tensor<1x4x4x16xf32>) -> (tensor<1x4x4x16xf32>, tensor<1x4x4x16xf32>) {
  %0 = cann.If %p, %x {then_branch = @conv_branch, else_branch = @relu} : (tensor<i1>, tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32> loc("cond")
  %1 = cann.Case %i, %x {branches = [@relu, @neg]} : (tensor<i32>, tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32> loc("case")
  %2, %3 = cann.While %n, %0 {cond = @nonzero, body = @step} : (tensor<i32>, tensor<1x4x4x16xf32>) -> (tensor<i32>, tensor<1x4x4x16xf32>) loc("loop")
  func.return %1, %3 : tensor<1x4x4x16xf32>, tensor<1x4x4x16xf32>
}

// CHECK-LABEL: func.func private @conv_branch(
// CHECK: kernel.view {{.*}}NC1HWC0
// CHECK: kernel.cube {{.*}}kind = "Conv2D"
// CHECK: kernel.view
// CHECK: func.return {{.*}} : tensor<1x4x4x16xf32>
func.func private @conv_branch(%a: tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32> {
  %w = cann.Const dense<0.5> : tensor<1x1x16x16xf32>
  %y = cann.Conv2D %a, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x4x4x16xf32>, tensor<1x1x16x16xf32>) -> tensor<1x4x4x16xf32> loc("branch/conv")
  func.return %y : tensor<1x4x4x16xf32>
}

// CHECK-LABEL: func.func private @relu(
// CHECK-NEXT: kernel.vec_kernel %a {kind = "Elementwise"
func.func private @relu(%a: tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32> {
  %y = cann.Relu %a : (tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32> loc("relu")
  func.return %y : tensor<1x4x4x16xf32>
}

func.func private @neg(%a: tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32> {
  %y = cann.Neg %a : (tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32> loc("neg")
  func.return %y : tensor<1x4x4x16xf32>
}

// The loop's cond reads the counter (Cast to a predicate), the body counts down and carries %a.
// CHECK-LABEL: func.func private @nonzero(
// CHECK-NEXT: kernel.vec_kernel %k {{.*}} : (tensor<i32>) -> tensor<i1>
func.func private @nonzero(%k: tensor<i32>, %a: tensor<1x4x4x16xf32>) -> tensor<i1> {
  %c = cann.Cast %k {dst_type = i1} : (tensor<i32>) -> tensor<i1> loc("loop/cond")
  func.return %c : tensor<i1>
}

func.func private @step(%k: tensor<i32>, %a: tensor<1x4x4x16xf32>) -> (tensor<i32>, tensor<1x4x4x16xf32>) {
  %one = cann.Const dense<1> : tensor<i32>
  %k1 = cann.Sub %k, %one : (tensor<i32>, tensor<i32>) -> tensor<i32> loc("loop/dec")
  %h = cann.Mul %a, %a : (tensor<1x4x4x16xf32>, tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32> loc("loop/square")
  %a1 = cann.Sigmoid %h : (tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32> loc("loop/sigmoid")
  func.return %k1, %a1 : tensor<i32>, tensor<1x4x4x16xf32>
}

// Each function is planned by itself, callees first; a control op's workspace holds its
// functions' largest arena after, for the while, two sets of loop-variable buffers (512 + 1024 B
// each, aligned) and the predicate (512 B): 2 * 1536 + 512 + 1024 (@step: %h) = 4608 B.
// PLAN: kernel.if %p, %x {mem.offsets = array<i64: [[IF:[0-9]+]]>, mem.workspace = array<i64: {{[0-9]+}}, [[CONVWS:[0-9]+]]>
// PLAN: kernel.while %n, %0 {mem.offsets = array<i64: {{[0-9]+}}, -1>, mem.workspace = array<i64: {{[0-9]+}}, 4608>
// PLAN: func.func private @step(
// PLAN-SAME: mem.plan = {alignment = 512 : i64, arena = 1024 : i64

// REPORT-DAG: plan-memory: @conv_branch: arena
// REPORT-DAG: plan-memory: @step: arena 1024 B
// REPORT: plan-memory: @main: arena
