// WGAN-GP's critic step: the Wasserstein estimate plus 10 times the mean
// of (|grad_x D(x_hat)| - 1)^2 at interpolates x_hat = mix real + (1 - mix)
// fake, the input gradient taken inside the step (amp.grad).
// scripts/make_golden_penalty.py trains the same critic with the recipe as
// written; test/Golden/penalty.test compares.
func.func @wgan_gp(%real: tensor<16x8xf32>, %fake: tensor<16x8xf32>,
                   %mix: tensor<16x1xf32>,
                   %w1: tensor<8x16xf32> {amp.param},
                   %b1: tensor<16xf32> {amp.param},
                   %w2: tensor<16x1xf32> {amp.param},
                   %b2: tensor<1xf32> {amp.param}) -> tensor<f32> {
  %hr = amp.matmul %real, %w1 : tensor<16x8xf32>, tensor<8x16xf32> to tensor<16x16xf32>
  %hrb = amp.add %hr, %b1 : tensor<16x16xf32>, tensor<16xf32>
  %tr = amp.tanh %hrb : tensor<16x16xf32>
  %or = amp.matmul %tr, %w2 : tensor<16x16xf32>, tensor<16x1xf32> to tensor<16x1xf32>
  %dr = amp.add %or, %b2 : tensor<16x1xf32>, tensor<1xf32>
  %hf = amp.matmul %fake, %w1 : tensor<16x8xf32>, tensor<8x16xf32> to tensor<16x16xf32>
  %hfb = amp.add %hf, %b1 : tensor<16x16xf32>, tensor<16xf32>
  %tf = amp.tanh %hfb : tensor<16x16xf32>
  %of = amp.matmul %tf, %w2 : tensor<16x16xf32>, tensor<16x1xf32> to tensor<16x1xf32>
  %df = amp.add %of, %b2 : tensor<16x1xf32>, tensor<1xf32>
  %mr = amp.mean %dr dims = [0, 1] : tensor<16x1xf32> to tensor<f32>
  %mf = amp.mean %df dims = [0, 1] : tensor<16x1xf32> to tensor<f32>
  %w = amp.sub %mf, %mr : tensor<f32>, tensor<f32>
  %one = amp.constant dense<1.0> : tensor<f32>
  %rest = amp.sub %one, %mix : tensor<f32>, tensor<16x1xf32>
  %xr = amp.mul %mix, %real : tensor<16x1xf32>, tensor<16x8xf32>
  %xf = amp.mul %rest, %fake : tensor<16x1xf32>, tensor<16x8xf32>
  %xhat = amp.add %xr, %xf : tensor<16x8xf32>, tensor<16x8xf32>
  %v, %gx = amp.grad (%xhat) : (tensor<16x8xf32>) -> (tensor<f32>, tensor<16x8xf32>) {
  ^bb0(%a: tensor<16x8xf32>):
    %h = amp.matmul %a, %w1 : tensor<16x8xf32>, tensor<8x16xf32> to tensor<16x16xf32>
    %hb = amp.add %h, %b1 : tensor<16x16xf32>, tensor<16xf32>
    %t = amp.tanh %hb : tensor<16x16xf32>
    %o = amp.matmul %t, %w2 : tensor<16x16xf32>, tensor<16x1xf32> to tensor<16x1xf32>
    %d = amp.add %o, %b2 : tensor<16x1xf32>, tensor<1xf32>
    %s = amp.sum %d dims = [0, 1] : tensor<16x1xf32> to tensor<f32>
    amp.yield %s : tensor<f32>
  }
  %sq = amp.mul %gx, %gx : tensor<16x8xf32>, tensor<16x8xf32>
  %rows = amp.sum %sq dims = [1] : tensor<16x8xf32> to tensor<16xf32>
  %norms = amp.sqrt %rows : tensor<16xf32>
  %dev = amp.sub %norms, %one : tensor<16xf32>, tensor<f32>
  %dev2 = amp.mul %dev, %dev : tensor<16xf32>, tensor<16xf32>
  %gp = amp.mean %dev2 dims = [0] : tensor<16xf32> to tensor<f32>
  %lambda = amp.constant dense<10.0> : tensor<f32>
  %pen = amp.mul %gp, %lambda : tensor<f32>, tensor<f32>
  %total = amp.add %w, %pen : tensor<f32>, tensor<f32>
  return %total : tensor<f32>
}
