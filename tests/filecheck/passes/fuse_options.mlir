// fuse's options: user rule files, ATC switch files (text and JSON), the report, malformed
// rule files (file:line:col, exit 1).
// RUN: cann-opt --fuse='rules=%S/Inputs/user.rules' %s | filecheck %s --check-prefix=USER
// RUN: cann-opt --fuse --fusion-switch-file=%S/Inputs/switch.cfg %s 2>%t.err | filecheck %s --check-prefix=SWITCH
// RUN: filecheck %s --check-prefix=SWITCHWARN < %t.err
// RUN: cann-opt --fuse='switch-file=%S/Inputs/switch.json' %s | filecheck %s --check-prefix=JSON
// RUN: not cann-opt --fuse='switch-file=%S/Inputs/bad_switch.cfg' %s 2>&1 | filecheck %s --check-prefix=BADSWITCH
// RUN: not cann-opt --fuse='rules=%S/Inputs/bad_syntax.rules' %s 2>&1 | filecheck %s --check-prefix=SYNTAX
// RUN: not cann-opt --fuse='rules=%S/Inputs/bad_helper.rules' %s 2>&1 | filecheck %s --check-prefix=HELPER
// RUN: cann-opt --fuse --fusion-report=- %s 2>&1 >/dev/null | filecheck %s --check-prefix=TABLE
// RUN: cann-opt --fuse --fusion-report=%t.txt %s -o /dev/null && filecheck %s --check-prefix=TABLE < %t.txt

// USER-LABEL: func.func @relu_relu
// USER-NEXT:    %[[F:.*]] = cann.FusedConv2D {{.*}}activation = "Relu"
// USER-NEXT:    func.return %[[F]]
// SWITCH-LABEL: func.func @relu_relu
// SWITCH-NEXT:    cann.Conv2D
// SWITCH-NEXT:    cann.FusedKernel %0
// SWITCH-NEXT:    ^bb0(%[[A:.*]]: tensor<1x8x8x4xf32>):
// SWITCH-NEXT:      %[[R:.*]] = cann.Relu %[[A]]
// SWITCH-NEXT:      cann.Relu %[[R]]
// SWITCHWARN: warning: {{.*}}switch.cfg: unknown fusion rule 'SoftmaxFusionPass' ignored
// JSON-LABEL: func.func @relu_relu
// JSON-NEXT:    cann.Conv2D
// BADSWITCH: switch.cfg:1:21: error: expected 'on' or 'off', got 'maybe'
// SYNTAX: bad_syntax.rules:4:3: error: unexpected '}'
// HELPER: bad_helper.rules:6:11: error: unknown helper function 'no_such_helper'
// TABLE: fusion report: kernels 3 -> 1, 1 fusions
// TABLE: TbeConv2DReluFusion {{ *}}100 on {{ *}}1
// TABLE: automatic fusion: 1 pointwise ops in 1 fused kernels (1 of them cube epilogues)
func.func @relu_relu(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32> {
  %0 = cann.Conv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32>
  %1 = cann.Relu %0 : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  %2 = cann.Relu %1 : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  func.return %2 : tensor<1x8x8x4xf32>
}
