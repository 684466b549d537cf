func.func @bad(%x: tensor<3x1x3xf32>, %w: tensor<5x8xf32>, %b: tensor<8xf32>, %h: tensor<1x1x2xf32>) -> tensor<3x1x2xf32> {
  %y, %yh, %yc = cann.DynamicRNN %x, %w, %b, %h, %h {cell_type = "LSTM", direction = "UNIDIRECTIONAL", time_major = 1 : i64, activation = "tanh", forget_bias = 0.0 : f32, gate_order = "iofj"} : (tensor<3x1x3xf32>, tensor<5x8xf32>, tensor<8xf32>, tensor<1x1x2xf32>, tensor<1x1x2xf32>) -> (tensor<3x1x2xf32>, tensor<3x1x2xf32>, tensor<3x1x2xf32>)
  func.return %y : tensor<3x1x2xf32>
}
