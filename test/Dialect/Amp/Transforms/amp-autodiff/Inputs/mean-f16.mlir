// An f16 mean over 131072 elements: its count is inf in f16.
func.func @m(%x: tensor<256x512xf16> {amp.param}) -> tensor<f32> {
  %y = amp.mean %x dims = [0, 1] : tensor<256x512xf16> to tensor<f16>
  %l = amp.cast %y : tensor<f16> to tensor<f32>
  return %l : tensor<f32>
}
func.func @m32(%x: tensor<256x512xf16> {amp.param}) -> tensor<f32> {
  %y = amp.mean %x dims = [0, 1] : tensor<256x512xf16> to tensor<f32>
  return %y : tensor<f32>
}
