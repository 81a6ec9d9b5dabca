// A batch of zero rows (errors.test): it trained silently (loss NaN, exit
// 0); the verifier refuses it before anything runs.
func.func @g(%w: tensor<4x3xf32> {amp.param}, %x: tensor<0x4xf32>, %t: tensor<0x3xf32>) -> tensor<f32> {
  %h = amp.matmul %x, %w : tensor<0x4xf32>, tensor<4x3xf32> to tensor<0x3xf32>
  %l = amp.mse_loss %h, %t : tensor<0x3xf32>, tensor<0x3xf32> to tensor<f32>
  return %l : tensor<f32>
}
