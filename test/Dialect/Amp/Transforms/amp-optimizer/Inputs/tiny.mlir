// A small graph for the optimizer option tests.
func.func @tiny(%w: tensor<3xf32> {amp.param}) -> tensor<f32> {
  %l = amp.sum %w dims = [0] : tensor<3xf32> to tensor<f32>
  return %l : tensor<f32>
}
