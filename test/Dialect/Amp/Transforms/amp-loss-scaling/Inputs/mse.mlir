// A linear model with an mse loss (edge-cases.test).
func.func @f(%w: tensor<8x4xf32> {amp.param}, %x: tensor<16x8xf32>, %t: tensor<16x4xf32>) -> tensor<f32> {
  %y = amp.matmul %x, %w : tensor<16x8xf32>, tensor<8x4xf32> to tensor<16x4xf32>
  %l = amp.mse_loss %y, %t : tensor<16x4xf32>, tensor<16x4xf32> to tensor<f32>
  return %l : tensor<f32>
}
