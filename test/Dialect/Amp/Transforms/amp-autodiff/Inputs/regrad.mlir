// A model gradcheck differentiates, afresh once it holds @e_grad
// (gradcheck-edge.test).
func.func @e(%v: tensor<3xf32> {amp.param}, %x: tensor<3xf32>) -> tensor<f32> {
  %y = amp.mul %v, %x : tensor<3xf32>, tensor<3xf32>
  %loss = amp.sum %y dims = [0] : tensor<3xf32> to tensor<f32>
  return %loss : tensor<f32>
}
