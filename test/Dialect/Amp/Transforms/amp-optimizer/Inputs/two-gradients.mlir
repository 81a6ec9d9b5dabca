// Two gradient functions of one function (errors.test): the second step
// would have the first one's name.
func.func @f(%w: tensor<4xf32> {amp.param}) -> tensor<f32> {
  %l = amp.sum %w dims = [0] : tensor<4xf32> to tensor<f32>
  return %l : tensor<f32>
}
func.func @f_grad(%w: tensor<4xf32> {amp.param}) -> (tensor<f32>, tensor<4xf32>) attributes {amp.gradient_of = @f} {
  %l = amp.sum %w dims = [0] : tensor<4xf32> to tensor<f32>
  return %l, %w : tensor<f32>, tensor<4xf32>
}
func.func @f_grad2(%w: tensor<4xf32> {amp.param}) -> (tensor<f32>, tensor<4xf32>) attributes {amp.gradient_of = @f} {
  %l = amp.sum %w dims = [0] : tensor<4xf32> to tensor<f32>
  return %l, %w : tensor<f32>, tensor<4xf32>
}
