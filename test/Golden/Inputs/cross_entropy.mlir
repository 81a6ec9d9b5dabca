// Cross-entropy with PyTorch's padding label, mean and summed, for
// cross-entropy.test.
func.func @mean(%logits: tensor<2x6x5xf32> {amp.param}, %labels: tensor<2x6xi64>) -> tensor<f32> {
  %l = amp.cross_entropy %logits, %labels ignore_index = -100 : tensor<2x6x5xf32>, tensor<2x6xi64> to tensor<f32>
  return %l : tensor<f32>
}

func.func @sum(%logits: tensor<2x6x5xf32> {amp.param}, %labels: tensor<2x6xi64>) -> tensor<f32> {
  %l = amp.cross_entropy %logits, %labels reduction = sum ignore_index = -100 : tensor<2x6x5xf32>, tensor<2x6xi64> to tensor<f32>
  return %l : tensor<f32>
}
