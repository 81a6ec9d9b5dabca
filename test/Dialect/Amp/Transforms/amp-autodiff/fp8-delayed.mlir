// Delayed FP8 scaling through amp-autodiff: the backward GEMMs read their
// scales from the forward's state (the gradient's at position 2); after
// the backward pass the amaxes of x, w (taken where the forward GEMM reads
// them) and the gradient (where its first backward GEMM reads it) update
// the state, whose next values the gradient function returns as the
// buffers'. amp-optimizer then keeps the old state on a skipped step.
// RUN: amp-opt %s --amp-autodiff -split-input-file -verify-diagnostics | FileCheck %s
// RUN: amp-opt %s --amp-autodiff --amp-loss-scaling=mode=dynamic --amp-optimizer=optimizer=sgd -split-input-file -verify-diagnostics | FileCheck %s --check-prefix=STEP

// CHECK-LABEL: func.func @linear_grad
// CHECK-SAME: %[[S:[a-z0-9]*]]: tensor<3xf32> {{.*}}, %[[H:[a-z0-9]*]]: tensor<4x3xf32> {{.*}}, %[[O:[a-z0-9]*]]: tensor<3xf32>
// CHECK: amp.matmul %[[X:[^,]*]], %[[W:[^ ]*]] scales %[[S]]
// CHECK-NEXT: %[[AX:.*]] = amp.fp8_amax %[[X]] : tensor<16x32xbf16>
// CHECK-NEXT: %[[AW:.*]] = amp.fp8_amax %[[W]] : tensor<32x48xbf16>
// CHECK: %[[AG:.*]] = amp.fp8_amax %[[G:.*]] : tensor<16x48xbf16>
// dx = g w^T: the gradient's scale and w's.
// CHECK-NEXT: amp.matmul %[[G]], %[[W]] scales %[[S]] {acc_type = f32, fp8_scale_index = array<i64: 2, 1>, lhs_fp8 = f8E5M2, rhs_fp8 = f8E4M3FN, transpose_rhs}
// dw = x^T g: x's scale and the gradient's.
// CHECK-NEXT: amp.matmul %[[X]], %[[G]] scales %[[S]] {acc_type = f32, fp8_scale_index = array<i64: 0, 2>, lhs_fp8 = f8E4M3FN, rhs_fp8 = f8E5M2, transpose_lhs}
// CHECK: %[[NS:.*]], %[[NH:.*]], %[[NO:.*]] = amp.fp8_scaling_update %[[S]], %[[H]], %[[O]], amax(%[[AX]], %[[AW]], %[[AG]] : tensor<f32>, tensor<f32>, tensor<f32>) {formats = [f8E4M3FN, f8E4M3FN, f8E5M2], margin = 1.000000e+00 : f64, most_recent} : tensor<3xf32>, tensor<4x3xf32>
// CHECK: return %{{.*}}, %{{.*}}, %{{.*}}, %[[NS]], %[[NH]], %[[NO]]

// STEP-LABEL: func.func @linear_step
// STEP: %[[CALL:.*]]:7 = call @linear_grad
// STEP: %[[APPLY:.*]] = amp.compare eq, %[[CALL]]#6
// STEP-DAG: amp.select %[[APPLY]], %[[CALL]]#3, %{{.*}} : tensor<i1>, tensor<3xf32>, tensor<3xf32>
// STEP-DAG: amp.select %[[APPLY]], %[[CALL]]#4, %{{.*}} : tensor<i1>, tensor<4x3xf32>, tensor<4x3xf32>
// STEP-DAG: amp.select %[[APPLY]], %[[CALL]]#5, %{{.*}} : tensor<i1>, tensor<3xf32>, tensor<3xf32>
func.func @linear(%x32: tensor<16x32xf32> {amp.param}, %w32: tensor<32x48xf32> {amp.param},
                  %s: tensor<3xf32> {amp.buffer = 1.0, amp.name = "w.fp8_scale"},
                  %h: tensor<4x3xf32> {amp.buffer, amp.name = "w.fp8_amax_history"},
                  %o: tensor<3xf32> {amp.buffer, amp.name = "w.fp8_overflows"}) -> tensor<f32> {
  %x = amp.cast %x32 : tensor<16x32xf32> to tensor<16x32xbf16>
  %w = amp.cast %w32 : tensor<32x48xf32> to tensor<32x48xbf16>
  %y = amp.matmul %x, %w scales %s {acc_type = f32, lhs_fp8 = f8E4M3FN, rhs_fp8 = f8E4M3FN, grad_fp8 = f8E5M2, fp8_scale_index = array<i64: 0, 1, 2>, amp.fp8_delayed = {amax_compute = "most_recent", margin = 1.0 : f64}} : tensor<16x32xbf16>, tensor<32x48xbf16> scales tensor<3xf32> to tensor<16x48xbf16>
  %f = amp.cast %y : tensor<16x48xbf16> to tensor<16x48xf32>
  %l = amp.sum %f dims = [0, 1] : tensor<16x48xf32> to tensor<f32>
  return %l : tensor<f32>
}

// -----

