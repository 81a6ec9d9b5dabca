// RUN: split-file %s %t
// RUN: amp-translate --amp-to-cuda --amp-name=bw %t/mixed.mlir | FileCheck %s --check-prefix=MIXED
// RUN: amp-translate --amp-to-cuda --amp-name=tiny %t/accumulate.mlir | FileCheck %s --check-prefix=ACCUMULATE

// The optimizer updates of a step are one kernel; the runtime's
// multi-tensor update runs those it can (f32 tensors updated in place under
// a found_inf guard or none), and each of the others is a generated kernel.
// Both paths are checked against the interpreter by differential.test.

// A bf16 weight next to an f32 bias: the bias on the runtime, the weight
// in a generated kernel that loads and stores bf16.
// MIXED-LABEL: // k8_adamw_update_1:
// MIXED-NEXT: //   {{.*}} = amp.adamw_update %arg0,
// MIXED: : tensor<8x8xbf16>, tensor<f32>
// MIXED-NEXT: struct k8_adamw_update_1 {
// MIXED: amprt::AdamwScalars<float> scalars{};
// MIXED: scalars = amprt::adamwScalars<float>(
// MIXED: static_cast<double>(in0[0]));
// MIXED: float p = ampstep::ldBF16(in1, i);
// MIXED-NEXT: const float g = {{.*}};
// MIXED: amprt::adamwElement<float>(scalars, p, g, m, v);
// MIXED-NEXT: ampstep::stBF16(out0, i, p);
// MIXED: // k8_adamw_update: the runtime's multi-tensor update over 1 tensor{{$}}
// MIXED-NEXT: //   {{.*}} = amp.adamw_update %arg1,
// MIXED: : tensor<8xf32>, tensor<f32>
// MIXED-NEXT: {
// MIXED-NEXT: amp_adamw_config_t config{0x1.0624dd2f1a9fcp-10, 0x1.ccccccccccccdp-1, 0x1.ff7ced916872bp-1,
// MIXED-NEXT: 0x1.5798ee2308c3ap-27, 0x1.47ae147ae147bp-7};
// MIXED-NEXT: float *const params[] = {b};
// MIXED-NEXT: float *const grads[] = {[[GRAD:[a-z_0-9]+]]};
// MIXED-NEXT: float *const exp_avgs[] = {b_exp_avg};
// MIXED-NEXT: float *const exp_avg_sqs[] = {b_exp_avg_sq};
// MIXED-NEXT: const size_t sizes[] = {8};
// MIXED-NEXT: AMP_STEP_CHECK(amp_adamw_apply(
// MIXED-NEXT: stream, &config, amp_tensor_list_t{1, params, sizes}, amp_tensor_list_t{1, grads, sizes},
// MIXED-NEXT: amp_tensor_list_t{1, exp_avgs, sizes}, amp_tensor_list_t{1, exp_avg_sqs, sizes}, step,
// MIXED-NEXT: nullptr, amp_copy_list_t{AMP_F32, nullptr}));
// MIXED-NEXT: }
// MIXED-NEXT: AMP_STEP_CHECK(ampstep::launch(
// MIXED-NEXT: stream, "k8_adamw_update_1", 64,
// MIXED-NEXT: k8_adamw_update_1{step, w, {{.*}}}));

