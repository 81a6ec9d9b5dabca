// A small convolutional classifier for 8x8 images with 3 channels: a 3x3
// convolution with a bias, a strided grouped one with explicit padding and
// a strided 1x1 shortcut beside it, a dilated depthwise one, each followed
// by a relu, 3x3 average and max poolings that keep the size, a 1x2 max
// pooling, global average pooling (a mean over the image) and a linear
// layer. The step runs each convolution and gradient as one runtime call
// (amp_conv2d_*), or, with --decompose-convolutions, as an amp.im2col and
// a matmul per group.
func.func @cnn(%x: tensor<4x3x8x8xf32>, %labels: tensor<4xi64>,
               %w1: tensor<8x3x3x3xf32> {amp.param},
               %b1: tensor<8xf32> {amp.param},
               %w2: tensor<8x4x3x3xf32> {amp.param},
               %w3: tensor<8x1x3x3xf32> {amp.param},
               %w4: tensor<8x5xf32> {amp.param},
               %w5: tensor<8x8x1x1xf32> {amp.param}) -> tensor<f32> {
  %c1 = amp.conv2d %x, %w1 bias %b1 {padding = array<i64: 1, 1>}
      : tensor<4x3x8x8xf32>, tensor<8x3x3x3xf32>, tensor<8xf32> to tensor<4x8x8x8xf32>
  %h1 = amp.relu %c1 : tensor<4x8x8x8xf32>
  %c2 = amp.conv2d %h1, %w2 {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 0, 0>, groups = 2 : i64}
      : tensor<4x8x8x8xf32>, tensor<8x4x3x3xf32> to tensor<4x8x4x4xf32>
  // A residual shortcut: a strided 1x1 convolution, as a ResNet's.
  %shortcut = amp.conv2d %h1, %w5 {strides = array<i64: 2, 2>}
      : tensor<4x8x8x8xf32>, tensor<8x8x1x1xf32> to tensor<4x8x4x4xf32>
  %sum2 = amp.add %c2, %shortcut : tensor<4x8x4x4xf32>, tensor<4x8x4x4xf32>
  %h2 = amp.relu %sum2 : tensor<4x8x4x4xf32>
  %a2 = amp.avg_pool2d %h2 {kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>, padding = array<i64: 1, 1>}
      : tensor<4x8x4x4xf32> to tensor<4x8x4x4xf32>
  %c3 = amp.conv2d %a2, %w3 {padding = array<i64: 2, 2>, dilations = array<i64: 2, 2>, groups = 8 : i64}
      : tensor<4x8x4x4xf32>, tensor<8x1x3x3xf32> to tensor<4x8x4x4xf32>
  %h3 = amp.relu %c3 : tensor<4x8x4x4xf32>
  %m3 = amp.max_pool2d %h3 {kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>, padding = array<i64: 1, 1>}
      : tensor<4x8x4x4xf32> to tensor<4x8x4x4xf32>
  %m4 = amp.max_pool2d %m3 {kernel = array<i64: 1, 2>, strides = array<i64: 1, 1>}
      : tensor<4x8x4x4xf32> to tensor<4x8x4x3xf32>
  %pooled = amp.mean %m4 dims = [2, 3] : tensor<4x8x4x3xf32> to tensor<4x8xf32>
  %logits = amp.matmul %pooled, %w4 : tensor<4x8xf32>, tensor<8x5xf32> to tensor<4x5xf32>
  %loss = amp.cross_entropy %logits, %labels : tensor<4x5xf32>, tensor<4xi64> to tensor<f32>
  return %loss : tensor<f32>
}
