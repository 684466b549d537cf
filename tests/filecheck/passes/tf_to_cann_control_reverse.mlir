// ReverseV2 of constant axes (Keras's Bidirectional reverses the time axis around the backward
// recurrent loop): one GatherV2D per reversed axis with the indices n-1 .. 0; a size-1 axis is
// left alone.
// RUN: cann-opt --tf-to-cann %s | filecheck %s

// CHECK:      func.func @main(%[[X:.*]]: tensor<1x3x2xf32>) -> tensor<1x3x2xf32>
// CHECK:        %[[IDX:.*]] = cann.Const dense<[2, 1, 0]> : tensor<3xi32>
// CHECK-NEXT:   %[[Y:.*]] = cann.GatherV2D %[[X]], %[[IDX]] {axis = 1 : i64} : (tensor<1x3x2xf32>, tensor<3xi32>) -> tensor<1x3x2xf32>
// CHECK-NEXT:   func.return %[[Y]]
func.func @main(%x: tensor<1x3x2xf32>) -> tensor<1x3x2xf32> {
  %axis = tf.Const dense<[0, 1]> : tensor<2xi32>
  %y = tf.ReverseV2 %x, %axis {T = f32, Tidx = i32} : (tensor<1x3x2xf32>, tensor<2xi32>) -> tensor<1x3x2xf32>
  func.return %y : tensor<1x3x2xf32>
}
