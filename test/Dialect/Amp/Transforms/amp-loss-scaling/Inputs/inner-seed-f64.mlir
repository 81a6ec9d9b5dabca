// An amp.inner_seed written by hand in f64 (amp-expand-grads makes f32
// ones): not the loss scale's type.
func.func @by_hand(%x: tensor<3xf32>, %w: tensor<3xf32> {amp.param}) -> tensor<f32> {
  %seed = amp.constant {amp.inner_seed} dense<1.0> : tensor<f64>
  %s = amp.cast %seed : tensor<f64> to tensor<f32>
  %m = amp.mul %s, %w : tensor<f32>, tensor<3xf32>
  %l = amp.sum %m dims = [0] : tensor<3xf32> to tensor<f32>
  return %l : tensor<f32>
}
