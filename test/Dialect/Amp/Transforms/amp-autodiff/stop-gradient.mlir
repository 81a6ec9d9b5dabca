// amp.stop_gradient (PyTorch's detach): no gradient flows through it. The
// loss reads w twice, once through it, so w's gradient is x's column sums
// once, not twice; the gradient and evaluation functions read its input in
// its place. The interpreter computes both, for x and w all ones (x 2x3,
// w 3): the loss is 2 * sum(x w) = 2 * 6 = 12, and each element of w's
// gradient is 2 (a column sum of x), where through both products it would
// be 4.
// RUN: amp-opt %s --amp-autodiff | FileCheck %s
// RUN: amp-opt %s --amp-evaluation | FileCheck %s --check-prefix=EVAL
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as n; n.save('%t/x.npy', n.ones((2, 3), n.float32)); n.save('%t/w.npy', n.ones(3, n.float32))"
// RUN: amp-opt %s --amp-autodiff -o %t/grad.mlir
// RUN: amp-run %t/grad.mlir --function=f_grad --input=%t/x.npy --input=%t/w.npy | FileCheck %s --check-prefix=GRAD
// RUN: amp-run %s --function=f --input=%t/x.npy --input=%t/w.npy | FileCheck %s --check-prefix=FORWARD

// CHECK-LABEL: func.func @f(
// CHECK: amp.stop_gradient
// CHECK-LABEL: func.func @f_grad(
// CHECK-NOT: amp.stop_gradient
// The seed reaches w through the one product that is not stopped.
// CHECK-COUNT-1: amp.mul %{{.*}}, %arg0
// CHECK-NOT: amp.mul %{{.*}}, %arg0
// CHECK: return

// EVAL-LABEL: func.func @f_eval(
// EVAL-NOT: amp.stop_gradient
// EVAL: return

// GRAD: result #0: tensor<f32> = [12]
// GRAD-NEXT: result #1: tensor<3xf32> = [2, 2, 2]
// FORWARD: result #0: tensor<f32> = [12]
func.func @f(%x: tensor<2x3xf32>, %w: tensor<3xf32> {amp.param}) -> tensor<f32> {
  %fixed = amp.stop_gradient %w : tensor<3xf32>
  %a = amp.mul %x, %w : tensor<2x3xf32>, tensor<3xf32>
  %b = amp.mul %x, %fixed : tensor<2x3xf32>, tensor<3xf32>
  %s = amp.add %a, %b : tensor<2x3xf32>, tensor<2x3xf32>
  %l = amp.sum %s dims = [0, 1] : tensor<2x3xf32> to tensor<f32>
  return %l : tensor<f32>
}
