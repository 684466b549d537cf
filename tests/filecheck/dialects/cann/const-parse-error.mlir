// RUN: not cann-opt %s 2>&1 | filecheck %s
// Regression test (this was a known bug, now fixed; see below).
// Known dialect bug: cann.Const's custom parser raises "expects a dense elements attribute" at
// the token *after* the attribute (here the next line, 11:3) instead of at the attribute (10:19).
// It was fixed when ConstOp.parse passes the attribute's position to raise_error.

func.func @const_not_dense() {
  // CHECK: const-parse-error.mlir:10:19: error: cann.Const expects a dense elements attribute
  // CHECK-NOT: error:
  %c = cann.Const 1.0 : f32
  func.return
}
