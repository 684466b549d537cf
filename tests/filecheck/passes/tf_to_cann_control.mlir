// RUN: cann-opt --tf-to-cann %s | filecheck %s
// RUN: cann-opt --tf-to-cann --print-debuginfo %s | filecheck %s --check-prefix=LOC
// RUN: cann-opt --tf-to-cann --legalization-report %s 2>&1 >/dev/null | filecheck %s --check-prefix=REPORT

// Functional control flow: If/StatelessIf -> cann.If, Case/StatelessCase -> cann.Case,
// While/StatelessWhile -> cann.While; the branch/cond/body functions stay func.func symbols (plain
// `@f` or `#tf.func<@f, {...}>`) and are legalized like @main.  PartitionedCall and
// StatefulPartitionedCall are inlined (nested calls too); the inlined callees, unreferenced
// afterwards, are dropped, and the inlined ops keep their own node names.  The report counts
// after inlining: a call per call site (the copy of @nested's call too), an inlined op per copy.

// LOC: cann.Add %x, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32> loc("twice/add")
// LOC: cann.Add %x, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32> loc("twice/add")
// LOC: cann.Tanh {{.*}} loc("nested/tanh")

// REPORT: legalization report:
// REPORT: PartitionedCall          3      (inlined)  0     0
// REPORT: StatefulPartitionedCall  1      (inlined)  0     0
// REPORT: StatelessCase            1      Case       0     0
// REPORT: StatelessIf              1      If         0     0
// REPORT: StatelessWhile           1      While      0     0
// REPORT: While                    1      While      0     0
// REPORT: total {{[0-9]+}} tf ops: {{[0-9]+}} legalized, 0 on the host, 0 failed

