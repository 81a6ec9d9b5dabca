// Models with an argument named as a state of their step: Adam's step
// counter, the loss scale, a parameter's moment.
func.func @counted(%w: tensor<3xf32> {amp.param}, %step: tensor<3xf32>) -> tensor<f32> {
  %p = amp.mul %w, %step : tensor<3xf32>, tensor<3xf32>
  %l = amp.sum %p dims = [0] : tensor<3xf32> to tensor<f32>
  return %l : tensor<f32>
}

func.func @moment(%w: tensor<3xf32> {amp.param},
                  %v: tensor<3xf32> {amp.param, amp.name = "w.exp_avg"}) -> tensor<f32> {
  %p = amp.mul %w, %v : tensor<3xf32>, tensor<3xf32>
  %l = amp.sum %p dims = [0] : tensor<3xf32> to tensor<f32>
  return %l : tensor<f32>
}

func.func @scaled(%w: tensor<3xf32> {amp.param}, %loss_scale: tensor<3xf32>) -> tensor<f32> {
  %p = amp.mul %w, %loss_scale : tensor<3xf32>, tensor<3xf32>
  %l = amp.sum %p dims = [0] : tensor<3xf32> to tensor<f32>
  return %l : tensor<f32>
}
