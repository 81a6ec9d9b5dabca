// A gradient function whose amp.loss_scaling is an empty dictionary
// (errors.test): amp-optimizer read the missing mode and crashed. The
// dialect now verifies the attribute, a typed #amp.loss_scaling.
func.func @f(%w: tensor<4x3xf32> {amp.param}, %x: tensor<2x4xf32>) -> tensor<f32> {
  %h = amp.matmul %x, %w : tensor<2x4xf32>, tensor<4x3xf32> to tensor<2x3xf32>
  %l = amp.sum %h dims = [0, 1] : tensor<2x3xf32> to tensor<f32>
  return %l : tensor<f32>
}
func.func @f_grad(%w: tensor<4x3xf32> {amp.param}, %x: tensor<2x4xf32>, %s: tensor<f32> {amp.loss_scale}) -> (tensor<f32>, tensor<4x3xf32>, tensor<f32>) attributes {amp.gradient_of = @f, amp.loss_scaling = {}} {
  %h = amp.matmul %x, %w : tensor<2x4xf32>, tensor<4x3xf32> to tensor<2x3xf32>
  %l = amp.sum %h dims = [0, 1] : tensor<2x3xf32> to tensor<f32>
  %z = amp.constant dense<0.0> : tensor<f32>
  return %l, %w, %z : tensor<f32>, tensor<4x3xf32>, tensor<f32>
}
