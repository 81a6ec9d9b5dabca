// The loss does not depend on the parameter (edge-cases.test).
func.func @f(%w: tensor<2xf32> {amp.param}, %x: tensor<2xf32>) -> tensor<f32> {
  %loss = amp.sum %x dims = [0] : tensor<2xf32> to tensor<f32>
  return %loss : tensor<f32>
}
