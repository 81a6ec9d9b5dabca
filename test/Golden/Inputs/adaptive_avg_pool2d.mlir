// The cases of scripts/make_golden_adaptive_pool2d.py: the forward of each,
// and sum(adaptive_avg_pool2d(x) * g), which amp-autodiff differentiates in
// x.
func.func @global(%x: tensor<2x3x6x6xf32>) -> tensor<2x3x1x1xf32> {
  %y = amp.adaptive_avg_pool2d %x output_size = [1, 1] : tensor<2x3x6x6xf32> to tensor<2x3x1x1xf32>
  return %y : tensor<2x3x1x1xf32>
}
func.func @global_weighted(%x: tensor<2x3x6x6xf32> {amp.param}, %g: tensor<2x3x1x1xf32>) -> tensor<f32> {
  %y = amp.adaptive_avg_pool2d %x output_size = [1, 1] : tensor<2x3x6x6xf32> to tensor<2x3x1x1xf32>
  %p = amp.mul %y, %g : tensor<2x3x1x1xf32>, tensor<2x3x1x1xf32>
  %s = amp.sum %p dims = [0, 1, 2, 3] : tensor<2x3x1x1xf32> to tensor<f32>
  return %s : tensor<f32>
}
func.func @tiled(%x: tensor<2x2x8x6xf32>) -> tensor<2x2x4x3xf32> {
  %y = amp.adaptive_avg_pool2d %x output_size = [4, 3] : tensor<2x2x8x6xf32> to tensor<2x2x4x3xf32>
  return %y : tensor<2x2x4x3xf32>
}
func.func @tiled_weighted(%x: tensor<2x2x8x6xf32> {amp.param}, %g: tensor<2x2x4x3xf32>) -> tensor<f32> {
  %y = amp.adaptive_avg_pool2d %x output_size = [4, 3] : tensor<2x2x8x6xf32> to tensor<2x2x4x3xf32>
  %p = amp.mul %y, %g : tensor<2x2x4x3xf32>, tensor<2x2x4x3xf32>
  %s = amp.sum %p dims = [0, 1, 2, 3] : tensor<2x2x4x3xf32> to tensor<f32>
  return %s : tensor<f32>
}
func.func @uneven(%x: tensor<2x3x5x7xf32>) -> tensor<2x3x3x2xf32> {
  %y = amp.adaptive_avg_pool2d %x output_size = [3, 2] : tensor<2x3x5x7xf32> to tensor<2x3x3x2xf32>
  return %y : tensor<2x3x3x2xf32>
}
func.func @uneven_weighted(%x: tensor<2x3x5x7xf32> {amp.param}, %g: tensor<2x3x3x2xf32>) -> tensor<f32> {
  %y = amp.adaptive_avg_pool2d %x output_size = [3, 2] : tensor<2x3x5x7xf32> to tensor<2x3x3x2xf32>
  %p = amp.mul %y, %g : tensor<2x3x3x2xf32>, tensor<2x3x3x2xf32>
  %s = amp.sum %p dims = [0, 1, 2, 3] : tensor<2x3x3x2xf32> to tensor<f32>
  return %s : tensor<f32>
}
func.func @upsample(%x: tensor<1x2x2x3xf32>) -> tensor<1x2x3x4xf32> {
  %y = amp.adaptive_avg_pool2d %x output_size = [3, 4] : tensor<1x2x2x3xf32> to tensor<1x2x3x4xf32>
  return %y : tensor<1x2x3x4xf32>
}
func.func @upsample_weighted(%x: tensor<1x2x2x3xf32> {amp.param}, %g: tensor<1x2x3x4xf32>) -> tensor<f32> {
  %y = amp.adaptive_avg_pool2d %x output_size = [3, 4] : tensor<1x2x2x3xf32> to tensor<1x2x3x4xf32>
  %p = amp.mul %y, %g : tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>
  %s = amp.sum %p dims = [0, 1, 2, 3] : tensor<1x2x3x4xf32> to tensor<f32>
  return %s : tensor<f32>
}
