// A linear layer and 2-D batch norm in training mode whose running
// statistics are buffers, trained in f16 with dynamic loss scaling.
func.func @tiny_bn(%w: tensor<16x4xf32> {amp.param}, %x: tensor<8x16xf32>,
                   %y: tensor<8xi64>, %mean: tensor<4xf32> {amp.buffer},
                   %var: tensor<4xf32> {amp.buffer = 1.0}) -> tensor<f32> {
  %h = amp.matmul %x, %w : tensor<8x16xf32>, tensor<16x4xf32> to tensor<8x4xf32>
  %n:3 = amp.batch_norm %h running(%mean, %var : tensor<4xf32>) {training}
      : tensor<8x4xf32>
  %loss = amp.cross_entropy %n#0, %y : tensor<8x4xf32>, tensor<8xi64> to tensor<f32>
  return %loss : tensor<f32>
}
