// An f16 parameter (clip-f16.test).
func.func @f(%w: tensor<2xf16> {amp.param}, %x: tensor<2xf16>) -> tensor<f32> {
  %y = amp.mul %w, %x : tensor<2xf16>, tensor<2xf16>
  %loss = amp.sum %y dims = [0] : tensor<2xf16> to tensor<f32>
  return %loss : tensor<f32>
}
