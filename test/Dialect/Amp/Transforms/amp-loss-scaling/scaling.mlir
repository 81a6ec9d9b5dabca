// The gradient function after --amp-loss-scaling.
// RUN: amp-opt %s --amp-autodiff --amp-loss-scaling | FileCheck %s
// RUN: amp-opt %s --amp-autodiff --amp-loss-scaling=mode=static | FileCheck %s --check-prefix=STATIC
// RUN: amp-opt %s --amp-autodiff --amp-loss-scaling=mode=none | FileCheck %s --check-prefix=NONE
// RUN: amp-opt %s --amp-autodiff "--amp-loss-scaling=init-scale=1024 growth-interval=100 hysteresis=2 min-scale=1 max-scale=1e10" | FileCheck %s --check-prefix=CLAMPS
// RUN: amp-opt %s --amp-autodiff "--amp-loss-scaling=mode=static init-scale=1024 min-scale=1" | FileCheck %s --check-prefix=STATIC-CLAMPS

// f16 values: dynamic by default. The seed is the scale; the f32 parameter
// gradients are unscaled by float(1 / double(scale)) in one op that also
// reports found_inf. The scale argument is named by its role.
// CHECK-LABEL: func.func @f16_model_grad
// CHECK-SAME: %[[S:[^:]*]]: tensor<f32> {amp.loss_scale, amp.name = "loss_scale"})
// CHECK-SAME: -> (tensor<f32>, tensor<16x4xf32>, tensor<f32>)
// CHECK-SAME: amp.loss_scaling = #amp.loss_scaling<dynamic, init_scale = 6.553600e+04, growth_factor = 2.000000e+00, backoff_factor = 5.000000e-01, growth_interval = 2000, hysteresis = 1>
// CHECK-NOT: amp.seed
// CHECK: amp.cross_entropy_grad %{{.*}}, %{{.*}}, %{{.*}} : tensor<8x4xf16>, tensor<8xi64>, tensor<f32>
// CHECK: %[[WIDE:.*]] = amp.cast %[[S]] : tensor<f32> to tensor<f64>
// CHECK: %[[ONE:.*]] = amp.constant dense<1.000000e+00> : tensor<f64>
// CHECK: %[[INV64:.*]] = amp.div %[[ONE]], %[[WIDE]]
// CHECK: %[[INV:.*]] = amp.cast %[[INV64]] : tensor<f64> to tensor<f32>
// CHECK: %[[G:.*]], %[[FOUND:.*]] = amp.unscale %[[INV]], %{{.*}} : tensor<f32>, tensor<16x4xf32>
// CHECK: return %{{.*}}, %[[G]], %[[FOUND]]
// STATIC-LABEL: func.func @f16_model_grad
// STATIC-SAME: amp.loss_scaling = #amp.loss_scaling<static, init_scale = 6.553600e+04>
// The options reach the attribute; a static scale records only itself
// (its clamps were checked as options).
// CLAMPS-LABEL: func.func @f16_model_grad
// CLAMPS-SAME: amp.loss_scaling = #amp.loss_scaling<dynamic, init_scale = 1.024000e+03, growth_factor = 2.000000e+00, backoff_factor = 5.000000e-01, growth_interval = 100, hysteresis = 2, min_scale = 1.000000e+00, max_scale = 1.000000e+10>
// STATIC-CLAMPS-LABEL: func.func @f16_model_grad
// STATIC-CLAMPS-SAME: amp.loss_scaling = #amp.loss_scaling<static, init_scale = 1.024000e+03>
// NONE-LABEL: func.func @f16_model_grad
// NONE-NOT: amp.unscale
func.func @f16_model(%w: tensor<16x4xf32> {amp.param}, %x: tensor<8x16xf32>, %y: tensor<8xi64>) -> tensor<f32> {
  %wh = amp.cast %w : tensor<16x4xf32> to tensor<16x4xf16>
  %xh = amp.cast %x : tensor<8x16xf32> to tensor<8x16xf16>
  %logits = amp.matmul %xh, %wh {acc_type = f32} : tensor<8x16xf16>, tensor<16x4xf16> to tensor<8x4xf16>
  %loss = amp.cross_entropy %logits, %y : tensor<8x4xf16>, tensor<8xi64> to tensor<f32>
  return %loss : tensor<f32>
}

// bf16 and f32 graphs need no scaling: auto leaves them alone.
// CHECK-LABEL: func.func @bf16_model_grad
// CHECK-NOT: amp.unscale
// CHECK-NOT: amp.loss_scale
// CHECK: return
func.func @bf16_model(%w: tensor<16x4xf32> {amp.param}, %x: tensor<8x16xf32>, %y: tensor<8xi64>) -> tensor<f32> {
  %wh = amp.cast %w : tensor<16x4xf32> to tensor<16x4xbf16>
  %xh = amp.cast %x : tensor<8x16xf32> to tensor<8x16xbf16>
  %logits = amp.matmul %xh, %wh {acc_type = f32} : tensor<8x16xbf16>, tensor<16x4xbf16> to tensor<8x4xbf16>
  %loss = amp.cross_entropy %logits, %y : tensor<8x4xbf16>, tensor<8xi64> to tensor<f32>
  return %loss : tensor<f32>
}
