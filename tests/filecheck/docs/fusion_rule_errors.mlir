// docs/fusion-rules.md: a rule file with a misspelt helper is one error naming the file, the
// line:col and the helper; nothing is compiled.
// RUN: not cann-opt --fuse='rules=%S/Inputs/relu6_of_relu_typo.rules' %s 2>&1 | filecheck %s

// CHECK: relu6_of_relu_typo.rules:7:11: error: unknown helper function 'same_typ'; known: act,
func.func @f(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %r = cann.Relu %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %y = cann.Relu6 %r : (tensor<2x8xf32>) -> tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}
