// f16 attention whose raw scores q.k (about 16 * 103^2 = 1.7e5) are beyond
// f16 and fit only after the scale (1/4: about 4.2e4), as in the forward
// op, which keeps them in f32; precision.test checks the gradient.
func.func @a(%x: tensor<1x1x2x16xf16> {amp.param}) -> tensor<f32> {
  %c = amp.constant dense<103.0> : tensor<f16>
  %q = amp.add %x, %c : tensor<1x1x2x16xf16>, tensor<f16>
  %o = amp.attention %q, %q, %x : tensor<1x1x2x16xf16>, tensor<1x1x2x16xf16>, tensor<1x1x2x16xf16>
  %w = amp.cast %o : tensor<1x1x2x16xf16> to tensor<1x1x2x16xf32>
  %l = amp.sum %w dims = [0, 1, 2, 3] : tensor<1x1x2x16xf32> to tensor<f32>
  return %l : tensor<f32>
}
