// Functions with their own backward (amp.custom_vjp): one under the
// step's autocast, one with amp.cast_inputs = f32, and a gradient penalty
// through the first (its backward differentiated again). The compiled step
// trains it as the interpreter does, bit for bit.
func.func private @attend(%x: tensor<8x6xf32>) -> tensor<8x8xf32>
    attributes {amp.custom_vjp = @attend_backward, amp.cast_inputs = f32} {
  %y = amp.softmax %x dim = 1 : tensor<8x6xf32>
  %z = amp.matmul %y, %x {transpose_rhs} : tensor<8x6xf32>, tensor<8x6xf32> to tensor<8x8xf32>
  return %z : tensor<8x8xf32>
}
// Its true gradient through z = softmax(x) x^T: dz x through softmax's
// gradient, plus dz^T softmax(x).
func.func private @attend_backward(%x: tensor<8x6xf32>, %z: tensor<8x8xf32>, %g: tensor<8x8xf32>) -> tensor<8x6xf32> {
  %y = amp.softmax %x dim = 1 : tensor<8x6xf32>
  %gy = amp.matmul %g, %x : tensor<8x8xf32>, tensor<8x6xf32> to tensor<8x6xf32>
  %dy = amp.softmax_grad %y, %gy dim = 1 : tensor<8x6xf32>
  %dx = amp.matmul %g, %y {transpose_lhs} : tensor<8x8xf32>, tensor<8x6xf32> to tensor<8x6xf32>
  %d = amp.add %dy, %dx : tensor<8x6xf32>, tensor<8x6xf32>
  return %d : tensor<8x6xf32>
}
func.func private @project(%x: tensor<8x6xf32>, %w: tensor<6x4xf32>) -> tensor<8x4xf32>
    attributes {amp.custom_vjp = @project_backward} {
  %y = amp.matmul %x, %w : tensor<8x6xf32>, tensor<6x4xf32> to tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}
func.func private @project_backward(%x: tensor<8x6xf32>, %w: tensor<6x4xf32>, %y: tensor<8x4xf32>, %g: tensor<8x4xf32>) -> (tensor<8x6xf32>, tensor<6x4xf32>) {
  %dx = amp.matmul %g, %w {transpose_rhs} : tensor<8x4xf32>, tensor<6x4xf32> to tensor<8x6xf32>
  %dw = amp.matmul %x, %g {transpose_lhs} : tensor<8x6xf32>, tensor<8x4xf32> to tensor<6x4xf32>
  return %dx, %dw : tensor<8x6xf32>, tensor<6x4xf32>
}
func.func @custom_vjp(%x: tensor<8x5xf32>, %labels: tensor<8xi64>,
                      %w1: tensor<5x6xf32> {amp.param},
                      %w2: tensor<6x4xf32> {amp.param},
                      %w3: tensor<8x4xf32> {amp.param}) -> tensor<f32> {
  %loss, %gw = amp.grad (%w2) : (tensor<6x4xf32>) -> (tensor<f32>, tensor<6x4xf32>) {
  ^bb0(%a: tensor<6x4xf32>):
    %h = amp.matmul %x, %w1 : tensor<8x5xf32>, tensor<5x6xf32> to tensor<8x6xf32>
    %t = amp.tanh %h : tensor<8x6xf32>
    %att = func.call @attend(%t) : (tensor<8x6xf32>) -> tensor<8x8xf32>
    %mixed = amp.matmul %att, %w3 : tensor<8x8xf32>, tensor<8x4xf32> to tensor<8x4xf32>
    %p = func.call @project(%t, %a) : (tensor<8x6xf32>, tensor<6x4xf32>) -> tensor<8x4xf32>
    %logits = amp.add %p, %mixed : tensor<8x4xf32>, tensor<8x4xf32>
    %ce = amp.cross_entropy %logits, %labels : tensor<8x4xf32>, tensor<8xi64> to tensor<f32>
    amp.yield %ce : tensor<f32>
  }
  %sq = amp.mul %gw, %gw : tensor<6x4xf32>, tensor<6x4xf32>
  %pen = amp.sum %sq dims = [0, 1] : tensor<6x4xf32> to tensor<f32>
  %total = amp.add %loss, %pen : tensor<f32>, tensor<f32>
  return %total : tensor<f32>
}
