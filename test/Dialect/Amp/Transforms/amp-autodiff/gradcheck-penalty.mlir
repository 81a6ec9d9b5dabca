// Gradient penalties: a loss plus the squared norm of a gradient taken
// inside the model (amp.grad), differentiated again by amp-autodiff. Each
// passes gradcheck: the parameters' gradients of the whole (first
// derivatives of the penalty, second of the inner loss) against five-point
// central differences in f64 of the function itself (amp-run expands its
// amp.grad as the training pipeline does), tolerance 1e-6 relative to the
// largest gradient of each parameter.
// RUN: for f in input_penalty param_penalty; do \
// RUN:   amp-run %s --function=$f --random-inputs=7 --index-bound=3 --gradcheck || exit 1; \
// RUN: done | FileCheck %s
// CHECK-NOT: FAILED
// The comparison is real: with no tolerance it fails.
// RUN: not amp-run %s --function=input_penalty --random-inputs=7 --index-bound=3 --gradcheck --gradcheck-tolerance=0 | FileCheck %s --check-prefix=STRICT
// STRICT: FAILED
// A second derivative by hand: at x = 3, the inner gradient of x^3 is
// 3 x^2 = 27 and its derivative 6 x = 18.
// RUN: amp-run %s --function=second | FileCheck %s --check-prefix=SECOND
// SECOND: result #0: tensor<f32> = [27]
// SECOND: result #1: tensor<f32> = [18]

// R1 or WGAN-GP's shape: the squared norm of the loss's gradient with
// respect to the input, through a linear layer, GELU, a layer norm, a
// second linear layer and cross-entropy.
// CHECK: gradcheck @input_penalty argument #0 {{.*}} ok
// CHECK: gradcheck @input_penalty argument #1 {{.*}} ok
// CHECK: gradcheck @input_penalty argument #2 {{.*}} ok
func.func @input_penalty(%w1: tensor<4x6xf32> {amp.param}, %b1: tensor<6xf32> {amp.param},
                         %w2: tensor<6x3xf32> {amp.param}, %x: tensor<5x4xf32>,
                         %y: tensor<5xi64>) -> tensor<f32> {
  %loss, %gx = amp.grad (%x) : (tensor<5x4xf32>) -> (tensor<f32>, tensor<5x4xf32>) {
  ^bb0(%a: tensor<5x4xf32>):
    %h = amp.matmul %a, %w1 : tensor<5x4xf32>, tensor<4x6xf32> to tensor<5x6xf32>
    %hb = amp.add %h, %b1 : tensor<5x6xf32>, tensor<6xf32>
    %g = amp.gelu %hb approximate = tanh : tensor<5x6xf32>
    %n = amp.layer_norm %g {epsilon = 1.0e-05 : f64} : tensor<5x6xf32>
    %logits = amp.matmul %n, %w2 : tensor<5x6xf32>, tensor<6x3xf32> to tensor<5x3xf32>
    %ce = amp.cross_entropy %logits, %y : tensor<5x3xf32>, tensor<5xi64> to tensor<f32>
    amp.yield %ce : tensor<f32>
  }
  %sq = amp.mul %gx, %gx : tensor<5x4xf32>, tensor<5x4xf32>
  %pen = amp.sum %sq dims = [0, 1] : tensor<5x4xf32> to tensor<f32>
  %total = amp.add %loss, %pen : tensor<f32>, tensor<f32>
  return %total : tensor<f32>
}

// PyTorch's recipe: the norm of the gradients with respect to the
// parameters themselves (sqrt of the sum of their squares), through ReLU,
// softmax and log-softmax.
// CHECK: gradcheck @param_penalty argument #0 {{.*}} ok
// CHECK: gradcheck @param_penalty argument #1 {{.*}} ok
func.func @param_penalty(%w1: tensor<4x6xf32> {amp.param}, %w2: tensor<6x3xf32> {amp.param},
                         %x: tensor<5x4xf32>, %y: tensor<5xi64>) -> tensor<f32> {
  %loss, %g1, %g2 = amp.grad (%w1, %w2) : (tensor<4x6xf32>, tensor<6x3xf32>) -> (tensor<f32>, tensor<4x6xf32>, tensor<6x3xf32>) {
  ^bb0(%a: tensor<4x6xf32>, %b: tensor<6x3xf32>):
    %h = amp.matmul %x, %a : tensor<5x4xf32>, tensor<4x6xf32> to tensor<5x6xf32>
    %r = amp.relu %h : tensor<5x6xf32>
    %p = amp.softmax %r dim = 1 : tensor<5x6xf32>
    %logits = amp.matmul %p, %b : tensor<5x6xf32>, tensor<6x3xf32> to tensor<5x3xf32>
    %ls = amp.log_softmax %logits dim = 1 : tensor<5x3xf32>
    %s = amp.sum %ls dims = [0, 1] : tensor<5x3xf32> to tensor<f32>
    %neg = amp.neg %s : tensor<f32>
    amp.yield %neg : tensor<f32>
  }
  %s1 = amp.mul %g1, %g1 : tensor<4x6xf32>, tensor<4x6xf32>
  %n1 = amp.sum %s1 dims = [0, 1] : tensor<4x6xf32> to tensor<f32>
  %s2 = amp.mul %g2, %g2 : tensor<6x3xf32>, tensor<6x3xf32>
  %n2 = amp.sum %s2 dims = [0, 1] : tensor<6x3xf32> to tensor<f32>
  %n = amp.add %n1, %n2 : tensor<f32>, tensor<f32>
  %norm = amp.sqrt %n : tensor<f32>
  %total = amp.add %loss, %norm : tensor<f32>, tensor<f32>
  return %total : tensor<f32>
}

func.func @second() -> (tensor<f32>, tensor<f32>) {
  %x = amp.constant dense<3.0> : tensor<f32>
  %v, %g = amp.grad (%x) : (tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  ^bb0(%a: tensor<f32>):
    %iv, %ig = amp.grad (%a) : (tensor<f32>) -> (tensor<f32>, tensor<f32>) {
    ^bb0(%b: tensor<f32>):
      %c = amp.pow %b, 3.0 : tensor<f32>
      amp.yield %c : tensor<f32>
    }
    amp.yield %ig : tensor<f32>
  }
  return %v, %g : tensor<f32>, tensor<f32>
}
