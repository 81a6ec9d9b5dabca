// R1: a discriminator's non-saturating logistic loss plus gamma / 2 (gamma
// = 10) times the mean squared norm of its input gradient on real data,
// taken inside the step (amp.grad). scripts/make_golden_penalty.py trains
// the same discriminator with the recipe as written;
// test/Golden/penalty.test compares.
func.func @r1(%real: tensor<16x8xf32>, %fake: tensor<16x8xf32>,
              %w1: tensor<8x16xf32> {amp.param},
              %b1: tensor<16xf32> {amp.param},
              %w2: tensor<16x1xf32> {amp.param},
              %b2: tensor<1xf32> {amp.param}) -> tensor<f32> {
  %dr, %gx = amp.grad (%real) : (tensor<16x8xf32>) -> (tensor<f32>, tensor<16x8xf32>) {
  ^bb0(%a: tensor<16x8xf32>):
    %h = amp.matmul %a, %w1 : tensor<16x8xf32>, tensor<8x16xf32> to tensor<16x16xf32>
    %hb = amp.add %h, %b1 : tensor<16x16xf32>, tensor<16xf32>
    %t = amp.tanh %hb : tensor<16x16xf32>
    %o = amp.matmul %t, %w2 : tensor<16x16xf32>, tensor<16x1xf32> to tensor<16x1xf32>
    %d = amp.add %o, %b2 : tensor<16x1xf32>, tensor<1xf32>
    %s = amp.sum %d dims = [0, 1] : tensor<16x1xf32> to tensor<f32>
    amp.yield %s : tensor<f32>
  }
  %hr = amp.matmul %real, %w1 : tensor<16x8xf32>, tensor<8x16xf32> to tensor<16x16xf32>
  %hrb = amp.add %hr, %b1 : tensor<16x16xf32>, tensor<16xf32>
  %tr = amp.tanh %hrb : tensor<16x16xf32>
  %or = amp.matmul %tr, %w2 : tensor<16x16xf32>, tensor<16x1xf32> to tensor<16x1xf32>
  %lr = amp.add %or, %b2 : tensor<16x1xf32>, tensor<1xf32>
  %hf = amp.matmul %fake, %w1 : tensor<16x8xf32>, tensor<8x16xf32> to tensor<16x16xf32>
  %hfb = amp.add %hf, %b1 : tensor<16x16xf32>, tensor<16xf32>
  %tf = amp.tanh %hfb : tensor<16x16xf32>
  %of = amp.matmul %tf, %w2 : tensor<16x16xf32>, tensor<16x1xf32> to tensor<16x1xf32>
  %lf = amp.add %of, %b2 : tensor<16x1xf32>, tensor<1xf32>
  %nr = amp.neg %lr : tensor<16x1xf32>
  %spr = amp.softplus %nr : tensor<16x1xf32>
  %mr = amp.mean %spr dims = [0, 1] : tensor<16x1xf32> to tensor<f32>
  %spf = amp.softplus %lf : tensor<16x1xf32>
  %mf = amp.mean %spf dims = [0, 1] : tensor<16x1xf32> to tensor<f32>
  %adv = amp.add %mr, %mf : tensor<f32>, tensor<f32>
  %sq = amp.mul %gx, %gx : tensor<16x8xf32>, tensor<16x8xf32>
  %rows = amp.sum %sq dims = [1] : tensor<16x8xf32> to tensor<16xf32>
  %r1 = amp.mean %rows dims = [0] : tensor<16xf32> to tensor<f32>
  %half_gamma = amp.constant dense<5.0> : tensor<f32>
  %pen = amp.mul %r1, %half_gamma : tensor<f32>, tensor<f32>
  %total = amp.add %adv, %pen : tensor<f32>, tensor<f32>
  return %total : tensor<f32>
}
