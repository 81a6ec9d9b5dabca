// The avg_pool2d cases of scripts/make_golden_pool2d.py: the forward of
// each, and sum(avg_pool2d(x) * g), which amp-autodiff differentiates in x.
func.func @plain(%x: tensor<2x3x6x6xf32>) -> tensor<2x3x3x3xf32> {
  %y = amp.avg_pool2d %x {kernel = array<i64: 2, 2>} : tensor<2x3x6x6xf32> to tensor<2x3x3x3xf32>
  return %y : tensor<2x3x3x3xf32>
}
func.func @plain_weighted(%x: tensor<2x3x6x6xf32> {amp.param}, %g: tensor<2x3x3x3xf32>) -> tensor<f32> {
  %y = amp.avg_pool2d %x {kernel = array<i64: 2, 2>} : tensor<2x3x6x6xf32> to tensor<2x3x3x3xf32>
  %p = amp.mul %y, %g : tensor<2x3x3x3xf32>, tensor<2x3x3x3xf32>
  %s = amp.sum %p dims = [0, 1, 2, 3] : tensor<2x3x3x3xf32> to tensor<f32>
  return %s : tensor<f32>
}

// The padding's zeros count in the mean (PyTorch's count_include_pad).
func.func @padded(%x: tensor<2x2x7x5xf32>) -> tensor<2x2x4x5xf32> {
  %y = amp.avg_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 1>, padding = array<i64: 1, 1>} : tensor<2x2x7x5xf32> to tensor<2x2x4x5xf32>
  return %y : tensor<2x2x4x5xf32>
}
func.func @padded_weighted(%x: tensor<2x2x7x5xf32> {amp.param}, %g: tensor<2x2x4x5xf32>) -> tensor<f32> {
  %y = amp.avg_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 1>, padding = array<i64: 1, 1>} : tensor<2x2x7x5xf32> to tensor<2x2x4x5xf32>
  %p = amp.mul %y, %g : tensor<2x2x4x5xf32>, tensor<2x2x4x5xf32>
  %s = amp.sum %p dims = [0, 1, 2, 3] : tensor<2x2x4x5xf32> to tensor<f32>
  return %s : tensor<f32>
}
