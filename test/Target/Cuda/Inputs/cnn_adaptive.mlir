// Adaptive average pooling in a small classifier for 7x7 images: a 3x3
// convolution and a relu, then adaptive pooling to 3x2 (windows of 3 rows,
// overlapping, and of 4 columns: sums over slices) and to 1x1 on a second
// branch (amp.avg_pool2d's rewrite), concatenated into a linear layer.
func.func @cnn_adaptive(%x: tensor<4x3x7x7xf32>, %labels: tensor<4xi64>,
                        %w1: tensor<6x3x3x3xf32> {amp.param},
                        %w2: tensor<42x5xf32> {amp.param}) -> tensor<f32> {
  %c1 = amp.conv2d %x, %w1 {padding = array<i64: 1, 1>}
      : tensor<4x3x7x7xf32>, tensor<6x3x3x3xf32> to tensor<4x6x7x7xf32>
  %h1 = amp.relu %c1 : tensor<4x6x7x7xf32>
  %grid = amp.adaptive_avg_pool2d %h1 output_size = [3, 2]
      : tensor<4x6x7x7xf32> to tensor<4x6x3x2xf32>
  %global = amp.adaptive_avg_pool2d %h1 output_size = [1, 1]
      : tensor<4x6x7x7xf32> to tensor<4x6x1x1xf32>
  %flat_grid = amp.reshape %grid : tensor<4x6x3x2xf32> to tensor<4x36xf32>
  %flat_global = amp.reshape %global : tensor<4x6x1x1xf32> to tensor<4x6xf32>
  %features = amp.concat %flat_grid, %flat_global dim = 1
      : tensor<4x36xf32>, tensor<4x6xf32> to tensor<4x42xf32>
  %logits = amp.matmul %features, %w2 : tensor<4x42xf32>, tensor<42x5xf32> to tensor<4x5xf32>
  %loss = amp.cross_entropy %logits, %labels : tensor<4x5xf32>, tensor<4xi64> to tensor<f32>
  return %loss : tensor<f32>
}
