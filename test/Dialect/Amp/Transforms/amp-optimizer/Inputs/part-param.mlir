// A part of the loss named as a parameter of the step. (errors.test)
// The first part's name is free: the second's is not.
func.func @reported(%w: tensor<3xf32> {amp.param}) -> (tensor<f32>, tensor<f32>, tensor<f32> {amp.name = "w"}) {
  %loss = amp.sum %w dims = [0] : tensor<3xf32> to tensor<f32>
  %mean = amp.mean %w dims = [0] : tensor<3xf32> to tensor<f32>
  return %loss, %mean, %mean : tensor<f32>, tensor<f32>, tensor<f32>
}
