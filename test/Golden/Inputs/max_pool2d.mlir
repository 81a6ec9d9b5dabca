// The cases of scripts/make_golden_max_pool2d.py: the forward of each, and
// sum(max_pool2d(x) * g), which amp-autodiff differentiates in x.
func.func @plain(%x: tensor<2x3x6x6xf32>) -> tensor<2x3x3x3xf32> {
  %y = amp.max_pool2d %x {kernel = array<i64: 2, 2>} : tensor<2x3x6x6xf32> to tensor<2x3x3x3xf32>
  return %y : tensor<2x3x3x3xf32>
}
func.func @plain_weighted(%x: tensor<2x3x6x6xf32> {amp.param}, %g: tensor<2x3x3x3xf32>) -> tensor<f32> {
  %y = amp.max_pool2d %x {kernel = array<i64: 2, 2>} : tensor<2x3x6x6xf32> to tensor<2x3x3x3xf32>
  %p = amp.mul %y, %g : tensor<2x3x3x3xf32>, tensor<2x3x3x3xf32>
  %s = amp.sum %p dims = [0, 1, 2, 3] : tensor<2x3x3x3xf32> to tensor<f32>
  return %s : tensor<f32>
}

func.func @overlapping(%x: tensor<2x2x7x7xf32>) -> tensor<2x2x4x4xf32> {
  %y = amp.max_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1>} : tensor<2x2x7x7xf32> to tensor<2x2x4x4xf32>
  return %y : tensor<2x2x4x4xf32>
}
func.func @overlapping_weighted(%x: tensor<2x2x7x7xf32> {amp.param}, %g: tensor<2x2x4x4xf32>) -> tensor<f32> {
  %y = amp.max_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1>} : tensor<2x2x7x7xf32> to tensor<2x2x4x4xf32>
  %p = amp.mul %y, %g : tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>
  %s = amp.sum %p dims = [0, 1, 2, 3] : tensor<2x2x4x4xf32> to tensor<f32>
  return %s : tensor<f32>
}

func.func @dilated(%x: tensor<1x2x5x6xf32>) -> tensor<1x2x5x3xf32> {
  %y = amp.max_pool2d %x {kernel = array<i64: 2, 3>, strides = array<i64: 1, 2>, padding = array<i64: 1, 1>, dilations = array<i64: 2, 1>} : tensor<1x2x5x6xf32> to tensor<1x2x5x3xf32>
  return %y : tensor<1x2x5x3xf32>
}
func.func @dilated_weighted(%x: tensor<1x2x5x6xf32> {amp.param}, %g: tensor<1x2x5x3xf32>) -> tensor<f32> {
  %y = amp.max_pool2d %x {kernel = array<i64: 2, 3>, strides = array<i64: 1, 2>, padding = array<i64: 1, 1>, dilations = array<i64: 2, 1>} : tensor<1x2x5x6xf32> to tensor<1x2x5x3xf32>
  %p = amp.mul %y, %g : tensor<1x2x5x3xf32>, tensor<1x2x5x3xf32>
  %s = amp.sum %p dims = [0, 1, 2, 3] : tensor<1x2x5x3xf32> to tensor<f32>
  return %s : tensor<f32>
}

func.func @ties(%x: tensor<2x2x6x6xf32>) -> tensor<2x2x6x6xf32> {
  %y = amp.max_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>, padding = array<i64: 1, 1>} : tensor<2x2x6x6xf32> to tensor<2x2x6x6xf32>
  return %y : tensor<2x2x6x6xf32>
}
func.func @ties_weighted(%x: tensor<2x2x6x6xf32> {amp.param}, %g: tensor<2x2x6x6xf32>) -> tensor<f32> {
  %y = amp.max_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>, padding = array<i64: 1, 1>} : tensor<2x2x6x6xf32> to tensor<2x2x6x6xf32>
  %p = amp.mul %y, %g : tensor<2x2x6x6xf32>, tensor<2x2x6x6xf32>
  %s = amp.sum %p dims = [0, 1, 2, 3] : tensor<2x2x6x6xf32> to tensor<f32>
  return %s : tensor<f32>
}
