// A classifier trained with a gradient penalty on its input (R1's shape):
// cross-entropy plus the squared norm of its gradient with respect to the
// batch, taken inside the model with amp.grad (amp-expand-grads writes it
// out, amp-autodiff differentiates it again). The compiled step trains it
// as the interpreter does, bit for bit.
func.func @penalty(%x: tensor<8x6xf32>, %labels: tensor<8xi64>,
                   %w1: tensor<6x10xf32> {amp.param},
                   %b1: tensor<10xf32> {amp.param},
                   %g1: tensor<10xf32> {amp.param},
                   %w2: tensor<10x4xf32> {amp.param}) -> tensor<f32> {
  %loss, %gx = amp.grad (%x) : (tensor<8x6xf32>) -> (tensor<f32>, tensor<8x6xf32>) {
  ^bb0(%a: tensor<8x6xf32>):
    %h = amp.matmul %a, %w1 : tensor<8x6xf32>, tensor<6x10xf32> to tensor<8x10xf32>
    %hb = amp.add %h, %b1 : tensor<8x10xf32>, tensor<10xf32>
    %act = amp.gelu %hb approximate = tanh : tensor<8x10xf32>
    %n = amp.layer_norm %act scale(%g1 : tensor<10xf32>) {epsilon = 1.0e-05 : f64} : tensor<8x10xf32>
    %logits = amp.matmul %n, %w2 : tensor<8x10xf32>, tensor<10x4xf32> to tensor<8x4xf32>
    %ce = amp.cross_entropy %logits, %labels : tensor<8x4xf32>, tensor<8xi64> to tensor<f32>
    amp.yield %ce : tensor<f32>
  }
  %sq = amp.mul %gx, %gx : tensor<8x6xf32>, tensor<8x6xf32>
  %pen = amp.sum %sq dims = [0, 1] : tensor<8x6xf32> to tensor<f32>
  %total = amp.add %loss, %pen : tensor<f32>, tensor<f32>
  return %total : tensor<f32>
}
