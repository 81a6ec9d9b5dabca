// PyTorch's gradient-penalty recipe (the AMP examples' "Gradient
// penalty"): the L2 norm of the loss's gradient with respect to the
// parameters, taken inside the step (amp.grad over the parameters) and
// added to the loss. scripts/make_golden_penalty.py trains the same model
// with the recipe as written; test/Golden/penalty.test compares.
func.func @l2_penalty(%x: tensor<16x8xf32>, %labels: tensor<16xi64>,
                      %w1: tensor<8x16xf32> {amp.param},
                      %b1: tensor<16xf32> {amp.param},
                      %w2: tensor<16x4xf32> {amp.param},
                      %b2: tensor<4xf32> {amp.param}) -> tensor<f32> {
  %loss, %g1, %g2, %g3, %g4 = amp.grad (%w1, %b1, %w2, %b2)
      : (tensor<8x16xf32>, tensor<16xf32>, tensor<16x4xf32>, tensor<4xf32>)
      -> (tensor<f32>, tensor<8x16xf32>, tensor<16xf32>, tensor<16x4xf32>, tensor<4xf32>) {
  ^bb0(%a1: tensor<8x16xf32>, %a2: tensor<16xf32>, %a3: tensor<16x4xf32>, %a4: tensor<4xf32>):
    %h = amp.matmul %x, %a1 : tensor<16x8xf32>, tensor<8x16xf32> to tensor<16x16xf32>
    %hb = amp.add %h, %a2 : tensor<16x16xf32>, tensor<16xf32>
    %t = amp.tanh %hb : tensor<16x16xf32>
    %o = amp.matmul %t, %a3 : tensor<16x16xf32>, tensor<16x4xf32> to tensor<16x4xf32>
    %ob = amp.add %o, %a4 : tensor<16x4xf32>, tensor<4xf32>
    %ce = amp.cross_entropy %ob, %labels : tensor<16x4xf32>, tensor<16xi64> to tensor<f32>
    amp.yield %ce : tensor<f32>
  }
  // grad_norm = sqrt(sum over the parameters of g.pow(2).sum())
  %q1 = amp.mul %g1, %g1 : tensor<8x16xf32>, tensor<8x16xf32>
  %s1 = amp.sum %q1 dims = [0, 1] : tensor<8x16xf32> to tensor<f32>
  %q2 = amp.mul %g2, %g2 : tensor<16xf32>, tensor<16xf32>
  %s2 = amp.sum %q2 dims = [0] : tensor<16xf32> to tensor<f32>
  %q3 = amp.mul %g3, %g3 : tensor<16x4xf32>, tensor<16x4xf32>
  %s3 = amp.sum %q3 dims = [0, 1] : tensor<16x4xf32> to tensor<f32>
  %q4 = amp.mul %g4, %g4 : tensor<4xf32>, tensor<4xf32>
  %s4 = amp.sum %q4 dims = [0] : tensor<4xf32> to tensor<f32>
  %n12 = amp.add %s1, %s2 : tensor<f32>, tensor<f32>
  %n123 = amp.add %n12, %s3 : tensor<f32>, tensor<f32>
  %n = amp.add %n123, %s4 : tensor<f32>, tensor<f32>
  %norm = amp.sqrt %n : tensor<f32>
  %total = amp.add %loss, %norm : tensor<f32>, tensor<f32>
  return %total : tensor<f32>
}
