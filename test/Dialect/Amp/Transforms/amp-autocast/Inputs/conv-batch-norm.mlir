// A convolution feeding batch norm, for batch-norm-report.test.
func.func @bn(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %rm: tensor<4xf32>, %rv: tensor<4xf32>) -> tensor<2x4x8x8xf32> {
  %y = amp.conv2d %x, %w {padding = array<i64: 1, 1>} : tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32> to tensor<2x4x8x8xf32>
  %n:3 = amp.batch_norm %y running(%rm, %rv : tensor<4xf32>) {training} : tensor<2x4x8x8xf32>
  return %n#0 : tensor<2x4x8x8xf32>
}
