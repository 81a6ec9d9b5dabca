// One value broadcast to 2^31 + 5 elements and summed: 16 GiB of the
// interpreter's doubles.
func.func @h(%x: tensor<1xf32>, %w: tensor<1xf32> {amp.param}) -> tensor<f32> {
  %m = amp.mul %x, %w : tensor<1xf32>, tensor<1xf32>
  %b = amp.broadcast_to %m : tensor<1xf32> to tensor<2147483653xf32>
  %s = amp.sum %b dims = [0] : tensor<2147483653xf32> to tensor<f32>
  return %s : tensor<f32>
}
