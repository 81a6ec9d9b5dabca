// A model with an argument named as a hyperparameter of its step.
func.func @scaled(%w: tensor<3xf32> {amp.param}, %lr: tensor<3xf32>) -> tensor<f32> {
  %p = amp.mul %w, %lr : tensor<3xf32>, tensor<3xf32>
  %l = amp.sum %p dims = [0] : tensor<3xf32> to tensor<f32>
  return %l : tensor<f32>
}
