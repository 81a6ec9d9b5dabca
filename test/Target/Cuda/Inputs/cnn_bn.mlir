// A small convolutional classifier with batch normalisation in training
// mode: a 3x3 convolution, batch norm with scale and bias, a relu, a
// strided convolution, batch norm without the affine parameters, global
// average pooling, a linear layer and 2-D batch norm on the logits. The
// running statistics are buffers (amp.buffer): means start at 0,
// variances at 1, as PyTorch's.
func.func @cnn_bn(%x: tensor<4x3x6x6xf32>, %labels: tensor<4xi64>,
                  %w1: tensor<8x3x3x3xf32> {amp.param},
                  %g1: tensor<8xf32> {amp.param},
                  %b1: tensor<8xf32> {amp.param},
                  %w2: tensor<6x8x3x3xf32> {amp.param},
                  %w3: tensor<6x5xf32> {amp.param},
                  %bn1_mean: tensor<8xf32> {amp.buffer},
                  %bn1_var: tensor<8xf32> {amp.buffer = 1.0},
                  %bn2_mean: tensor<6xf32> {amp.buffer},
                  %bn2_var: tensor<6xf32> {amp.buffer = 1.0},
                  %bn3_mean: tensor<5xf32> {amp.buffer},
                  %bn3_var: tensor<5xf32> {amp.buffer = 1.0}) -> tensor<f32> {
  %c1 = amp.conv2d %x, %w1 {padding = array<i64: 1, 1>}
      : tensor<4x3x6x6xf32>, tensor<8x3x3x3xf32> to tensor<4x8x6x6xf32>
  %n1:3 = amp.batch_norm %c1 running(%bn1_mean, %bn1_var : tensor<8xf32>)
      scale(%g1 : tensor<8xf32>) bias(%b1 : tensor<8xf32>) {training}
      : tensor<4x8x6x6xf32>
  %h1 = amp.relu %n1#0 : tensor<4x8x6x6xf32>
  %c2 = amp.conv2d %h1, %w2 {strides = array<i64: 2, 2>, padding = array<i64: 1, 1>}
      : tensor<4x8x6x6xf32>, tensor<6x8x3x3xf32> to tensor<4x6x3x3xf32>
  %n2:3 = amp.batch_norm %c2 running(%bn2_mean, %bn2_var : tensor<6xf32>)
      {training, momentum = 0.2} : tensor<4x6x3x3xf32>
  %h2 = amp.relu %n2#0 : tensor<4x6x3x3xf32>
  %pooled = amp.mean %h2 dims = [2, 3] : tensor<4x6x3x3xf32> to tensor<4x6xf32>
  %logits = amp.matmul %pooled, %w3 : tensor<4x6xf32>, tensor<6x5xf32> to tensor<4x5xf32>
  %n3:3 = amp.batch_norm %logits running(%bn3_mean, %bn3_var : tensor<5xf32>)
      {training, epsilon = 1.0e-3} : tensor<4x5xf32>
  %loss = amp.cross_entropy %n3#0, %labels : tensor<4x5xf32>, tensor<4xi64> to tensor<f32>
  return %loss : tensor<f32>
}
