// The worked example of docs/fusion-rules.md: the rule Relu6OfReluFusion
// (Inputs/relu6_of_relu.rules) turns Relu6(Relu(x)) into Relu6(x); a switch file or `disable`
// turns it off (the error case is fusion_rule_errors.mlir).
// RUN: cann-opt --fuse='rules=%S/Inputs/relu6_of_relu.rules' %s | filecheck %s
// RUN: cann-opt --fuse='rules=%S/Inputs/relu6_of_relu.rules' --print-debuginfo %s | filecheck %s --check-prefix=LOC
// RUN: cann-opt --fuse='rules=%S/Inputs/relu6_of_relu.rules switch_file=%S/Inputs/relu6_of_relu_off.cfg' %s | filecheck %s --check-prefix=OFF
// RUN: cann-opt --fuse='rules=%S/Inputs/relu6_of_relu.rules switch_file=%S/Inputs/relu6_of_relu_off.json' %s | filecheck %s --check-prefix=OFF
// RUN: cann-opt --fuse='rules=%S/Inputs/relu6_of_relu.rules disable=Relu6OfReluFusion' %s | filecheck %s --check-prefix=OFF
// RUN: cann-opt --fuse='rules=%S/Inputs/relu6_of_relu.rules report=-' %s 2>&1 >/dev/null | filecheck %s --check-prefix=REPORT

// CHECK-LABEL: func.func @relu6_of_relu
// CHECK-NEXT: %[[Y:.*]] = cann.Relu6 %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: func.return %[[Y]]
// The new op carries the locations of both ops it replaced.
// LOC: cann.Relu6 %x : (tensor<2x8xf32>) -> tensor<2x8xf32> loc(fused["act/Relu", "act/Relu6"])
// Off: the two ops stay (the automatic fusion still makes them one FusedKernel).
// OFF-LABEL: func.func @relu6_of_relu
// OFF: cann.FusedKernel
// OFF-NEXT: ^bb0
// OFF-NEXT: cann.Relu
// OFF-NEXT: cann.Relu6
// REPORT: Relu6OfReluFusion {{ +}}100 on {{ +}}1
func.func @relu6_of_relu(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %r = cann.Relu %x : (tensor<2x8xf32>) -> tensor<2x8xf32> loc("act/Relu")
  %y = cann.Relu6 %r : (tensor<2x8xf32>) -> tensor<2x8xf32> loc("act/Relu6")
  func.return %y : tensor<2x8xf32>
}

// A Relu something else reads is not matched (a non-root node has no consumer outside the match);
// the automatic fusion then makes both one FusedKernel, the Relu its extra result.
// CHECK-LABEL: func.func @relu_read_twice
// CHECK-NEXT: %[[Y:.*]], %[[R:.*]] = cann.FusedKernel %x
// CHECK-NEXT: ^bb0
// CHECK-NEXT: %[[R2:.*]] = cann.Relu %{{.*}}
// CHECK-NEXT: %[[Y2:.*]] = cann.Relu6 %[[R2]]
// CHECK-NEXT: cann.Yield %[[Y2]], %[[R2]]
// CHECK: func.return %[[R]], %[[Y]]
func.func @relu_read_twice(%x: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>) {
  %r = cann.Relu %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %y = cann.Relu6 %r : (tensor<2x8xf32>) -> tensor<2x8xf32>
  func.return %r, %y : tensor<2x8xf32>, tensor<2x8xf32>
}
