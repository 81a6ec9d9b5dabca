// tiny-f16.mlir without the f16 casts and the loss weight.
func.func @tiny(%w: tensor<16x4xf32> {amp.param}, %x: tensor<8x16xf32>, %y: tensor<8xi64>) -> tensor<f32> {
  %logits = amp.matmul %x, %w : tensor<8x16xf32>, tensor<16x4xf32> to tensor<8x4xf32>
  %loss = amp.cross_entropy %logits, %y : tensor<8x4xf32>, tensor<8xi64> to tensor<f32>
  return %loss : tensor<f32>
}
