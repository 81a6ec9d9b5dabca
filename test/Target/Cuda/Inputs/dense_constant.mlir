// Dense (non-splat) constants, which the backend compiles into the step
// library's read-only data: a position table added to the input, an f16
// per-feature scale, and a mask, all broadcast over the batch.
func.func @dense_constant(%x: tensor<2x4x8xf32>, %labels: tensor<2x4xi64>,
                          %w: tensor<8x8xf32> {amp.param}) -> tensor<f32> {
  %pos = amp.constant dense<[[0.3616, 0.6743, 0.8957, 0.9959, 0.9613, 0.7966, 0.524, 0.1806], [0.6743, 0.9959, 0.7966, 0.1806, -0.5298, -0.9631, -0.8926, -0.3553], [0.8957, 0.7966, -0.1873, -0.9631, -0.6692, 0.368, 0.9965, 0.5182], [0.9959, 0.1806, -0.9631, -0.3553, 0.8987, 0.5182, -0.8047, -0.6642]]> : tensor<4x8xf32>
  %h = amp.add %x, %pos : tensor<2x4x8xf32>, tensor<4x8xf32>
  %scale16 = amp.constant dense<[0.5, 1.0, 1.5, 2.0, 0.25, 0.75, 1.25, 3.0]> : tensor<8xf16>
  %scale = amp.cast %scale16 : tensor<8xf16> to tensor<8xf32>
  %hs = amp.mul %h, %scale : tensor<2x4x8xf32>, tensor<8xf32>
  %mm = amp.matmul %hs, %w : tensor<2x4x8xf32>, tensor<8x8xf32> to tensor<2x4x8xf32>
  %mask = amp.constant dense<[[true, true, false, false, false, false, false, false], [true, true, true, true, false, false, false, false], [true, true, true, true, true, true, false, false], [true, true, true, true, true, true, true, true]]> : tensor<4x8xi1>
  %low = amp.constant dense<-1.0e4> : tensor<f32>
  %masked = amp.select %mask, %mm, %low : tensor<4x8xi1>, tensor<2x4x8xf32>, tensor<f32>
  %loss = amp.cross_entropy %masked, %labels : tensor<2x4x8xf32>, tensor<2x4xi64> to tensor<f32>
  return %loss : tensor<f32>
}
