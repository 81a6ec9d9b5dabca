// A linear classifier computed in f16 with f32 master parameters, its loss
// weighted by 1e-7: the f16 logit gradients (about 1e-9) underflow to zero
// unless the loss is scaled.
func.func @tiny(%w: tensor<16x4xf32> {amp.param}, %x: tensor<8x16xf32>, %y: tensor<8xi64>) -> tensor<f32> {
  %wh = amp.cast %w : tensor<16x4xf32> to tensor<16x4xf16>
  %xh = amp.cast %x : tensor<8x16xf32> to tensor<8x16xf16>
  %logits = amp.matmul %xh, %wh {acc_type = f32} : tensor<8x16xf16>, tensor<16x4xf16> to tensor<8x4xf16>
  %ce = amp.cross_entropy %logits, %y : tensor<8x4xf16>, tensor<8xi64> to tensor<f32>
  %weight = amp.constant dense<1.0e-7> : tensor<f32>
  %loss = amp.mul %ce, %weight : tensor<f32>, tensor<f32>
  return %loss : tensor<f32>
}
