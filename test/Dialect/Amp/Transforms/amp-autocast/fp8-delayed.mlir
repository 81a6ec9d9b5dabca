// fp8-scaling=delayed: each FP8 GEMM autocast makes reads its scales (x, w,
// the gradient) from state of its own, three buffers after the function's
// arguments named after its weight: the scales (starting at 1), the amax
// history (fp8-amax-history rows, starting at 0) and the overflow counts.
// The recipe (amax_compute, margin) goes on the GEMM for amp-autodiff.
// RUN: amp-opt %s --amp-autocast="compute-type=fp8 fp8-keep-first-last=false fp8-scaling=delayed fp8-amax-history=16" | FileCheck %s
// RUN: amp-opt %s --amp-autocast="compute-type=fp8 fp8-keep-first-last=false fp8-scaling=delayed fp8-amax-history=4 fp8-margin=2 fp8-amax-compute=most-recent" | FileCheck %s --check-prefix=RECENT
// RUN: not amp-opt %s --amp-autocast="compute-type=fp8 fp8-scaling=later" 2>&1 | FileCheck %s --check-prefix=SCALING
// RUN: not amp-opt %s --amp-autocast="compute-type=fp8 fp8-scaling=delayed fp8-amax-compute=mean" 2>&1 | FileCheck %s --check-prefix=COMPUTE
// RUN: not amp-opt %s --amp-autocast="compute-type=fp8 fp8-scaling=delayed fp8-amax-history=0" 2>&1 | FileCheck %s --check-prefix=HISTORY
// RUN: not amp-opt %s --amp-autocast="compute-type=fp8 fp8-margin=1" 2>&1 | FileCheck %s --check-prefix=CURRENT
// RUN: not amp-opt %s --amp-train-step="compute-type=bf16 fp8-scaling=delayed" 2>&1 | FileCheck %s --check-prefix=BF16
// RUN: amp-opt %S/Inputs/fp8-delayed-called.mlir --amp-autocast="compute-type=fp8 fp8-keep-first-last=false fp8-scaling=delayed" -verify-diagnostics -o /dev/null
// RUN: amp-opt %S/Inputs/fp8-delayed-clash.mlir --amp-autocast="compute-type=fp8 fp8-keep-first-last=false fp8-scaling=delayed" -verify-diagnostics -o /dev/null

// CHECK-LABEL: func.func @mlp
// CHECK-SAME: %[[S1:[a-z0-9]*]]: tensor<3xf32> {amp.buffer = 1.000000e+00 : f64, amp.name = "w1.fp8_scale"}, %{{.*}}: tensor<16x3xf32> {amp.buffer, amp.name = "w1.fp8_amax_history"}, %{{.*}}: tensor<3xf32> {amp.buffer, amp.name = "w1.fp8_overflows"}
// CHECK-SAME: %[[S2:[a-z0-9]*]]: tensor<3xf32> {amp.buffer = 1.000000e+00 : f64, amp.name = "w2.fp8_scale"}, %{{.*}}: tensor<16x3xf32> {amp.buffer, amp.name = "w2.fp8_amax_history"}, %{{.*}}: tensor<3xf32> {amp.buffer, amp.name = "w2.fp8_overflows"})
// CHECK: amp.matmul %{{.*}}, %{{.*}} scales %[[S1]] {acc_type = f32, amp.fp8_delayed = {amax_compute = "max", margin = 0.000000e+00 : f64}, fp8_scale_index = array<i64: 0, 1, 2>, grad_fp8 = f8E5M2, lhs_fp8 = f8E4M3FN, rhs_fp8 = f8E4M3FN} : tensor<64x128xbf16>, tensor<128x256xbf16> scales tensor<3xf32>
// The product of two activations is no FP8 GEMM and has no state.
// CHECK: amp.matmul %{{.*}}, %{{.*}} {acc_type = f32, transpose_rhs} : tensor<64x256xbf16>, tensor<64x256xbf16>
// CHECK: amp.matmul %{{.*}}, %{{.*}} scales %[[S2]] {{.*}}fp8_scale_index = array<i64: 0, 1, 2>{{.*}} : tensor<64x64xbf16>, tensor<64x16xbf16> scales tensor<3xf32>
// RECENT: tensor<4x3xf32> {amp.buffer, amp.name = "w1.fp8_amax_history"}
// RECENT: amp.fp8_delayed = {amax_compute = "most_recent", margin = 2.000000e+00 : f64}
// SCALING: unknown fp8-scaling 'later'; expected current (this step's amax) or delayed (an amax history kept as step state)
// COMPUTE: unknown fp8-amax-compute 'mean'; expected max (the history's largest) or most-recent
// HISTORY: fp8-amax-history 0 is outside [1, 1048576] steps
// CURRENT: fp8-amax-history, fp8-margin and fp8-amax-compute configure delayed scaling; add fp8-scaling=delayed
// BF16: fp8-scaling is an option of compute-type=fp8 (or fp8-f16), not of compute-type=bf16
func.func @mlp(%x: tensor<64x128xf32>, %w1: tensor<128x256xf32> {amp.param},
               %w2: tensor<64x16xf32> {amp.param}) -> tensor<f32> {
  %h = amp.matmul %x, %w1 : tensor<64x128xf32>, tensor<128x256xf32> to tensor<64x256xf32>
  %a = amp.matmul %h, %h {transpose_rhs} : tensor<64x256xf32>, tensor<64x256xf32> to tensor<64x64xf32>
  %o = amp.matmul %a, %w2 : tensor<64x64xf32>, tensor<64x16xf32> to tensor<64x16xf32>
  %l = amp.sum %o dims = [0, 1] : tensor<64x16xf32> to tensor<f32>
  return %l : tensor<f32>
}
