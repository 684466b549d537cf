// RUN: cann-opt --fold-constants %s | filecheck %s
// fold-constants evaluates cann.FillD, cann.Range and cann.MatrixBandPart of constant operands
// with their cann semantics (compiler/interpreters/cann_impl.py) into a cann.Const, as
// tf-to-cann's Fill / Range / MatrixBandPart rows need (they emit these ops only for constant
// inputs); of a run-time operand they stay.

// CHECK-LABEL: func.func @folded
// CHECK-NEXT:    %[[F:.*]] = cann.Const dense<7> : tensor<2x2xi32>
// CHECK-NEXT:    %[[R:.*]] = cann.Const dense<[5.000000e+00, 3.500000e+00, 2.000000e+00]> : tensor<3xf32>
// CHECK-NEXT:    %[[B:.*]] = cann.Const dense<{{\[\[\[}}1.000000e+00, 1.000000e+00, 0.000000e+00], [0.000000e+00, 1.000000e+00, 1.000000e+00]]]> : tensor<1x2x3xf32>
// CHECK-NEXT:    func.return %[[F]], %[[R]], %[[B]]
func.func @folded() -> (tensor<2x2xi32>, tensor<3xf32>, tensor<1x2x3xf32>) {
  %v = cann.Const dense<7> : tensor<i32>
  %f = cann.FillD %v {dims = array<i64: 2, 2>} : (tensor<i32>) -> tensor<2x2xi32>
  %s = cann.Const dense<5.0> : tensor<f32>
  %l = cann.Const dense<1.0> : tensor<f32>
  %d = cann.Const dense<-1.5> : tensor<f32>
  %r = cann.Range %s, %l, %d : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<3xf32>
  %x = cann.Const dense<1.0> : tensor<1x2x3xf32>
  %lo = cann.Const dense<0> : tensor<i64>
  %up = cann.Const dense<1> : tensor<i64>
  %b = cann.MatrixBandPart %x, %lo, %up : (tensor<1x2x3xf32>, tensor<i64>, tensor<i64>) -> tensor<1x2x3xf32>
  func.return %f, %r, %b : tensor<2x2xi32>, tensor<3xf32>, tensor<1x2x3xf32>
}

// CHECK-LABEL: func.func @runtime
// CHECK:         cann.MatrixBandPart %x, %lo, %up
func.func @runtime(%x: tensor<3x3xf32>) -> tensor<3x3xf32> {
  %lo = cann.Const dense<-1> : tensor<i64>
  %up = cann.Const dense<0> : tensor<i64>
  %b = cann.MatrixBandPart %x, %lo, %up : (tensor<3x3xf32>, tensor<i64>, tensor<i64>) -> tensor<3x3xf32>
  func.return %b : tensor<3x3xf32>
}
