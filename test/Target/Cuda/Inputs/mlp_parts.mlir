// examples/mlp.mlir with an L2 penalty on the first layer's weights: it
// returns the total loss it trains on, then the parts of it to report.
//   loss = ce + 1e-4 * l2,  ce = cross_entropy(logits, labels),
//   l2 = sum(w1 * w1)
// mlp_total.mlir is the same graph returning the total alone.
func.func @mlp(%x: tensor<64x784xf32>, %labels: tensor<64xi64>,
               %w1: tensor<784x256xf32> {amp.param}, %b1: tensor<256xf32> {amp.param},
               %w2: tensor<256x10xf32> {amp.param}, %b2: tensor<10xf32> {amp.param})
    -> (tensor<f32>, tensor<f32>, tensor<f32>) {
  %hidden_mm = amp.matmul %x, %w1 : tensor<64x784xf32>, tensor<784x256xf32> to tensor<64x256xf32>
  %hidden_pre = amp.add %hidden_mm, %b1 : tensor<64x256xf32>, tensor<256xf32>
  %hidden = amp.relu %hidden_pre : tensor<64x256xf32>
  %logits_mm = amp.matmul %hidden, %w2 : tensor<64x256xf32>, tensor<256x10xf32> to tensor<64x10xf32>
  %logits = amp.add %logits_mm, %b2 : tensor<64x10xf32>, tensor<10xf32>
  %ce = amp.cross_entropy %logits, %labels : tensor<64x10xf32>, tensor<64xi64> to tensor<f32>
  %w1_sq = amp.mul %w1, %w1 : tensor<784x256xf32>, tensor<784x256xf32>
  %l2 = amp.sum %w1_sq dims = [0, 1] : tensor<784x256xf32> to tensor<f32>
  %decay = amp.constant dense<1.000000e-04> : tensor<f32>
  %penalty = amp.mul %l2, %decay : tensor<f32>, tensor<f32>
  %loss = amp.add %ce, %penalty : tensor<f32>, tensor<f32>
  return %loss, %ce, %l2 : tensor<f32>, tensor<f32>, tensor<f32>
}
