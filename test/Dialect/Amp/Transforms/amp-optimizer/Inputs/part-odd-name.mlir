// A part of the loss whose name is no plain name. (errors.test)
// The name is a key of the training log and a file name.
func.func @reported(%w: tensor<3xf32> {amp.param}) -> (tensor<f32>, tensor<f32> {amp.name = "a \"quoted\" name"}) {
  %loss = amp.sum %w dims = [0] : tensor<3xf32> to tensor<f32>
  %mean = amp.mean %w dims = [0] : tensor<3xf32> to tensor<f32>
  return %loss, %mean : tensor<f32>, tensor<f32>
}
