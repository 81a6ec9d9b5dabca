// loss = sum(dropout(w, p = 0.5)) over a 4x8 f32 parameter: the dropout
// cost report's hand counts (cost-report-dropout.test).
func.func @tiny(%w: tensor<4x8xf32> {amp.param}, %rng: tensor<2xi64> {amp.rng}) -> tensor<f32> {
  %d = amp.dropout %w, %rng p = 0.5 stream = 0 training : tensor<4x8xf32>
  %l = amp.sum %d dims = [0, 1] : tensor<4x8xf32> to tensor<f32>
  return %l : tensor<f32>
}
