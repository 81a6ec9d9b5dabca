// Parameters in f16: loss scaling refuses them, as GradScaler does.
func.func @half_params(%w: tensor<4xf16> {amp.param}) -> tensor<f32> {
  %s = amp.sum %w dims = [0] : tensor<4xf16> to tensor<f32>
  return %s : tensor<f32>
}
