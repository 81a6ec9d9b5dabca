// A part of the loss named as a field of amp-step's progress lines.
// (errors.test)
func.func @reported(%w: tensor<3xf32> {amp.param}) -> (tensor<f32>, tensor<f32>) {
  %loss = amp.sum %w dims = [0] : tensor<3xf32> to tensor<f32>
  %scale = amp.mean %w dims = [0] : tensor<3xf32> to tensor<f32>
  return %loss, %scale : tensor<f32>, tensor<f32>
}
