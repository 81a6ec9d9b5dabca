// amp.conv2d and a weighted sum of it, for conv2d.test: per case of
// scripts/make_golden_conv2d.py, @<case> returns the convolution and
// @<case>_weighted sum(conv2d(x, w, b) * g), whose gradient in x, w and b
// amp-autodiff derives (@<case>_weighted_grad).

// Bias, symmetric padding [1, 1]: 8x8 stays 8x8.
func.func @plain(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<2x4x8x8xf32> {
  %y = amp.conv2d %x, %w bias %b {padding = array<i64: 1, 1>}
      : tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32> to tensor<2x4x8x8xf32>
  return %y : tensor<2x4x8x8xf32>
}

func.func @plain_weighted(%x: tensor<2x3x8x8xf32> {amp.param}, %w: tensor<4x3x3x3xf32> {amp.param},
                          %b: tensor<4xf32> {amp.param}, %g: tensor<2x4x8x8xf32>) -> tensor<f32> {
  %y = amp.conv2d %x, %w bias %b {padding = array<i64: 1, 1>}
      : tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32> to tensor<2x4x8x8xf32>
  %yg = amp.mul %y, %g : tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>
  %loss = amp.sum %yg dims = [0, 1, 2, 3] : tensor<2x4x8x8xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// No bias, strides [2, 1], padding [top 1, left 0, bottom 2, right 1],
// dilations [2, 1]: OH = (9 + 1 + 2 - 2 * 2 - 1) / 2 + 1 = 4,
// OW = (7 + 0 + 1 - 1 - 1) / 1 + 1 = 7.
func.func @strided(%x: tensor<2x4x9x7xf32>, %w: tensor<6x4x3x2xf32>) -> tensor<2x6x4x7xf32> {
  %y = amp.conv2d %x, %w {strides = array<i64: 2, 1>, padding = array<i64: 1, 0, 2, 1>, dilations = array<i64: 2, 1>}
      : tensor<2x4x9x7xf32>, tensor<6x4x3x2xf32> to tensor<2x6x4x7xf32>
  return %y : tensor<2x6x4x7xf32>
}

func.func @strided_weighted(%x: tensor<2x4x9x7xf32> {amp.param}, %w: tensor<6x4x3x2xf32> {amp.param},
                            %g: tensor<2x6x4x7xf32>) -> tensor<f32> {
  %y = amp.conv2d %x, %w {strides = array<i64: 2, 1>, padding = array<i64: 1, 0, 2, 1>, dilations = array<i64: 2, 1>}
      : tensor<2x4x9x7xf32>, tensor<6x4x3x2xf32> to tensor<2x6x4x7xf32>
  %yg = amp.mul %y, %g : tensor<2x6x4x7xf32>, tensor<2x6x4x7xf32>
  %loss = amp.sum %yg dims = [0, 1, 2, 3] : tensor<2x6x4x7xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// Depthwise (groups = C = 4), bias, padding [1, 1]: 6x6 stays 6x6.
func.func @depthwise(%x: tensor<2x4x6x6xf32>, %w: tensor<4x1x3x3xf32>, %b: tensor<4xf32>) -> tensor<2x4x6x6xf32> {
  %y = amp.conv2d %x, %w bias %b {padding = array<i64: 1, 1>, groups = 4 : i64}
      : tensor<2x4x6x6xf32>, tensor<4x1x3x3xf32>, tensor<4xf32> to tensor<2x4x6x6xf32>
  return %y : tensor<2x4x6x6xf32>
}

func.func @depthwise_weighted(%x: tensor<2x4x6x6xf32> {amp.param}, %w: tensor<4x1x3x3xf32> {amp.param},
                              %b: tensor<4xf32> {amp.param}, %g: tensor<2x4x6x6xf32>) -> tensor<f32> {
  %y = amp.conv2d %x, %w bias %b {padding = array<i64: 1, 1>, groups = 4 : i64}
      : tensor<2x4x6x6xf32>, tensor<4x1x3x3xf32>, tensor<4xf32> to tensor<2x4x6x6xf32>
  %yg = amp.mul %y, %g : tensor<2x4x6x6xf32>, tensor<2x4x6x6xf32>
  %loss = amp.sum %yg dims = [0, 1, 2, 3] : tensor<2x4x6x6xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// Two groups of 2 input and 3 output channels, strides [2, 2], no bias, no
// padding: OH = OW = (5 - 2 - 1) / 2 + 1 = 2.
func.func @grouped(%x: tensor<1x4x5x5xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<1x6x2x2xf32> {
  %y = amp.conv2d %x, %w {strides = array<i64: 2, 2>, groups = 2 : i64}
      : tensor<1x4x5x5xf32>, tensor<6x2x3x3xf32> to tensor<1x6x2x2xf32>
  return %y : tensor<1x6x2x2xf32>
}

func.func @grouped_weighted(%x: tensor<1x4x5x5xf32> {amp.param}, %w: tensor<6x2x3x3xf32> {amp.param},
                            %g: tensor<1x6x2x2xf32>) -> tensor<f32> {
  %y = amp.conv2d %x, %w {strides = array<i64: 2, 2>, groups = 2 : i64}
      : tensor<1x4x5x5xf32>, tensor<6x2x3x3xf32> to tensor<1x6x2x2xf32>
  %yg = amp.mul %y, %g : tensor<1x6x2x2xf32>, tensor<1x6x2x2xf32>
  %loss = amp.sum %yg dims = [0, 1, 2, 3] : tensor<1x6x2x2xf32> to tensor<f32>
  return %loss : tensor<f32>
}