// With gradient accumulation the guard is not found_inf alone (the
// micro-batch counter decides too): generated kernels, each storing the new
// value where the step is kept and the old one elsewhere.
// ACCUMULATE-NOT: amp_sgd_apply
// ACCUMULATE: // [[K:k[0-9]+]]_sgd_update:
// ACCUMULATE-NEXT: //   [[NEW:%[0-9]+]] = amp.sgd_update %arg0, {{.*}}
// ACCUMULATE-NEXT: //       tensor<8x3xf32>
// ACCUMULATE-NEXT: //   {{.*}} = amp.select [[OK:%[0-9]+]], [[NEW]], %arg0 : tensor<i1>, tensor<8x3xf32>, tensor<8x3xf32>
// ACCUMULATE-NEXT: struct [[K]]_sgd_update {
// ACCUMULATE-NEXT:   const float *in0;
// ACCUMULATE-NEXT:   const float *in1;
// ACCUMULATE-NEXT:   const uint8_t *in2;
// ACCUMULATE-NEXT:   float *out0;
// ACCUMULATE:          const float p = amprt::sgdElement<float>(s, in0[i], {{.*}}, nullptr, false);
// ACCUMULATE-NEXT:     out0[i] = static_cast<float>(((in2[0] != 0) ? static_cast<float>(p) : in0[i]));
// The second update has the same code: it runs the first one's functor.
// ACCUMULATE: // [[K]]_sgd_update_1:
// ACCUMULATE-NEXT: //   {{.*}} = amp.sgd_update %arg1, {{.*}}
// ACCUMULATE-NEXT: //       tensor<3xf32>
// ACCUMULATE:      //   runs [[K]]_sgd_update, whose code it shares
// ACCUMULATE-NOT: amp_sgd_apply
// ACCUMULATE: "[[K]]_sgd_update", 24,{{[[:space:]]*}}[[K]]_sgd_update{w, {{.*}}}));
// ACCUMULATE-NEXT: "[[K]]_sgd_update_1", 3,{{[[:space:]]*}}[[K]]_sgd_update{b, {{.*}}}));

// The inputs are planned steps, written out so that only the translation
// is under test: mixed.mlir is what --amp-train-step{compute-type=none
// optimizer=adamw} and --amp-backend make of Inputs/bf16_weight.mlir, and
// accumulate.mlir what --amp-train-step{compute-type=f16 optimizer=sgd
// loss-scaling=dynamic accumulate=2} and --amp-backend make of
//   loss = cross_entropy(x @ w + b, labels)
// for x: 4x8, w: 8x3, b: 3.

