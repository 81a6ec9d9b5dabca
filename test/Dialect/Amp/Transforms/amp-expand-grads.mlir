// RUN: amp-opt %s --amp-expand-grads --split-input-file --verify-diagnostics | FileCheck %s

// The region's ops bound to the inputs, then their vector-Jacobian
// products from a seed of 1 (amp.inner_seed: amp-loss-scaling makes it the
// loss scale), each gradient divided by the seed in f32 as GradScaler's
// inverse (amp.inner_grad): the value and the gradient replace the
// amp.grad's results.
// CHECK-LABEL: func.func @relu_sum
// CHECK-NOT: amp.grad
// CHECK: %[[R:.*]] = amp.relu %arg0 : tensor<4xf32>
// CHECK: %[[V:.*]] = amp.sum %[[R]] dims = [0] : tensor<4xf32> to tensor<f32>
// CHECK: %[[SEED:.*]] = amp.constant {amp.inner_seed} dense<1.000000e+00> : tensor<f32>
// CHECK: %[[B:.*]] = amp.broadcast_to %{{.*}} : tensor<1xf32> to tensor<4xf32>
// CHECK: %[[G:.*]] = amp.relu_grad %arg0, %[[B]] : tensor<4xf32>
// CHECK: %[[ONE:.*]] = amp.constant dense<1.000000e+00> : tensor<f64>
// CHECK: %[[WIDE:.*]] = amp.cast %[[SEED]] : tensor<f32> to tensor<f64>
// CHECK: %[[INV64:.*]] = amp.div %[[ONE]], %[[WIDE]] : tensor<f64>, tensor<f64>
// CHECK: %[[INV:.*]] = amp.cast %[[INV64]] : tensor<f64> to tensor<f32>
// CHECK: %[[U:.*]] = amp.mul %[[G]], %[[INV]] {amp.inner_grad} : tensor<4xf32>, tensor<f32>
// CHECK: %[[P:.*]] = amp.mul %[[U]], %[[U]]
// CHECK: return %[[V]], %[[P]]
func.func @relu_sum(%x: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>) {
  %v, %g = amp.grad (%x) : (tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>) {
  ^bb0(%a: tensor<4xf32>):
    %r = amp.relu %a : tensor<4xf32>
    %s = amp.sum %r dims = [0] : tensor<4xf32> to tensor<f32>
    amp.yield %s : tensor<f32>
  }
  %p = amp.mul %g, %g : tensor<4xf32>, tensor<4xf32>
  return %v, %p : tensor<f32>, tensor<4xf32>
}

// -----

// A value read from around the region is a constant of the gradient; an
// input the value does not depend on gets zeros.
// CHECK-LABEL: func.func @captured
// CHECK-NOT: amp.grad
// CHECK: %[[M:.*]] = amp.mul %arg0, %arg1 : tensor<3xf32>, tensor<3xf32>
// CHECK: %[[D:.*]] = amp.mul %{{.*}}, %arg1 : tensor<3xf32>, tensor<3xf32>
// CHECK: %[[GX:.*]] = amp.mul %[[D]], %{{.*}} {amp.inner_grad}
// CHECK-NOT: amp.mul
// CHECK: %[[ZEROS:.*]] = amp.constant dense<0.000000e+00> : tensor<3xf32>
// CHECK: return %{{.*}}, %[[GX]], %[[ZEROS]]
func.func @captured(%x: tensor<3xf32>, %w: tensor<3xf32>, %u: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>, tensor<3xf32>) {
  %v, %gx, %gu = amp.grad (%x, %u) : (tensor<3xf32>, tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>, tensor<3xf32>) {
  ^bb0(%a: tensor<3xf32>, %b: tensor<3xf32>):
    %m = amp.mul %a, %w : tensor<3xf32>, tensor<3xf32>
    %s = amp.sum %m dims = [0] : tensor<3xf32> to tensor<f32>
    amp.yield %s : tensor<f32>
  }
  return %v, %gx, %gu : tensor<f32>, tensor<3xf32>, tensor<3xf32>
}

// -----

// One inside another: the inner first, then the outer differentiates the
// inner's gradient (a second derivative: d/dx of 3 x^2 is 6 x).
// CHECK-LABEL: func.func @nested
// CHECK-NOT: amp.grad
// CHECK: return
func.func @nested(%x: tensor<f32>) -> tensor<f32> {
  %v, %g = amp.grad (%x) : (tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  ^bb0(%a: tensor<f32>):
    %iv, %ig = amp.grad (%a) : (tensor<f32>) -> (tensor<f32>, tensor<f32>) {
    ^bb0(%b: tensor<f32>):
      %c = amp.pow %b, 3.0 : tensor<f32>
      amp.yield %c : tensor<f32>
    }
    amp.yield %ig : tensor<f32>
  }
  return %g : tensor<f32>
}

// -----

func.func @no_vjp(%x: tensor<4x3xf32>) -> tensor<f32> {
  %v, %g = amp.grad (%x) : (tensor<4x3xf32>) -> (tensor<f32>, tensor<4x3xf32>) {
  ^bb0(%a: tensor<4x3xf32>):
    // expected-error @+1 {{'amp.sum_squares' op has no vector-Jacobian product; amp-autodiff cannot differentiate the region of an amp.grad through it}}
    %s = amp.sum_squares %a : tensor<4x3xf32>
    amp.yield %s : tensor<f32>
  }
  return %v : tensor<f32>
}
