// A gradient taken inside the model (amp.grad) under loss scaling, as
// PyTorch's gradient-penalty recipe takes it: of the scaled loss (its seed
// is the loss scale), unscaled in f32 by float(1 / double(scale)) before
// the penalty reads it, and checked for inf and NaN with the parameters'
// gradients (a second amp.unscale, by 1, its found_inf joined by maximum).
// RUN: amp-opt %s --amp-expand-grads --amp-autocast=compute-type=f16 --amp-autodiff --amp-loss-scaling | FileCheck %s
// Without loss scaling the seed stays 1 and nothing more is checked.
// RUN: amp-opt %s --amp-expand-grads --amp-autodiff --amp-loss-scaling=mode=none | FileCheck %s --check-prefix=NONE

// CHECK-LABEL: func.func @penalty_grad
// CHECK-SAME: %[[S:[^:]*]]: tensor<f32> {amp.loss_scale, amp.name = "loss_scale"})
// CHECK-NOT: amp.inner_seed
// CHECK: %[[CE:.*]] = amp.cross_entropy_grad %{{.*}}, %{{.*}}, %[[S]]
// CHECK: %[[WIDE:.*]] = amp.cast %[[S]] : tensor<f32> to tensor<f64>
// CHECK: %[[INV64:.*]] = amp.div %{{.*}}, %[[WIDE]] : tensor<f64>, tensor<f64>
// CHECK: %[[INV:.*]] = amp.cast %[[INV64]] : tensor<f64> to tensor<f32>
// CHECK: %[[GX:.*]] = amp.mul %{{.*}}, %[[INV]] {amp.inner_grad} : tensor<4x3xf32>, tensor<f32>
// CHECK: %{{.*}}, %[[FOUND:.*]] = amp.unscale %{{.*}}, %{{.*}} : tensor<f32>, tensor<3x2xf32>
// CHECK: %[[ONE:.*]] = amp.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %{{.*}}, %[[INNER:.*]] = amp.unscale %[[ONE]], %[[GX]] : tensor<f32>, tensor<4x3xf32>
// CHECK: %[[ANY:.*]] = amp.maximum %[[FOUND]], %[[INNER]]
// CHECK: return {{.*}}, %[[ANY]] :
// NONE-LABEL: func.func @penalty_grad
// NONE: amp.constant {amp.inner_seed} dense<1.000000e+00> : tensor<f32>
// NONE-NOT: amp.unscale
func.func @penalty(%x: tensor<4x3xf32>, %labels: tensor<4xi64>,
                   %w: tensor<3x2xf32> {amp.param}) -> tensor<f32> {
  %loss, %gx = amp.grad (%x) : (tensor<4x3xf32>) -> (tensor<f32>, tensor<4x3xf32>) {
  ^bb0(%a: tensor<4x3xf32>):
    %logits = amp.matmul %a, %w : tensor<4x3xf32>, tensor<3x2xf32> to tensor<4x2xf32>
    %ce = amp.cross_entropy %logits, %labels : tensor<4x2xf32>, tensor<4xi64> to tensor<f32>
    amp.yield %ce : tensor<f32>
  }
  %sq = amp.mul %gx, %gx : tensor<4x3xf32>, tensor<4x3xf32>
  %pen = amp.sum %sq dims = [0, 1] : tensor<4x3xf32> to tensor<f32>
  %total = amp.add %loss, %pen : tensor<f32>, tensor<f32>
  return %total : tensor<f32>
}

