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
// MIXED: //       tensor<f32>
// MIXED-NEXT: struct k8_adamw_update_1 {
// MIXED: amprt::AdamwScalars<float> scalars{};
// MIXED: scalars = amprt::adamwScalars<float>(
// MIXED: static_cast<double>(in0[0]));
// MIXED: float p = ampstep::ldBF16(in1, i);
// MIXED-NEXT: const float g = {{.*}};
// MIXED: amprt::adamwElement<float>(scalars, p, g, m, v);
// MIXED-NEXT: ampstep::stBF16(out0, i, ampstep::rndBF16(p));
// MIXED: // k8_adamw_update: the runtime's multi-tensor update over 1 tensor{{$}}
// MIXED-NEXT: //   {{.*}} = amp.adamw_update %arg1,
// MIXED: //       tensor<8xf32>, tensor<f32>
// MIXED-NEXT: {
// MIXED-NEXT: amp_adamw_config_t config{0x1.0624dd2f1a9fcp-10, 0x1.ccccccccccccdp-1, 0x1.ff7ced916872bp-1,
// MIXED-NEXT: 0x1.5798ee2308c3ap-27, 0x1.47ae147ae147bp-7};
// MIXED-NEXT: float *const params[] = {b};
// MIXED-NEXT: float *const grads[] = {[[GRAD:[a-z_0-9]+]]};
// MIXED-NEXT: float *const exp_avgs[] = {b_exp_avg};
// MIXED-NEXT: float *const exp_avg_sqs[] = {b_exp_avg_sq};
// MIXED-NEXT: const size_t sizes[] = {8};
// MIXED-NEXT: AMP_STEP_CHECK(amp_adamw_apply(stream, &config, amp_tensor_list_t{1, params, sizes},
// MIXED-NEXT: amp_tensor_list_t{1, grads, sizes}, amp_tensor_list_t{1, exp_avgs, sizes},
// MIXED-NEXT: amp_tensor_list_t{1, exp_avg_sqs, sizes}, step, nullptr,
// MIXED-NEXT: amp_copy_list_t{AMP_F32, nullptr}));
// MIXED-NEXT: }
// MIXED-NEXT: AMP_STEP_CHECK(ampstep::launch(stream, "k8_adamw_update_1", 64,
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
// ACCUMULATE: "[[K]]_sgd_update", 24,
// ACCUMULATE-NEXT: [[K]]_sgd_update{w, {{.*}}}));
// ACCUMULATE-NEXT: "[[K]]_sgd_update_1", 3,
// ACCUMULATE-NEXT: [[K]]_sgd_update{b, {{.*}}}));

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
  %0 = amp.constant {amp.kernel = 0 : i64, amp.place = [#amp.place<arena 0>]} dense<1.000000e+00> : tensor<f32>
  %1 = amp.matmul %arg7, %arg0 {amp.kernel = 1 : i64, amp.place = [#amp.place<arena 256>]} : tensor<4x8xbf16>, tensor<8x8xbf16> to tensor<4x8xbf16>
  %2 = amp.cast %1 {amp.kernel = 2 : i64, amp.place = [#amp.place<fused>]} : tensor<4x8xbf16> to tensor<4x8xf32>
  %3 = amp.add %2, %arg1 {amp.kernel = 2 : i64, amp.place = [#amp.place<arena 512>]} : tensor<4x8xf32>, tensor<8xf32>
  %4 = amp.cross_entropy %3, %arg8 {amp.kernel = 3 : i64, amp.place = [#amp.place<arena 256>], amp.scratch = 768 : i64} : tensor<4x8xf32>, tensor<4xi64> to tensor<f32>
  %5 = amp.cross_entropy_grad %3, %arg8, %0 {amp.kernel = 4 : i64, amp.place = [#amp.place<arena 768>]} : tensor<4x8xf32>, tensor<4xi64>, tensor<f32>
  %6 = amp.sum %5 dims = [0] keepdims {amp.kernel = 5 : i64, amp.place = [#amp.place<arena 512>]} : tensor<4x8xf32> to tensor<1x8xf32>
  %7 = amp.reshape %6 {amp.place = [#amp.place<view>]} : tensor<1x8xf32> to tensor<8xf32>
  %8 = amp.cast %5 {amp.kernel = 6 : i64, amp.place = [#amp.place<arena 1024>]} : tensor<4x8xf32> to tensor<4x8xbf16>
  %9 = amp.matmul %arg7, %8 {amp.kernel = 7 : i64, amp.place = [#amp.place<arena 768>], transpose_lhs} : tensor<4x8xbf16>, tensor<4x8xbf16> to tensor<8x8xbf16>
  %new_param, %new_exp_avg, %new_exp_avg_sq = amp.adamw_update %arg0, %9, %arg2, %arg3, %arg6 {amp.kernel = 8 : i64, amp.place = [#amp.place<arg 0>, #amp.place<arg 2>, #amp.place<arg 3>], beta1 = 9.000000e-01 : f64, beta2 = 0.99899999999999999 : f64, eps = 1.000000e-08 : f64, lr = 1.000000e-03 : f64, weight_decay = 1.000000e-02 : f64} : tensor<8x8xbf16>, tensor<f32>
  %new_param_0, %new_exp_avg_1, %new_exp_avg_sq_2 = amp.adamw_update %arg1, %7, %arg4, %arg5, %arg6 {amp.kernel = 8 : i64, amp.place = [#amp.place<arg 1>, #amp.place<arg 4>, #amp.place<arg 5>], beta1 = 9.000000e-01 : f64, beta2 = 0.99899999999999999 : f64, eps = 1.000000e-08 : f64, lr = 1.000000e-03 : f64, weight_decay = 1.000000e-02 : f64} : tensor<8xf32>, tensor<f32>
  %10 = amp.add %arg6, %0 {amp.kernel = 9 : i64, amp.place = [#amp.place<arg 6>]} : tensor<f32>, tensor<f32>
  return %new_param, %new_param_0, %new_exp_avg, %new_exp_avg_sq, %new_exp_avg_1, %new_exp_avg_sq_2, %10, %4 : tensor<8x8xbf16>, tensor<8xf32>, tensor<8x8xbf16>, tensor<8x8xbf16>, tensor<8xf32>, tensor<8xf32>, tensor<f32>, tensor<f32>
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
  %0 = amp.constant {amp.kernel = 29 : i64, amp.place = [#amp.place<fused>]} dense<0.000000e+00> : tensor<3xf32>
  %1 = amp.constant {amp.kernel = 28 : i64, amp.place = [#amp.place<fused>]} dense<0.000000e+00> : tensor<8x3xf32>
  %2 = amp.constant {amp.kernel = 0 : i64, amp.place = [#amp.place<arena 0>]} dense<0.000000e+00> : tensor<f32>
  %3 = amp.constant {amp.kernel = 14 : i64, amp.place = [#amp.place<fused>]} dense<1.000000e+00> : tensor<f32>
  %4 = amp.constant {amp.kernel = 1 : i64, amp.place = [#amp.place<arena 256>]} dense<2.000000e+00> : tensor<f32>
  %5 = amp.constant {amp.kernel = 11 : i64, amp.place = [#amp.place<fused>]} dense<1.000000e+00> : tensor<f64>
  %6 = amp.cast %arg9 {amp.kernel = 2 : i64, amp.place = [#amp.place<arena 512>]} : tensor<4x8xf32> to tensor<4x8xf16>
  %7 = amp.cast %arg0 {amp.kernel = 3 : i64, amp.place = [#amp.place<arena 768>]} : tensor<8x3xf32> to tensor<8x3xf16>
  %8 = amp.matmul %6, %7 bias %arg1 {acc_type = f32, amp.epilogue = #amp.epilogue<bias>, amp.kernel = 4 : i64, amp.place = [#amp.place<arena 1024>]} : tensor<4x8xf16>, tensor<8x3xf16>, tensor<3xf32> to tensor<4x3xf32>
  %9 = amp.cross_entropy %8, %arg10 {amp.kernel = 5 : i64, amp.place = [#amp.place<arena 768>], amp.scratch = 1280 : i64} : tensor<4x3xf32>, tensor<4xi64> to tensor<f32>
  %10 = amp.cross_entropy_grad %8, %arg10, %arg6 {amp.kernel = 6 : i64, amp.place = [#amp.place<arena 1280>]} : tensor<4x3xf32>, tensor<4xi64>, tensor<f32>
  %11 = amp.cast %10 {amp.kernel = 7 : i64, amp.place = [#amp.place<arena 1024>]} : tensor<4x3xf32> to tensor<4x3xf16>
  %12 = amp.matmul %6, %11 {acc_type = f32, amp.kernel = 8 : i64, amp.place = [#amp.place<arena 1536>], transpose_lhs} : tensor<4x8xf16>, tensor<4x3xf16> to tensor<8x3xf16>
  %13 = amp.sum %10 dims = [0] keepdims {amp.kernel = 9 : i64, amp.place = [#amp.place<arena 512>]} : tensor<4x3xf32> to tensor<1x3xf32>
  %14 = amp.reshape %13 {amp.place = [#amp.place<view>]} : tensor<1x3xf32> to tensor<3xf32>
  %15 = amp.cast %12 {amp.kernel = 10 : i64, amp.place = [#amp.place<arena 1024>]} : tensor<8x3xf16> to tensor<8x3xf32>
  %16 = amp.cast %arg6 {amp.kernel = 11 : i64, amp.place = [#amp.place<fused>]} : tensor<f32> to tensor<f64>
  %17 = amp.div %5, %16 {amp.kernel = 11 : i64, amp.place = [#amp.place<fused>]} : tensor<f64>, tensor<f64>
  %18 = amp.cast %17 {amp.kernel = 11 : i64, amp.place = [#amp.place<arena 1280>]} : tensor<f64> to tensor<f32>
  %unscaled:2, %found_inf = amp.unscale %18, %15, %14 {amp.kernel = 12 : i64, amp.place = [#amp.place<arena 1024>, #amp.place<arena 512>, #amp.place<arena 1536>]} : tensor<f32>, tensor<8x3xf32>, tensor<3xf32>
  %19 = amp.maximum %arg5, %found_inf {amp.kernel = 13 : i64, amp.place = [#amp.place<arena 1280>]} : tensor<f32>, tensor<f32>
  %20 = amp.add %arg4, %3 {amp.kernel = 14 : i64, amp.place = [#amp.place<arena 1536>]} : tensor<f32>, tensor<f32>
  %21 = amp.compare ge, %20, %4 {amp.kernel = 15 : i64, amp.place = [#amp.place<arena 1792>]} : tensor<f32>, tensor<f32>
  %22 = amp.add %arg2, %unscaled#0 {amp.kernel = 16 : i64, amp.place = [#amp.place<arena 2048>]} : tensor<8x3xf32>, tensor<8x3xf32>
  %23 = amp.div %22, %4 {amp.kernel = 17 : i64, amp.place = [#amp.place<arena 1024>]} : tensor<8x3xf32>, tensor<f32>
  %24 = amp.add %arg3, %unscaled#1 {amp.kernel = 18 : i64, amp.place = [#amp.place<arena 2304>]} : tensor<3xf32>, tensor<3xf32>
  %25 = amp.div %24, %4 {amp.kernel = 19 : i64, amp.place = [#amp.place<arena 512>]} : tensor<3xf32>, tensor<f32>
  %26 = amp.sgd_update %arg0, %23 {amp.kernel = 21 : i64, amp.place = [#amp.place<fused>], lr = 1.000000e-03 : f64, weight_decay = 0.000000e+00 : f64} : tensor<8x3xf32>
  %27 = amp.sgd_update %arg1, %25 {amp.kernel = 21 : i64, amp.place = [#amp.place<fused>], lr = 1.000000e-03 : f64, weight_decay = 0.000000e+00 : f64} : tensor<3xf32>
  %28 = amp.compare eq, %19, %2 {amp.kernel = 20 : i64, amp.place = [#amp.place<arena 256>]} : tensor<f32>, tensor<f32>
  %29 = amp.select %28, %26, %arg0 {amp.kernel = 21 : i64, amp.place = [#amp.place<arena 2560>]} : tensor<i1>, tensor<8x3xf32>, tensor<8x3xf32>
  %30 = amp.select %28, %27, %arg1 {amp.kernel = 21 : i64, amp.place = [#amp.place<arena 2816>]} : tensor<i1>, tensor<3xf32>, tensor<3xf32>
  %new_scale, %new_growth_tracker, %new_hysteresis_tracker = amp.scaler_update %arg6, %arg7, %arg8, %19 {amp.kernel = 22 : i64, amp.place = [#amp.place<arena 256>, #amp.place<arena 512>, #amp.place<arena 1024>], backoff_factor = 5.000000e-01 : f64, growth_factor = 2.000000e+00 : f64, growth_interval = 2000 : i64, hysteresis = 1 : i64} : tensor<f32>
  %31 = amp.select %21, %29, %arg0 {amp.kernel = 23 : i64, amp.place = [#amp.place<arg 0>]} : tensor<i1>, tensor<8x3xf32>, tensor<8x3xf32>
  %32 = amp.select %21, %30, %arg1 {amp.kernel = 24 : i64, amp.place = [#amp.place<arg 1>]} : tensor<i1>, tensor<3xf32>, tensor<3xf32>
  %33 = amp.select %21, %new_scale, %arg6 {amp.kernel = 25 : i64, amp.place = [#amp.place<arg 6>]} : tensor<i1>, tensor<f32>, tensor<f32>
  %34 = amp.select %21, %new_growth_tracker, %arg7 {amp.kernel = 26 : i64, amp.place = [#amp.place<arg 7>]} : tensor<i1>, tensor<f32>, tensor<f32>
  %35 = amp.select %21, %new_hysteresis_tracker, %arg8 {amp.kernel = 27 : i64, amp.place = [#amp.place<arg 8>]} : tensor<i1>, tensor<f32>, tensor<f32>
  %36 = amp.select %21, %1, %22 {amp.kernel = 28 : i64, amp.place = [#amp.place<arg 2>]} : tensor<i1>, tensor<8x3xf32>, tensor<8x3xf32>
  %37 = amp.select %21, %0, %24 {amp.kernel = 29 : i64, amp.place = [#amp.place<arg 3>]} : tensor<i1>, tensor<3xf32>, tensor<3xf32>
  %38 = amp.select %21, %2, %20 {amp.kernel = 30 : i64, amp.place = [#amp.place<arg 4>]} : tensor<i1>, tensor<f32>, tensor<f32>
  %39 = amp.select %21, %2, %19 {amp.kernel = 31 : i64, amp.place = [#amp.place<arg 5>]} : tensor<i1>, tensor<f32>, tensor<f32>
  return %31, %32, %36, %37, %38, %39, %33, %34, %35, %9, %19 : tensor<8x3xf32>, tensor<3xf32>, tensor<8x3xf32>, tensor<3xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>
}
