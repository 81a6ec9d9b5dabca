// An amp.inner_grad written by hand on an f16 amp.mul (amp-expand-grads
// unscales in f32): the check for inf and NaN reads f32.
func.func @by_hand(%x: tensor<3xf16>, %w: tensor<3xf32> {amp.param}) -> tensor<f32> {
  %u = amp.mul %x, %x {amp.inner_grad} : tensor<3xf16>, tensor<3xf16>
  %c = amp.cast %u : tensor<3xf16> to tensor<3xf32>
  %m = amp.mul %c, %w : tensor<3xf32>, tensor<3xf32>
  %l = amp.sum %m dims = [0] : tensor<3xf32> to tensor<f32>
  return %l : tensor<f32>
}