// CHECK-LABEL: func.func @main(
// CHECK-NEXT: %0 = cann.If %p, %x {then_branch = @neg, else_branch = @relu} : (tensor<i1>, tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT: %1 = cann.If %p, %x {then_branch = @neg, else_branch = @relu} : (tensor<i1>, tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT: %2 = cann.Case %i, %x {branches = [@neg, @relu]} : (tensor<i32>, tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT: %3 = cann.Case %i, %x {branches = [@relu, @neg, @relu]} : (tensor<i32>, tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT: %4, %5 = cann.While %i, %x {cond = @below3, body = @step, parallel_iterations = 10 : i64} : (tensor<i32>, tensor<2xf32>) -> (tensor<i32>, tensor<2xf32>)
// CHECK-NEXT: %6, %7 = cann.While %i, %x {cond = @below3, body = @step} : (tensor<i32>, tensor<2xf32>) -> (tensor<i32>, tensor<2xf32>)
// CHECK-NEXT: %8 = cann.Add %x, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT: %9 = cann.Add %x, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT: %10 = cann.Tanh %9 : (tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT: func.return %0, %1, %2, %3, %4, %5, %6, %7, %8, %10 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<i32>, tensor<2xf32>, tensor<i32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
func.func @main(%p: tensor<i1>, %i: tensor<i32>, %x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<i32>, tensor<2xf32>, tensor<i32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %0 = "tf.If"(%p, %x) {then_branch = @neg, else_branch = @relu, Tcond = i1, Tin = [f32], Tout = [f32], is_stateless = false} : (tensor<i1>, tensor<2xf32>) -> tensor<2xf32> loc("if")
  %1 = "tf.StatelessIf"(%p, %x) {then_branch = #tf.func<@neg, {}>, else_branch = @relu, Tcond = i1, Tin = [f32], Tout = [f32]} : (tensor<i1>, tensor<2xf32>) -> tensor<2xf32> loc("stateless_if")
  %2 = "tf.Case"(%i, %x) {branches = [@neg, @relu], Tin = [f32], Tout = [f32]} : (tensor<i32>, tensor<2xf32>) -> tensor<2xf32> loc("case")
  %3 = "tf.StatelessCase"(%i, %x) {branches = [@relu, @neg, @relu], Tin = [f32], Tout = [f32]} : (tensor<i32>, tensor<2xf32>) -> tensor<2xf32> loc("stateless_case")
  %4:2 = "tf.While"(%i, %x) {cond = @below3, body = @step, T = [i32, f32], parallel_iterations = 10 : i64, is_stateless = false} : (tensor<i32>, tensor<2xf32>) -> (tensor<i32>, tensor<2xf32>) loc("while")
  %5:2 = "tf.StatelessWhile"(%i, %x) {cond = @below3, body = @step, T = [i32, f32]} : (tensor<i32>, tensor<2xf32>) -> (tensor<i32>, tensor<2xf32>) loc("stateless_while")
  %6 = "tf.PartitionedCall"(%x) {f = @twice, Tin = [f32], Tout = [f32]} : (tensor<2xf32>) -> tensor<2xf32> loc("call")
  %7 = "tf.StatefulPartitionedCall"(%x) {f = #tf.func<@nested, {}>, Tin = [f32], Tout = [f32]} : (tensor<2xf32>) -> tensor<2xf32> loc("stateful_call")
  func.return %0, %1, %2, %3, %4#0, %4#1, %5#0, %5#1, %6, %7 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<i32>, tensor<2xf32>, tensor<i32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

// CHECK-LABEL: func.func private @neg(
// CHECK-NEXT: %0 = cann.Neg %a : (tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT: func.return %0 : tensor<2xf32>
func.func private @neg(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "tf.Neg"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// CHECK-LABEL: func.func private @relu(
// CHECK-NEXT: %0 = cann.Relu %a : (tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT: func.return %0 : tensor<2xf32>
func.func private @relu(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "tf.Relu"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  %1 = "tf.Identity"(%0) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %1 : tensor<2xf32>
}

// CHECK-LABEL: func.func private @below3(
// CHECK-NEXT: %c = cann.Const dense<3> : tensor<i32>
// CHECK-NEXT: %0 = cann.Less %k, %c : (tensor<i32>, tensor<i32>) -> tensor<i1>
// CHECK-NEXT: func.return %0 : tensor<i1>
func.func private @below3(%k: tensor<i32>, %a: tensor<2xf32>) -> tensor<i1> {
  %c = "tf.Const"() {value = dense<3> : tensor<i32>} : () -> tensor<i32>
  %0 = "tf.Less"(%k, %c) : (tensor<i32>, tensor<i32>) -> tensor<i1>
  func.return %0 : tensor<i1>
}

// CHECK-LABEL: func.func private @step(
// CHECK-NEXT: %c = cann.Const dense<1> : tensor<i32>
// CHECK-NEXT: %0 = cann.Add %k, %c : (tensor<i32>, tensor<i32>) -> tensor<i32>
// CHECK-NEXT: %1 = cann.Sigmoid %a : (tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT: func.return %0, %1 : tensor<i32>, tensor<2xf32>
func.func private @step(%k: tensor<i32>, %a: tensor<2xf32>) -> (tensor<i32>, tensor<2xf32>) {
  %c = "tf.Const"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
  %0 = "tf.AddV2"(%k, %c) : (tensor<i32>, tensor<i32>) -> tensor<i32>
  %1 = "tf.Sigmoid"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0, %1 : tensor<i32>, tensor<2xf32>
}

func.func private @twice(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "tf.AddV2"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32> loc("twice/add")
  func.return %0 : tensor<2xf32>
}

func.func private @nested(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "tf.PartitionedCall"(%a) {f = @twice, Tin = [f32], Tout = [f32]} : (tensor<2xf32>) -> tensor<2xf32> loc("nested/call")
  %1 = "tf.Tanh"(%0) : (tensor<2xf32>) -> tensor<2xf32> loc("nested/tanh")
  func.return %1 : tensor<2xf32>
}

// The inlined callees are gone (checked after the last function kept, @step).
// CHECK-NOT: @twice
// CHECK-NOT: @nested
