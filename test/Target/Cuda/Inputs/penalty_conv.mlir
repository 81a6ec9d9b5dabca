// An input-gradient penalty (R1's shape) through the layers of the ResNet
// and GPT examples: a convolution, a training-mode batch norm, ReLU, max
// pooling and causal attention inside amp.grad. Their gradient ops are
// differentiated again: conv2d_grad_weight and conv2d_grad_input by their
// closed forms, batch_norm_grad, max_pool2d_grad and attention_grad as the
// steps amp-autodiff writes in their place. The compiled step trains it as
// the interpreter does, bit for bit.
func.func @penalty_conv(%x: tensor<2x1x6x6xf32>, %labels: tensor<2xi64>,
                        %w1: tensor<4x1x3x3xf32> {amp.param},
                        %g1: tensor<4xf32> {amp.param},
                        %b1: tensor<4xf32> {amp.param},
                        %w2: tensor<36x3xf32> {amp.param}) -> tensor<f32> {
  %rm = amp.constant dense<0.0> : tensor<4xf32>
  %rv = amp.constant dense<1.0> : tensor<4xf32>
  %loss, %gx = amp.grad (%x) : (tensor<2x1x6x6xf32>) -> (tensor<f32>, tensor<2x1x6x6xf32>) {
  ^bb0(%a: tensor<2x1x6x6xf32>):
    %c = amp.conv2d %a, %w1 {padding = array<i64: 1, 1>}
        : tensor<2x1x6x6xf32>, tensor<4x1x3x3xf32> to tensor<2x4x6x6xf32>
    %n:3 = amp.batch_norm %c running(%rm, %rv : tensor<4xf32>)
        scale(%g1 : tensor<4xf32>) bias(%b1 : tensor<4xf32>) {training} : tensor<2x4x6x6xf32>
    %r = amp.relu %n#0 : tensor<2x4x6x6xf32>
    %p = amp.max_pool2d %r {kernel = array<i64: 2, 2>} : tensor<2x4x6x6xf32> to tensor<2x4x3x3xf32>
    %t = amp.reshape %p : tensor<2x4x3x3xf32> to tensor<2x1x4x9xf32>
    %o = amp.attention %t, %t, %t causal : tensor<2x1x4x9xf32>, tensor<2x1x4x9xf32>, tensor<2x1x4x9xf32>
    %f = amp.reshape %o : tensor<2x1x4x9xf32> to tensor<2x36xf32>
    %logits = amp.matmul %f, %w2 : tensor<2x36xf32>, tensor<36x3xf32> to tensor<2x3xf32>
    %ce = amp.cross_entropy %logits, %labels : tensor<2x3xf32>, tensor<2xi64> to tensor<f32>
    amp.yield %ce : tensor<f32>
  }
  %sq = amp.mul %gx, %gx : tensor<2x1x6x6xf32>, tensor<2x1x6x6xf32>
  %pen = amp.sum %sq dims = [0, 1, 2, 3] : tensor<2x1x6x6xf32> to tensor<f32>
  %total = amp.add %loss, %pen : tensor<f32>, tensor<f32>
  return %total : tensor<f32>
}
