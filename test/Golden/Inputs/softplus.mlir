// softplus and a weighted sum of it, whose gradient in x is
// weights * sigmoid(x) (x itself past the threshold).
func.func @forward(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %y = amp.softplus %x : tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

func.func @weighted(%x: tensor<4x16xf32> {amp.param}, %w: tensor<4x16xf32>) -> tensor<f32> {
  %y = amp.softplus %x : tensor<4x16xf32>
  %yw = amp.mul %y, %w : tensor<4x16xf32>, tensor<4x16xf32>
  %loss = amp.sum %yw dims = [0, 1] : tensor<4x16xf32> to tensor<f32>
  return %loss : tensor<f32>
}