//--- mixed.mlir
func.func @bf16_weight_step(%arg0: tensor<8x8xbf16> {amp.name = "w", amp.param},
                            %arg1: tensor<8xf32> {amp.name = "b", amp.param},
                            %arg2: tensor<8x8xbf16> {amp.name = "w.exp_avg", amp.state},
                            %arg3: tensor<8x8xbf16> {amp.name = "w.exp_avg_sq", amp.state},
                            %arg4: tensor<8xf32> {amp.name = "b.exp_avg", amp.state},
                            %arg5: tensor<8xf32> {amp.name = "b.exp_avg_sq", amp.state},
                            %arg6: tensor<f32> {amp.name = "step", amp.state},
                            %arg7: tensor<4x8xbf16> {amp.name = "x"},
                            %arg8: tensor<4xi64> {amp.name = "labels"})
    -> (tensor<8x8xbf16>, tensor<8xf32>, tensor<8x8xbf16>, tensor<8x8xbf16>, tensor<8xf32>, tensor<8xf32>, tensor<f32>, tensor<f32>)
    attributes {amp.arena_size = 1280 : i64, amp.memory = #amp.memory<arena = 1280, arguments = 580, peak = 1860, peak_f32 = 2308>} {
  %0 = amp.fusion() : () -> tensor<f32> attributes {amp.place = [#amp.place<arena 0>]} {
    %11 = amp.constant dense<1.000000e+00> : tensor<f32>
    amp.yield %11 : tensor<f32>
  }
  %1 = amp.fusion(%arg9 = %arg7, %arg10 = %arg0) : (tensor<4x8xbf16>, tensor<8x8xbf16>) -> tensor<4x8xbf16> attributes {amp.place = [#amp.place<arena 256>]} {
    %11 = amp.matmul %arg9, %arg10 : tensor<4x8xbf16>, tensor<8x8xbf16> to tensor<4x8xbf16>
    amp.yield %11 : tensor<4x8xbf16>
  }
  %2 = amp.fusion(%arg9 = %1, %arg10 = %arg1) : (tensor<4x8xbf16>, tensor<8xf32>) -> tensor<4x8xf32> attributes {amp.place = [#amp.place<arena 512>]} {
    %11 = amp.cast %arg9 : tensor<4x8xbf16> to tensor<4x8xf32>
    %12 = amp.add %11, %arg10 : tensor<4x8xf32>, tensor<8xf32>
    amp.yield %12 : tensor<4x8xf32>
  }
  %3 = amp.fusion(%arg9 = %2, %arg10 = %arg8) : (tensor<4x8xf32>, tensor<4xi64>) -> tensor<f32> attributes {amp.place = [#amp.place<arena 256>]} {
    %11 = amp.cross_entropy %arg9, %arg10 {amp.scratch = 768 : i64} : tensor<4x8xf32>, tensor<4xi64> to tensor<f32>
    amp.yield %11 : tensor<f32>
  }
  %4 = amp.fusion(%arg9 = %2, %arg10 = %arg8, %arg11 = %0) : (tensor<4x8xf32>, tensor<4xi64>, tensor<f32>) -> tensor<4x8xf32> attributes {amp.place = [#amp.place<arena 768>]} {
    %11 = amp.cross_entropy_grad %arg9, %arg10, %arg11 : tensor<4x8xf32>, tensor<4xi64>, tensor<f32>
    amp.yield %11 : tensor<4x8xf32>
  }
  %5 = amp.fusion(%arg9 = %4) : (tensor<4x8xf32>) -> tensor<1x8xf32> attributes {amp.place = [#amp.place<arena 512>]} {
    %11 = amp.sum %arg9 dims = [0] keepdims : tensor<4x8xf32> to tensor<1x8xf32>
    amp.yield %11 : tensor<1x8xf32>
  }
  %6 = amp.reshape %5 {amp.place = [#amp.place<view>]} : tensor<1x8xf32> to tensor<8xf32>
  %7 = amp.fusion(%arg9 = %4) : (tensor<4x8xf32>) -> tensor<4x8xbf16> attributes {amp.place = [#amp.place<arena 1024>]} {
    %11 = amp.cast %arg9 : tensor<4x8xf32> to tensor<4x8xbf16>
    amp.yield %11 : tensor<4x8xbf16>
  }
  %8 = amp.fusion(%arg9 = %arg7, %arg10 = %7) : (tensor<4x8xbf16>, tensor<4x8xbf16>) -> tensor<8x8xbf16> attributes {amp.place = [#amp.place<arena 768>]} {
    %11 = amp.matmul %arg9, %arg10 {transpose_lhs} : tensor<4x8xbf16>, tensor<4x8xbf16> to tensor<8x8xbf16>
    amp.yield %11 : tensor<8x8xbf16>
  }
  %9:6 = amp.fusion(%arg9 = %arg0, %arg10 = %8, %arg11 = %arg2, %arg12 = %arg3, %arg13 = %arg6, %arg14 = %arg1, %arg15 = %6, %arg16 = %arg4, %arg17 = %arg5) : (tensor<8x8xbf16>, tensor<8x8xbf16>, tensor<8x8xbf16>, tensor<8x8xbf16>, tensor<f32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<8x8xbf16>, tensor<8x8xbf16>, tensor<8x8xbf16>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) attributes {amp.place = [#amp.place<arg 0>, #amp.place<arg 2>, #amp.place<arg 3>, #amp.place<arg 1>, #amp.place<arg 4>, #amp.place<arg 5>]} {
    %new_param, %new_exp_avg, %new_exp_avg_sq = amp.adamw_update %arg9, %arg10, %arg11, %arg12, %arg13 {beta1 = 9.000000e-01 : f64, beta2 = 0.99899999999999999 : f64, eps = 1.000000e-08 : f64, lr = 1.000000e-03 : f64, weight_decay = 1.000000e-02 : f64} : tensor<8x8xbf16>, tensor<f32>
    %new_param_0, %new_exp_avg_1, %new_exp_avg_sq_2 = amp.adamw_update %arg14, %arg15, %arg16, %arg17, %arg13 {beta1 = 9.000000e-01 : f64, beta2 = 0.99899999999999999 : f64, eps = 1.000000e-08 : f64, lr = 1.000000e-03 : f64, weight_decay = 1.000000e-02 : f64} : tensor<8xf32>, tensor<f32>
    amp.yield %new_param, %new_exp_avg, %new_exp_avg_sq, %new_param_0, %new_exp_avg_1, %new_exp_avg_sq_2 : tensor<8x8xbf16>, tensor<8x8xbf16>, tensor<8x8xbf16>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
  }
  %10 = amp.fusion(%arg9 = %arg6, %arg10 = %0) : (tensor<f32>, tensor<f32>) -> tensor<f32> attributes {amp.place = [#amp.place<arg 6>]} {
    %11 = amp.add %arg9, %arg10 : tensor<f32>, tensor<f32>
    amp.yield %11 : tensor<f32>
  }
  return %9#0, %9#3, %9#1, %9#2, %9#4, %9#5, %10, %3 : tensor<8x8xbf16>, tensor<8xf32>, tensor<8x8xbf16>, tensor<8x8xbf16>, tensor<8xf32>, tensor<8xf32>, tensor<f32>, tensor<f32>
}

//--- accumulate.mlir
func.func @tiny_step(%arg0: tensor<8x3xf32> {amp.name = "w", amp.param},
                     %arg1: tensor<3xf32> {amp.name = "b", amp.param},
                     %arg2: tensor<8x3xf32> {amp.name = "w.grad_accumulator", amp.state},
                     %arg3: tensor<3xf32> {amp.name = "b.grad_accumulator", amp.state},
                     %arg4: tensor<f32> {amp.name = "micro_batch", amp.state},
                     %arg5: tensor<f32> {amp.name = "micro_batch_found_inf", amp.state},
                     %arg6: tensor<f32> {amp.loss_scale, amp.name = "loss_scale", amp.state = 6.553600e+04 : f64},
                     %arg7: tensor<f32> {amp.name = "growth_tracker", amp.state},
                     %arg8: tensor<f32> {amp.name = "hysteresis_tracker", amp.state = 1.000000e+00 : f64},
                     %arg9: tensor<4x8xf32> {amp.name = "x"},
                     %arg10: tensor<4xi64> {amp.name = "labels"})
    -> (tensor<8x3xf32>, tensor<3xf32>, tensor<8x3xf32>, tensor<3xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>)
    attributes {amp.arena_size = 3072 : i64, amp.memory = #amp.memory<arena = 3072, arguments = 396, peak = 3468, peak_f32 = 3468>} {
  %0 = amp.fusion() : () -> tensor<f32> attributes {amp.place = [#amp.place<arena 0>]} {
    %33 = amp.constant dense<0.000000e+00> : tensor<f32>
    amp.yield %33 : tensor<f32>
  }
  %1 = amp.fusion() : () -> tensor<f32> attributes {amp.place = [#amp.place<arena 256>]} {
    %33 = amp.constant dense<2.000000e+00> : tensor<f32>
    amp.yield %33 : tensor<f32>
  }
  %2 = amp.fusion(%arg11 = %arg9) : (tensor<4x8xf32>) -> tensor<4x8xf16> attributes {amp.place = [#amp.place<arena 512>]} {
    %33 = amp.cast %arg11 : tensor<4x8xf32> to tensor<4x8xf16>
    amp.yield %33 : tensor<4x8xf16>
  }
  %3 = amp.fusion(%arg11 = %arg0) : (tensor<8x3xf32>) -> tensor<8x3xf16> attributes {amp.place = [#amp.place<arena 768>]} {
    %33 = amp.cast %arg11 : tensor<8x3xf32> to tensor<8x3xf16>
    amp.yield %33 : tensor<8x3xf16>
  }
  %4 = amp.fusion(%arg11 = %2, %arg12 = %3, %arg13 = %arg1) : (tensor<4x8xf16>, tensor<8x3xf16>, tensor<3xf32>) -> tensor<4x3xf32> attributes {amp.place = [#amp.place<arena 1024>]} {
    %33 = amp.matmul %arg11, %arg12 bias %arg13 {acc_type = f32, amp.epilogue = #amp.epilogue<bias>} : tensor<4x8xf16>, tensor<8x3xf16>, tensor<3xf32> to tensor<4x3xf32>
    amp.yield %33 : tensor<4x3xf32>
  }
  %5 = amp.fusion(%arg11 = %4, %arg12 = %arg10) : (tensor<4x3xf32>, tensor<4xi64>) -> tensor<f32> attributes {amp.place = [#amp.place<arena 768>]} {
    %33 = amp.cross_entropy %arg11, %arg12 {amp.scratch = 1280 : i64} : tensor<4x3xf32>, tensor<4xi64> to tensor<f32>
    amp.yield %33 : tensor<f32>
  }
  %6 = amp.fusion(%arg11 = %4, %arg12 = %arg10, %arg13 = %arg6) : (tensor<4x3xf32>, tensor<4xi64>, tensor<f32>) -> tensor<4x3xf32> attributes {amp.place = [#amp.place<arena 1280>]} {
    %33 = amp.cross_entropy_grad %arg11, %arg12, %arg13 : tensor<4x3xf32>, tensor<4xi64>, tensor<f32>
    amp.yield %33 : tensor<4x3xf32>
  }
  %7 = amp.fusion(%arg11 = %6) : (tensor<4x3xf32>) -> tensor<4x3xf16> attributes {amp.place = [#amp.place<arena 1024>]} {
    %33 = amp.cast %arg11 : tensor<4x3xf32> to tensor<4x3xf16>
    amp.yield %33 : tensor<4x3xf16>
  }
  %8 = amp.fusion(%arg11 = %2, %arg12 = %7) : (tensor<4x8xf16>, tensor<4x3xf16>) -> tensor<8x3xf16> attributes {amp.place = [#amp.place<arena 1536>]} {
    %33 = amp.matmul %arg11, %arg12 {acc_type = f32, transpose_lhs} : tensor<4x8xf16>, tensor<4x3xf16> to tensor<8x3xf16>
    amp.yield %33 : tensor<8x3xf16>
  }
  %9 = amp.fusion(%arg11 = %6) : (tensor<4x3xf32>) -> tensor<1x3xf32> attributes {amp.place = [#amp.place<arena 512>]} {
    %33 = amp.sum %arg11 dims = [0] keepdims : tensor<4x3xf32> to tensor<1x3xf32>
    amp.yield %33 : tensor<1x3xf32>
  }
  %10 = amp.reshape %9 {amp.place = [#amp.place<view>]} : tensor<1x3xf32> to tensor<3xf32>
  %11 = amp.fusion(%arg11 = %8) : (tensor<8x3xf16>) -> tensor<8x3xf32> attributes {amp.place = [#amp.place<arena 1024>]} {
    %33 = amp.cast %arg11 : tensor<8x3xf16> to tensor<8x3xf32>
    amp.yield %33 : tensor<8x3xf32>
  }
  %12 = amp.fusion(%arg11 = %arg6) : (tensor<f32>) -> tensor<f32> attributes {amp.place = [#amp.place<arena 1280>]} {
    %33 = amp.constant dense<1.000000e+00> : tensor<f64>
    %34 = amp.cast %arg11 : tensor<f32> to tensor<f64>
    %35 = amp.div %33, %34 : tensor<f64>, tensor<f64>
    %36 = amp.cast %35 : tensor<f64> to tensor<f32>
    amp.yield %36 : tensor<f32>
  }
  %13:3 = amp.fusion(%arg11 = %12, %arg12 = %11, %arg13 = %10) : (tensor<f32>, tensor<8x3xf32>, tensor<3xf32>) -> (tensor<8x3xf32>, tensor<3xf32>, tensor<f32>) attributes {amp.place = [#amp.place<arena 1024>, #amp.place<arena 512>, #amp.place<arena 1536>]} {
    %unscaled:2, %found_inf = amp.unscale %arg11, %arg12, %arg13 : tensor<f32>, tensor<8x3xf32>, tensor<3xf32>
    amp.yield %unscaled#0, %unscaled#1, %found_inf : tensor<8x3xf32>, tensor<3xf32>, tensor<f32>
  }
  %14 = amp.fusion(%arg11 = %arg5, %arg12 = %13#2) : (tensor<f32>, tensor<f32>) -> tensor<f32> attributes {amp.place = [#amp.place<arena 1280>]} {
    %33 = amp.maximum %arg11, %arg12 : tensor<f32>, tensor<f32>
    amp.yield %33 : tensor<f32>
  }
  %15 = amp.fusion(%arg11 = %arg4) : (tensor<f32>) -> tensor<f32> attributes {amp.place = [#amp.place<arena 1536>]} {
    %33 = amp.constant dense<1.000000e+00> : tensor<f32>
    %34 = amp.add %arg11, %33 : tensor<f32>, tensor<f32>
    amp.yield %34 : tensor<f32>
  }
  %16 = amp.fusion(%arg11 = %15, %arg12 = %1) : (tensor<f32>, tensor<f32>) -> tensor<i1> attributes {amp.place = [#amp.place<arena 1792>]} {
    %33 = amp.compare ge, %arg11, %arg12 : tensor<f32>, tensor<f32>
    amp.yield %33 : tensor<i1>
  }
  %17 = amp.fusion(%arg11 = %arg2, %arg12 = %13#0) : (tensor<8x3xf32>, tensor<8x3xf32>) -> tensor<8x3xf32> attributes {amp.place = [#amp.place<arena 2048>]} {
    %33 = amp.add %arg11, %arg12 : tensor<8x3xf32>, tensor<8x3xf32>
    amp.yield %33 : tensor<8x3xf32>
  }
  %18 = amp.fusion(%arg11 = %17, %arg12 = %1) : (tensor<8x3xf32>, tensor<f32>) -> tensor<8x3xf32> attributes {amp.place = [#amp.place<arena 1024>]} {
    %33 = amp.div %arg11, %arg12 : tensor<8x3xf32>, tensor<f32>
    amp.yield %33 : tensor<8x3xf32>
  }
  %19 = amp.fusion(%arg11 = %arg3, %arg12 = %13#1) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32> attributes {amp.place = [#amp.place<arena 2304>]} {
    %33 = amp.add %arg11, %arg12 : tensor<3xf32>, tensor<3xf32>
    amp.yield %33 : tensor<3xf32>
  }
  %20 = amp.fusion(%arg11 = %19, %arg12 = %1) : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32> attributes {amp.place = [#amp.place<arena 512>]} {
    %33 = amp.div %arg11, %arg12 : tensor<3xf32>, tensor<f32>
    amp.yield %33 : tensor<3xf32>
  }
  %21 = amp.fusion(%arg11 = %14, %arg12 = %0) : (tensor<f32>, tensor<f32>) -> tensor<i1> attributes {amp.place = [#amp.place<arena 256>]} {
    %33 = amp.compare eq, %arg11, %arg12 : tensor<f32>, tensor<f32>
    amp.yield %33 : tensor<i1>
  }
  %22:2 = amp.fusion(%arg11 = %arg0, %arg12 = %18, %arg13 = %arg1, %arg14 = %20, %arg15 = %21) : (tensor<8x3xf32>, tensor<8x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<i1>) -> (tensor<8x3xf32>, tensor<3xf32>) attributes {amp.place = [#amp.place<arena 2560>, #amp.place<arena 2816>]} {
    %33 = amp.sgd_update %arg11, %arg12 {lr = 1.000000e-03 : f64, weight_decay = 0.000000e+00 : f64} : tensor<8x3xf32>
    %34 = amp.sgd_update %arg13, %arg14 {lr = 1.000000e-03 : f64, weight_decay = 0.000000e+00 : f64} : tensor<3xf32>
    %35 = amp.select %arg15, %33, %arg11 : tensor<i1>, tensor<8x3xf32>, tensor<8x3xf32>
    %36 = amp.select %arg15, %34, %arg13 : tensor<i1>, tensor<3xf32>, tensor<3xf32>
    amp.yield %35, %36 : tensor<8x3xf32>, tensor<3xf32>
  }
  %23:3 = amp.fusion(%arg11 = %arg6, %arg12 = %arg7, %arg13 = %arg8, %arg14 = %14) : (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>) attributes {amp.place = [#amp.place<arena 256>, #amp.place<arena 512>, #amp.place<arena 1024>]} {
    %new_scale, %new_growth_tracker, %new_hysteresis_tracker = amp.scaler_update %arg11, %arg12, %arg13, %arg14 {backoff_factor = 5.000000e-01 : f64, growth_factor = 2.000000e+00 : f64, growth_interval = 2000 : i64, hysteresis = 1 : i64} : tensor<f32>
    amp.yield %new_scale, %new_growth_tracker, %new_hysteresis_tracker : tensor<f32>, tensor<f32>, tensor<f32>
  }
  %24 = amp.fusion(%arg11 = %16, %arg12 = %22#0, %arg13 = %arg0) : (tensor<i1>, tensor<8x3xf32>, tensor<8x3xf32>) -> tensor<8x3xf32> attributes {amp.place = [#amp.place<arg 0>]} {
    %33 = amp.select %arg11, %arg12, %arg13 : tensor<i1>, tensor<8x3xf32>, tensor<8x3xf32>
    amp.yield %33 : tensor<8x3xf32>
  }
  %25 = amp.fusion(%arg11 = %16, %arg12 = %22#1, %arg13 = %arg1) : (tensor<i1>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32> attributes {amp.place = [#amp.place<arg 1>]} {
    %33 = amp.select %arg11, %arg12, %arg13 : tensor<i1>, tensor<3xf32>, tensor<3xf32>
    amp.yield %33 : tensor<3xf32>
  }
  %26 = amp.fusion(%arg11 = %16, %arg12 = %23#0, %arg13 = %arg6) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32> attributes {amp.place = [#amp.place<arg 6>]} {
    %33 = amp.select %arg11, %arg12, %arg13 : tensor<i1>, tensor<f32>, tensor<f32>
    amp.yield %33 : tensor<f32>
  }
  %27 = amp.fusion(%arg11 = %16, %arg12 = %23#1, %arg13 = %arg7) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32> attributes {amp.place = [#amp.place<arg 7>]} {
    %33 = amp.select %arg11, %arg12, %arg13 : tensor<i1>, tensor<f32>, tensor<f32>
    amp.yield %33 : tensor<f32>
  }
  %28 = amp.fusion(%arg11 = %16, %arg12 = %23#2, %arg13 = %arg8) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32> attributes {amp.place = [#amp.place<arg 8>]} {
    %33 = amp.select %arg11, %arg12, %arg13 : tensor<i1>, tensor<f32>, tensor<f32>
    amp.yield %33 : tensor<f32>
  }
  %29 = amp.fusion(%arg11 = %16, %arg12 = %17) : (tensor<i1>, tensor<8x3xf32>) -> tensor<8x3xf32> attributes {amp.place = [#amp.place<arg 2>]} {
    %33 = amp.constant dense<0.000000e+00> : tensor<8x3xf32>
    %34 = amp.select %arg11, %33, %arg12 : tensor<i1>, tensor<8x3xf32>, tensor<8x3xf32>
    amp.yield %34 : tensor<8x3xf32>
  }
  %30 = amp.fusion(%arg11 = %16, %arg12 = %19) : (tensor<i1>, tensor<3xf32>) -> tensor<3xf32> attributes {amp.place = [#amp.place<arg 3>]} {
    %33 = amp.constant dense<0.000000e+00> : tensor<3xf32>
    %34 = amp.select %arg11, %33, %arg12 : tensor<i1>, tensor<3xf32>, tensor<3xf32>
    amp.yield %34 : tensor<3xf32>
  }
  %31 = amp.fusion(%arg11 = %16, %arg12 = %0, %arg13 = %15) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32> attributes {amp.place = [#amp.place<arg 4>]} {
    %33 = amp.select %arg11, %arg12, %arg13 : tensor<i1>, tensor<f32>, tensor<f32>
    amp.yield %33 : tensor<f32>
  }
  %32 = amp.fusion(%arg11 = %16, %arg12 = %0, %arg13 = %14) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32> attributes {amp.place = [#amp.place<arg 5>]} {
    %33 = amp.select %arg11, %arg12, %arg13 : tensor<i1>, tensor<f32>, tensor<f32>
    amp.yield %33 : tensor<f32>
  }
  return %24, %25, %29, %30, %31, %32, %26, %27, %28, %5, %14 : tensor<8x3xf32>, tensor<3xf32>, tensor<8x3xf32>, tensor<3xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>
}
