// The training step threads the scaler state and gates every state update.
// RUN: amp-opt %S/Inputs/tiny-f16.mlir --amp-train-step="compute-type=none optimizer=adamw growth-interval=3 min-scale=1.0 max-scale=1.0e6 hysteresis=2" | FileCheck %s
// RUN: amp-opt %S/Inputs/tiny-f16.mlir --amp-train-step="compute-type=none optimizer=adamw accumulate=4" | FileCheck %s --check-prefix=ACCUM

// CHECK-LABEL: func.func @tiny_step
// CHECK-SAME: %[[P:[^:]*]]: tensor<16x4xf32> {amp.name = "w", amp.param}
// CHECK-SAME: %[[M:[^:]*]]: tensor<16x4xf32> {amp.name = "w.exp_avg", amp.state}, %[[V:[^:]*]]: tensor<16x4xf32> {amp.name = "w.exp_avg_sq", amp.state}, %[[T:[^:]*]]: tensor<f32> {amp.name = "step", amp.state}
// CHECK-SAME: %[[S:[^:]*]]: tensor<f32> {amp.loss_scale, amp.name = "loss_scale", amp.state = 6.553600e+04 : f64}
// CHECK-SAME: %[[G:[^:]*]]: tensor<f32> {amp.name = "growth_tracker", amp.state}
// CHECK-SAME: %[[H:[^:]*]]: tensor<f32> {amp.name = "hysteresis_tracker", amp.state = 2.000000e+00 : f64}
// CHECK-SAME: %{{[^:]*}}: tensor<8x16xf32> {amp.name = "x"}, %{{[^:]*}}: tensor<8xi64> {amp.name = "y"})
// CHECK: %[[R:.*]]:3 = call @tiny_grad(%[[P]], %{{.*}}, %{{.*}}, %[[S]])
// CHECK: %[[NEW:.*]], %[[NM:.*]], %[[NV:.*]] = amp.adamw_update
// CHECK: %[[CLEAN:.*]] = amp.compare eq, %[[R]]#2,
// CHECK: amp.select %[[CLEAN]], %[[NEW]], %[[P]]
// CHECK: amp.select %[[CLEAN]], %[[NM]], %[[M]]
// CHECK: amp.select %[[CLEAN]], %[[NV]], %[[V]]
// CHECK: amp.select %[[CLEAN]], %{{.*}}, %[[T]]
// CHECK: amp.scaler_update %[[S]], %[[G]], %[[H]], %[[R]]#2 {backoff_factor = 5.000000e-01 : f64, growth_factor = 2.000000e+00 : f64, growth_interval = 3 : i64, hysteresis = 2 : i64, max_scale = 1.000000e+06 : f64, min_scale = 1.000000e+00 : f64}
// CHECK: return {{.*}}, %[[R]]#0, %[[R]]#2

// Accumulation: found_inf is kept across micro-batches (maximum), checked
// and the scale updated once, on the last one.
// ACCUM-LABEL: func.func @tiny_step
// ACCUM-SAME: {amp.name = "micro_batch_found_inf", amp.state}
// ACCUM: %[[R:.*]]:3 = call @tiny_grad
// ACCUM: %[[ANY:.*]] = amp.maximum %{{.*}}, %[[R]]#2
// ACCUM: %[[DONE:.*]] = amp.compare ge
// ACCUM: amp.scaler_update {{.*}}, %[[ANY]]
// ACCUM: amp.select %[[DONE]]
