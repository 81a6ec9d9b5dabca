// One parameter without elements (gradcheck-edge.test): refused when the
// module is verified, before gradcheck or autodiff see it.
func.func @e(%w: tensor<0x3xf32> {amp.param}, %v: tensor<3xf32> {amp.param}, %x: tensor<3xf32>) -> tensor<f32> {
  %s = amp.sum %w dims = [0] : tensor<0x3xf32> to tensor<3xf32>
  %y = amp.add %s, %v : tensor<3xf32>, tensor<3xf32>
  %z = amp.mul %y, %x : tensor<3xf32>, tensor<3xf32>
  %loss = amp.sum %z dims = [0] : tensor<3xf32> to tensor<f32>
  return %loss : tensor<f32>
}