// No backward GEMM reads a gradient (no parameter before the GEMM): the
// gradient's amax is 0, which keeps its scale.
// CHECK-LABEL: func.func @frozen_grad
// CHECK: %[[ZERO:.*]] = amp.constant dense<0.000000e+00> : tensor<f32>
// CHECK: amp.fp8_scaling_update %{{.*}}, %{{.*}}, %{{.*}}, amax(%{{.*}}, %{{.*}}, %[[ZERO]] : tensor<f32>, tensor<f32>, tensor<f32>)
func.func @frozen(%x: tensor<16x32xbf16>, %w: tensor<32x48xbf16>, %b: tensor<f32> {amp.param},
                  %s: tensor<3xf32> {amp.buffer = 1.0, amp.name = "w.fp8_scale"},
                  %h: tensor<4x3xf32> {amp.buffer, amp.name = "w.fp8_amax_history"},
                  %o: tensor<3xf32> {amp.buffer, amp.name = "w.fp8_overflows"}) -> tensor<f32> {
  %y = amp.matmul %x, %w scales %s {acc_type = f32, lhs_fp8 = f8E4M3FN, rhs_fp8 = f8E4M3FN, grad_fp8 = f8E5M2, fp8_scale_index = array<i64: 0, 1, 2>, amp.fp8_delayed = {amax_compute = "max", margin = 0.0 : f64}} : tensor<16x32xbf16>, tensor<32x48xbf16> scales tensor<3xf32> to tensor<16x48xbf16>
  %f = amp.cast %y : tensor<16x48xbf16> to tensor<16x48xf32>
  %l = amp.sum %f dims = [0, 1] : tensor<16x48xf32> to tensor<f32>
  %m = amp.mul %l, %b : tensor<f32>, tensor<f32>
  return %m : tensor<f32>
}

// -----

func.func @unnamed(%x: tensor<16x32xbf16> {amp.param}, %w: tensor<32x48xbf16> {amp.param},
                   %s: tensor<3xf32> {amp.buffer = 1.0}) -> tensor<f32> {
  // expected-error @+1 {{'amp.matmul' op has amp.fp8_delayed, so amp-autodiff updates its scales: they must be an argument named '<prefix>.fp8_scale' (a tensor<3xf32>), with fp8_scale_index [0, 1, 2] and a grad_fp8}}
  %y = amp.matmul %x, %w scales %s {acc_type = f32, lhs_fp8 = f8E4M3FN, rhs_fp8 = f8E4M3FN, grad_fp8 = f8E5M2, fp8_scale_index = array<i64: 0, 1, 2>, amp.fp8_delayed = {amax_compute = "max", margin = 0.0 : f64}} : tensor<16x32xbf16>, tensor<32x48xbf16> scales tensor<3xf32> to tensor<16x48xbf16>
  %f = amp.cast %y : tensor<16x48xbf16> to tensor<16x48xf32>
  %l = amp.sum %f dims = [0, 1] : tensor<16x48xf32> to tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @no_history(%x: tensor<16x32xbf16> {amp.param}, %w: tensor<32x48xbf16> {amp.param},
                      %s: tensor<3xf32> {amp.buffer = 1.0, amp.name = "w.fp8_scale"}) -> tensor<f32> {
  // expected-error @+1 {{'amp.matmul' op has amp.fp8_delayed, and its function lacks the state beside 'w.fp8_scale': 'w.fp8_amax_history' (tensor<Hx3xf32>) and 'w.fp8_overflows' (tensor<3xf32>)}}
  %y = amp.matmul %x, %w scales %s {acc_type = f32, lhs_fp8 = f8E4M3FN, rhs_fp8 = f8E4M3FN, grad_fp8 = f8E5M2, fp8_scale_index = array<i64: 0, 1, 2>, amp.fp8_delayed = {amax_compute = "max", margin = 0.0 : f64}} : tensor<16x32xbf16>, tensor<32x48xbf16> scales tensor<3xf32> to tensor<16x48xbf16>
  %f = amp.cast %y : tensor<16x48xbf16> to tensor<16x48xf32>
  %l = amp.sum %f dims = [0, 1] : tensor<16x48xf32> to tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @shared(%x: tensor<16x32xbf16> {amp.param}, %w: tensor<32x48xbf16> {amp.param},
                  %s: tensor<3xf32> {amp.buffer = 1.0, amp.name = "w.fp8_scale"},
                  %h: tensor<4x3xf32> {amp.buffer, amp.name = "w.fp8_amax_history"},
                  %o: tensor<3xf32> {amp.buffer, amp.name = "w.fp8_overflows"}) -> tensor<f32> {
  %y = amp.matmul %x, %w scales %s {acc_type = f32, lhs_fp8 = f8E4M3FN, rhs_fp8 = f8E4M3FN, grad_fp8 = f8E5M2, fp8_scale_index = array<i64: 0, 1, 2>, amp.fp8_delayed = {amax_compute = "max", margin = 0.0 : f64}} : tensor<16x32xbf16>, tensor<32x48xbf16> scales tensor<3xf32> to tensor<16x48xbf16>
  // expected-error @+1 {{'amp.matmul' op reads delayed-scaling state 'w.fp8_scale' that another FP8 GEMM reads too; each FP8 GEMM has its own}}
  %z = amp.matmul %x, %w scales %s {acc_type = f32, lhs_fp8 = f8E4M3FN, rhs_fp8 = f8E4M3FN, grad_fp8 = f8E5M2, fp8_scale_index = array<i64: 0, 1, 2>, amp.fp8_delayed = {amax_compute = "max", margin = 0.0 : f64}} : tensor<16x32xbf16>, tensor<32x48xbf16> scales tensor<3xf32> to tensor<16x48xbf16>
  %a = amp.add %y, %z : tensor<16x48xbf16>, tensor<16x48xbf16>
  %f = amp.cast %a : tensor<16x48xbf16> to tensor<16x48xf32>
  %l = amp.sum %f dims = [0, 1] : tensor<16x48xf32> to tensor<f32>
  return %l : tensor<f32>
}
