// A convolution and its two gradients, for the backend pipeline's
// keep-convolutions option (amp-decompose-keep-convolutions.mlir).
func.func @layers(%x: tensor<2x3x6x6xf16>, %w: tensor<4x3x3x3xf16>, %dy: tensor<2x4x3x3xf16>)
    -> (tensor<2x4x3x3xf16>, tensor<2x3x6x6xf16>, tensor<4x3x3x3xf16>) {
  %y = amp.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1>}
      : tensor<2x3x6x6xf16>, tensor<4x3x3x3xf16> to tensor<2x4x3x3xf16>
  %dx = amp.conv2d_grad_input %dy, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1>}
      : tensor<2x4x3x3xf16>, tensor<4x3x3x3xf16> to tensor<2x3x6x6xf16>
  %dw = amp.conv2d_grad_weight %x, %dy {strides = array<i64: 2, 2>, padding = array<i64: 1, 1>}
      : tensor<2x3x6x6xf16>, tensor<2x4x3x3xf16> to tensor<4x3x3x3xf16>
  return %y, %dx, %dw : tensor<2x4x3x3xf16>, tensor<2x3x6x6xf16>, tensor<4x3x3x3xf16>
}
