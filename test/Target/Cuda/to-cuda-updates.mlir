// RUN: split-file %s %t
// RUN: amp-translate --amp-to-cuda --amp-name=bw %t/mixed.mlir | FileCheck %s --check-prefix=MIXED
// RUN: amp-translate --amp-to-cuda --amp-name=tiny %t/accumulate.mlir | FileCheck %s --check-prefix=ACCUMULATE
// Adam's updates (coupled_decay) say so in both forms.
// RUN: sed 's/weight_decay(%%arg23) :/weight_decay(%%arg23) {coupled_decay} :/' %t/mixed.mlir > %t/adam.mlir
// RUN: amp-translate --amp-to-cuda --amp-name=bw %t/adam.mlir | FileCheck %s --check-prefix=ADAM
// ADAM: static_cast<double>(in5[0]), true);
// ADAM: const amp_adamw_hparams_t hparams{.lr = lr,
// ADAM-NEXT: .beta1 = beta1,
// ADAM-NEXT: .beta2 = beta2,
// ADAM-NEXT: .eps = eps,
// ADAM-NEXT: .weight_decay = weight_decay,
// ADAM-NEXT: .coupled_decay = 1,
// ADAM-NEXT: .grad_scale = nullptr};

// The optimizer updates of a step are one kernel; the runtime's
// multi-tensor update runs those it can (f32 tensors updated in place under
// a found_inf guard or none), and each of the others is a generated kernel.
// Both paths are checked against the interpreter by differential.test.

// A bf16 weight next to an f32 bias: the bias on the runtime, the weight
// in a generated kernel that loads and stores bf16.
// MIXED-LABEL: // k7_adamw_update_1:
// MIXED-NEXT: //   {{.*}} = amp.adamw_update %arg0,
// MIXED: : tensor<8x8xbf16>, tensor<f32>
// MIXED-NEXT: struct k7_adamw_update_1 {
// MIXED: amprt::AdamwScalars<float> scalars{};
// The hyperparameters are read once per launch, in f64, from memory.
// MIXED: scalars = amprt::adamwScalars<float>(in0[0], in1[0], in2[0], in3[0], in4[0],
// MIXED-NEXT: static_cast<double>(in5[0]), false);
// MIXED: float p = ampstep::ldBF16(in6, i);
// MIXED-NEXT: const float g = {{.*}};
// MIXED: amprt::adamwElement<float>(scalars, p, g, m, v);
// MIXED-NEXT: ampstep::stBF16(out0, i, p);
// MIXED: // k7_adamw_update: the runtime's multi-tensor update over 1 tensor{{$}}
// MIXED-NEXT: //   {{.*}} = amp.adamw_update %arg1,
// MIXED: : tensor<8xf32>, tensor<f32>
// MIXED-NEXT: {
// MIXED-NEXT: const amp_adamw_hparams_t hparams{.lr = lr,
// MIXED-NEXT: .beta1 = beta1,
// MIXED-NEXT: .beta2 = beta2,
// MIXED-NEXT: .eps = eps,
// MIXED-NEXT: .weight_decay = weight_decay,
// MIXED-NEXT: .coupled_decay = 0,
// MIXED-NEXT: .grad_scale = nullptr};
// MIXED-NEXT: float *const params[] = {b};
// MIXED-NEXT: float *const grads[] = {[[GRAD:[a-z_0-9]+]]};
// MIXED-NEXT: float *const exp_avgs[] = {b_exp_avg};
// MIXED-NEXT: float *const exp_avg_sqs[] = {b_exp_avg_sq};
// MIXED-NEXT: const size_t sizes[] = {8};
// MIXED-NEXT: AMP_STEP_CHECK(amp_adamw_apply(
// MIXED-NEXT: stream, &hparams, amp_tensor_list_t{1, params, sizes}, amp_tensor_list_t{1, grads, sizes},
// MIXED-NEXT: amp_tensor_list_t{1, exp_avgs, sizes}, amp_tensor_list_t{1, exp_avg_sqs, sizes}, step,
// MIXED-NEXT: nullptr, amp_copy_list_t{AMP_F32, nullptr}));
// MIXED-NEXT: }
// MIXED-NEXT: AMP_STEP_CHECK(
// MIXED-NEXT: ampstep::launch(stream, "k7_adamw_update_1", 64,
// MIXED-NEXT: k7_adamw_update_1{lr, beta1, beta2, eps, weight_decay, step, w, {{.*}}

// With gradient accumulation the guard is not found_inf alone (the
// micro-batch counter decides too): generated kernels, each storing the new
// value where the step is kept and the old one elsewhere.
// ACCUMULATE-NOT: amp_sgd_apply
// ACCUMULATE: // [[K:k[0-9]+]]_sgd_update:
// ACCUMULATE-NEXT: //   [[NEW:%[0-9]+]] = amp.sgd_update %arg0, {{.*}} lr(%arg2) weight_decay(%arg3) : tensor<8x3xf32>
// ACCUMULATE-NEXT: //   {{.*}} = amp.select [[OK:%[0-9]+]], [[NEW]], %arg0 : tensor<i1>, tensor<8x3xf32>, tensor<8x3xf32>
// ACCUMULATE-NEXT: struct [[K]]_sgd_update {
// ACCUMULATE-NEXT:   ampstep::In<double> in0;
// ACCUMULATE-NEXT:   ampstep::In<double> in1;
// ACCUMULATE-NEXT:   ampstep::In<float> in2;
// ACCUMULATE-NEXT:   ampstep::In<float> in3;
// ACCUMULATE-NEXT:   ampstep::In<uint8_t> in4;
// ACCUMULATE-NEXT:   ampstep::Out<float> out0;
// ACCUMULATE:        s = amprt::sgdScalars<float>(in0[0], 0.0, 0.0, in1[0], false);
// ACCUMULATE:          const float p = amprt::sgdElement<float>(s, in2[i], in3[i], nullptr, false);
// ACCUMULATE-NEXT:     out0[i] = static_cast<float>(((in4[0] != 0) ? static_cast<float>(p) : in2[i]));
// The second update has the same code: it runs the first one's functor.
// ACCUMULATE: // [[K]]_sgd_update_1:
// ACCUMULATE-NEXT: //   {{.*}} = amp.sgd_update %arg1, {{.*}} : tensor<3xf32>
// ACCUMULATE:      //   runs [[K]]_sgd_update, whose code it shares
// ACCUMULATE-NOT: amp_sgd_apply
// ACCUMULATE: "[[K]]_sgd_update", 24,{{[[:space:]]*}}[[K]]_sgd_update{lr, weight_decay, w, {{.*}}}));
// ACCUMULATE: "[[K]]_sgd_update_1", 3,{{[[:space:]]*}}[[K]]_sgd_update{lr, weight_decay, b, {{.*}}}));

// The inputs are planned steps, written out so that only the translation
// is under test: mixed.mlir is what --amp-train-step{compute-type=none
// optimizer=adamw} and --amp-backend make of Inputs/bf16_weight.mlir, and
// accumulate.mlir what --amp-train-step{compute-type=f16 optimizer=sgd
// loss-scaling=dynamic accumulate=2} and --amp-backend make of
//   loss = cross_entropy(x @ w + b, labels)
// for x: 4x8, w: 8x3, b: 3.

//--- mixed.mlir
func.func @bf16_weight_step(%arg0: tensor<8x8xbf16> {amp.name = "w", amp.param}, %arg1: tensor<8xf32> {amp.name = "b", amp.param}, %arg2: tensor<8x8xbf16> {amp.name = "w.exp_avg", amp.state}, %arg3: tensor<8x8xbf16> {amp.name = "w.exp_avg_sq", amp.state}, %arg4: tensor<8xf32> {amp.name = "b.exp_avg", amp.state}, %arg5: tensor<8xf32> {amp.name = "b.exp_avg_sq", amp.state}, %arg6: tensor<f32> {amp.name = "step", amp.state}, %arg7: tensor<f64> {amp.hparam, amp.name = "lr", amp.state = 1.000000e-03 : f64}, %arg8: tensor<f64> {amp.hparam, amp.name = "beta1", amp.state = 9.000000e-01 : f64}, %arg9: tensor<f64> {amp.hparam, amp.name = "beta2", amp.state = 0.99899999999999999 : f64}, %arg10: tensor<f64> {amp.hparam, amp.name = "eps", amp.state = 1.000000e-08 : f64}, %arg11: tensor<f64> {amp.hparam, amp.name = "weight_decay", amp.state = 1.000000e-02 : f64}, %arg12: tensor<4x8xbf16> {amp.name = "x"}, %arg13: tensor<4xi64> {amp.name = "labels"}) -> (tensor<8x8xbf16>, tensor<8xf32>, tensor<8x8xbf16>, tensor<8x8xbf16>, tensor<8xf32>, tensor<8xf32>, tensor<f32>, tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>, tensor<f32>) attributes {amp.arena_size = 1280 : i64, amp.memory = #amp.memory<arena = 1280, arguments = 620, peak = 1900, peak_f32 = 2348>} {
  %0 = amp.fusion() : () -> tensor<f32> attributes {amp.place = [#amp.place<arena 0>]} {
    %10 = amp.constant dense<1.000000e+00> : tensor<f32>
    amp.yield %10 : tensor<f32>
  }
  %1 = amp.fusion(%arg14 = %arg12, %arg15 = %arg0) : (tensor<4x8xbf16>, tensor<8x8xbf16>) -> tensor<4x8xbf16> attributes {amp.place = [#amp.place<arena 256>]} {
    %10 = amp.matmul %arg14, %arg15 : tensor<4x8xbf16>, tensor<8x8xbf16> to tensor<4x8xbf16>
    amp.yield %10 : tensor<4x8xbf16>
  }
  %2 = amp.fusion(%arg14 = %1, %arg15 = %arg1) : (tensor<4x8xbf16>, tensor<8xf32>) -> tensor<4x8xf32> attributes {amp.place = [#amp.place<arena 512>]} {
    %10 = amp.cast %arg14 : tensor<4x8xbf16> to tensor<4x8xf32>
    %11 = amp.add %10, %arg15 : tensor<4x8xf32>, tensor<8xf32>
    amp.yield %11 : tensor<4x8xf32>
  }
  %3:2 = amp.fusion(%arg14 = %2, %arg15 = %arg13, %arg16 = %0) : (tensor<4x8xf32>, tensor<4xi64>, tensor<f32>) -> (tensor<f32>, tensor<4x8xf32>) attributes {amp.place = [#amp.place<arena 256>, #amp.place<arena 768>]} {
    %10 = amp.cross_entropy %arg14, %arg15 {amp.scratch = 1024 : i64} : tensor<4x8xf32>, tensor<4xi64> to tensor<f32>
    %11 = amp.cross_entropy_grad %arg14, %arg15, %arg16 : tensor<4x8xf32>, tensor<4xi64>, tensor<f32>
    amp.yield %10, %11 : tensor<f32>, tensor<4x8xf32>
  }
  %4 = amp.fusion(%arg14 = %3#1) : (tensor<4x8xf32>) -> tensor<1x8xf32> attributes {amp.place = [#amp.place<arena 512>]} {
    %10 = amp.sum %arg14 dims = [0] keepdims : tensor<4x8xf32> to tensor<1x8xf32>
    amp.yield %10 : tensor<1x8xf32>
  }
  %5 = amp.reshape %4 {amp.place = [#amp.place<view>]} : tensor<1x8xf32> to tensor<8xf32>
  %6 = amp.fusion(%arg14 = %3#1) : (tensor<4x8xf32>) -> tensor<4x8xbf16> attributes {amp.place = [#amp.place<arena 1024>]} {
    %10 = amp.cast %arg14 : tensor<4x8xf32> to tensor<4x8xbf16>
    amp.yield %10 : tensor<4x8xbf16>
  }
  %7 = amp.fusion(%arg14 = %arg12, %arg15 = %6) : (tensor<4x8xbf16>, tensor<4x8xbf16>) -> tensor<8x8xbf16> attributes {amp.place = [#amp.place<arena 768>]} {
    %10 = amp.matmul %arg14, %arg15 {transpose_lhs} : tensor<4x8xbf16>, tensor<4x8xbf16> to tensor<8x8xbf16>
    amp.yield %10 : tensor<8x8xbf16>
  }
  %8:6 = amp.fusion(%arg14 = %arg0, %arg15 = %7, %arg16 = %arg2, %arg17 = %arg3, %arg18 = %arg6, %arg19 = %arg7, %arg20 = %arg8, %arg21 = %arg9, %arg22 = %arg10, %arg23 = %arg11, %arg24 = %arg1, %arg25 = %5, %arg26 = %arg4, %arg27 = %arg5) : (tensor<8x8xbf16>, tensor<8x8xbf16>, tensor<8x8xbf16>, tensor<8x8xbf16>, tensor<f32>, tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<8x8xbf16>, tensor<8x8xbf16>, tensor<8x8xbf16>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) attributes {amp.place = [#amp.place<arg 0>, #amp.place<arg 2>, #amp.place<arg 3>, #amp.place<arg 1>, #amp.place<arg 4>, #amp.place<arg 5>]} {
    %new_param, %new_exp_avg, %new_exp_avg_sq = amp.adamw_update %arg14, %arg15, %arg16, %arg17, %arg18 lr(%arg19) betas(%arg20, %arg21) eps(%arg22) weight_decay(%arg23) : tensor<8x8xbf16>, tensor<f32>
    %new_param_0, %new_exp_avg_1, %new_exp_avg_sq_2 = amp.adamw_update %arg24, %arg25, %arg26, %arg27, %arg18 lr(%arg19) betas(%arg20, %arg21) eps(%arg22) weight_decay(%arg23) : tensor<8xf32>, tensor<f32>
    amp.yield %new_param, %new_exp_avg, %new_exp_avg_sq, %new_param_0, %new_exp_avg_1, %new_exp_avg_sq_2 : tensor<8x8xbf16>, tensor<8x8xbf16>, tensor<8x8xbf16>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
  }
  %9 = amp.fusion(%arg14 = %arg6, %arg15 = %0) : (tensor<f32>, tensor<f32>) -> tensor<f32> attributes {amp.place = [#amp.place<arg 6>]} {
    %10 = amp.add %arg14, %arg15 : tensor<f32>, tensor<f32>
    amp.yield %10 : tensor<f32>
  }
  return %8#0, %8#3, %8#1, %8#2, %8#4, %8#5, %9, %arg7, %arg8, %arg9, %arg10, %arg11, %3#0 : tensor<8x8xbf16>, tensor<8xf32>, tensor<8x8xbf16>, tensor<8x8xbf16>, tensor<8xf32>, tensor<8xf32>, tensor<f32>, tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>, tensor<f32>
}
//--- accumulate.mlir
func.func @tiny_step(%arg0: tensor<8x3xf32> {amp.name = "w", amp.param}, %arg1: tensor<3xf32> {amp.name = "b", amp.param}, %arg2: tensor<f64> {amp.hparam, amp.name = "lr", amp.state = 1.000000e-03 : f64}, %arg3: tensor<f64> {amp.hparam, amp.name = "weight_decay", amp.state = 0.000000e+00 : f64}, %arg4: tensor<8x3xf32> {amp.name = "w.grad_accumulator", amp.state}, %arg5: tensor<3xf32> {amp.name = "b.grad_accumulator", amp.state}, %arg6: tensor<f32> {amp.name = "micro_batch", amp.state}, %arg7: tensor<f32> {amp.name = "micro_batch_found_inf", amp.state}, %arg8: tensor<f32> {amp.loss_scale, amp.name = "loss_scale", amp.state = 6.553600e+04 : f64}, %arg9: tensor<f32> {amp.name = "growth_tracker", amp.state}, %arg10: tensor<f32> {amp.name = "hysteresis_tracker", amp.state = 1.000000e+00 : f64}, %arg11: tensor<4x8xf32> {amp.name = "x"}, %arg12: tensor<4xi64> {amp.name = "labels"}) -> (tensor<8x3xf32>, tensor<3xf32>, tensor<f64>, tensor<f64>, tensor<8x3xf32>, tensor<3xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) attributes {amp.arena_size = 3072 : i64, amp.memory = #amp.memory<arena = 3072, arguments = 412, peak = 3484, peak_f32 = 3484>} {
  %0 = amp.fusion() : () -> tensor<f32> attributes {amp.place = [#amp.place<arena 0>]} {
    %32 = amp.constant dense<0.000000e+00> : tensor<f32>
    amp.yield %32 : tensor<f32>
  }
  %1 = amp.fusion() : () -> tensor<f32> attributes {amp.place = [#amp.place<arena 256>]} {
    %32 = amp.constant dense<2.000000e+00> : tensor<f32>
    amp.yield %32 : tensor<f32>
  }
  %2 = amp.fusion(%arg13 = %arg11) : (tensor<4x8xf32>) -> tensor<4x8xf16> attributes {amp.place = [#amp.place<arena 512>]} {
    %32 = amp.cast %arg13 : tensor<4x8xf32> to tensor<4x8xf16>
    amp.yield %32 : tensor<4x8xf16>
  }
  %3 = amp.fusion(%arg13 = %arg0) : (tensor<8x3xf32>) -> tensor<8x3xf16> attributes {amp.place = [#amp.place<arena 768>]} {
    %32 = amp.cast %arg13 : tensor<8x3xf32> to tensor<8x3xf16>
    amp.yield %32 : tensor<8x3xf16>
  }
  %4 = amp.fusion(%arg13 = %2, %arg14 = %3, %arg15 = %arg1) : (tensor<4x8xf16>, tensor<8x3xf16>, tensor<3xf32>) -> tensor<4x3xf32> attributes {amp.place = [#amp.place<arena 1024>]} {
    %32 = amp.matmul %arg13, %arg14 bias %arg15 {acc_type = f32} : tensor<4x8xf16>, tensor<8x3xf16>, tensor<3xf32> to tensor<4x3xf32>
    amp.yield %32 : tensor<4x3xf32>
  }
  %5:2 = amp.fusion(%arg13 = %4, %arg14 = %arg12, %arg15 = %arg8) : (tensor<4x3xf32>, tensor<4xi64>, tensor<f32>) -> (tensor<f32>, tensor<4x3xf32>) attributes {amp.place = [#amp.place<arena 768>, #amp.place<arena 1280>]} {
    %32 = amp.cross_entropy %arg13, %arg14 {amp.scratch = 1536 : i64} : tensor<4x3xf32>, tensor<4xi64> to tensor<f32>
    %33 = amp.cross_entropy_grad %arg13, %arg14, %arg15 : tensor<4x3xf32>, tensor<4xi64>, tensor<f32>
    amp.yield %32, %33 : tensor<f32>, tensor<4x3xf32>
  }
  %6 = amp.fusion(%arg13 = %5#1) : (tensor<4x3xf32>) -> tensor<4x3xf16> attributes {amp.place = [#amp.place<arena 1024>]} {
    %32 = amp.cast %arg13 : tensor<4x3xf32> to tensor<4x3xf16>
    amp.yield %32 : tensor<4x3xf16>
  }
  %7 = amp.fusion(%arg13 = %2, %arg14 = %6) : (tensor<4x8xf16>, tensor<4x3xf16>) -> tensor<8x3xf16> attributes {amp.place = [#amp.place<arena 1536>]} {
    %32 = amp.matmul %arg13, %arg14 {acc_type = f32, transpose_lhs} : tensor<4x8xf16>, tensor<4x3xf16> to tensor<8x3xf16>
    amp.yield %32 : tensor<8x3xf16>
  }
  %8 = amp.fusion(%arg13 = %5#1) : (tensor<4x3xf32>) -> tensor<1x3xf32> attributes {amp.place = [#amp.place<arena 512>]} {
    %32 = amp.sum %arg13 dims = [0] keepdims : tensor<4x3xf32> to tensor<1x3xf32>
    amp.yield %32 : tensor<1x3xf32>
  }
  %9 = amp.reshape %8 {amp.place = [#amp.place<view>]} : tensor<1x3xf32> to tensor<3xf32>
  %10 = amp.fusion(%arg13 = %7) : (tensor<8x3xf16>) -> tensor<8x3xf32> attributes {amp.place = [#amp.place<arena 1024>]} {
    %32 = amp.cast %arg13 : tensor<8x3xf16> to tensor<8x3xf32>
    amp.yield %32 : tensor<8x3xf32>
  }
  %11 = amp.fusion(%arg13 = %arg8) : (tensor<f32>) -> tensor<f32> attributes {amp.place = [#amp.place<arena 1280>]} {
    %32 = amp.constant dense<1.000000e+00> : tensor<f64>
    %33 = amp.cast %arg13 : tensor<f32> to tensor<f64>
    %34 = amp.div %32, %33 : tensor<f64>, tensor<f64>
    %35 = amp.cast %34 : tensor<f64> to tensor<f32>
    amp.yield %35 : tensor<f32>
  }
  %12:3 = amp.fusion(%arg13 = %11, %arg14 = %10, %arg15 = %9) : (tensor<f32>, tensor<8x3xf32>, tensor<3xf32>) -> (tensor<8x3xf32>, tensor<3xf32>, tensor<f32>) attributes {amp.place = [#amp.place<arena 1024>, #amp.place<arena 512>, #amp.place<arena 1536>]} {
    %unscaled:2, %found_inf = amp.unscale %arg13, %arg14, %arg15 : tensor<f32>, tensor<8x3xf32>, tensor<3xf32>
    amp.yield %unscaled#0, %unscaled#1, %found_inf : tensor<8x3xf32>, tensor<3xf32>, tensor<f32>
  }
  %13 = amp.fusion(%arg13 = %arg7, %arg14 = %12#2) : (tensor<f32>, tensor<f32>) -> tensor<f32> attributes {amp.place = [#amp.place<arena 1280>]} {
    %32 = amp.maximum %arg13, %arg14 : tensor<f32>, tensor<f32>
    amp.yield %32 : tensor<f32>
  }
  %14 = amp.fusion(%arg13 = %arg6) : (tensor<f32>) -> tensor<f32> attributes {amp.place = [#amp.place<arena 1536>]} {
    %32 = amp.constant dense<1.000000e+00> : tensor<f32>
    %33 = amp.add %arg13, %32 : tensor<f32>, tensor<f32>
    amp.yield %33 : tensor<f32>
  }
  %15 = amp.fusion(%arg13 = %14, %arg14 = %1) : (tensor<f32>, tensor<f32>) -> tensor<i1> attributes {amp.place = [#amp.place<arena 1792>]} {
    %32 = amp.compare ge, %arg13, %arg14 : tensor<f32>, tensor<f32>
    amp.yield %32 : tensor<i1>
  }
  %16 = amp.fusion(%arg13 = %arg4, %arg14 = %12#0) : (tensor<8x3xf32>, tensor<8x3xf32>) -> tensor<8x3xf32> attributes {amp.place = [#amp.place<arena 2048>]} {
    %32 = amp.add %arg13, %arg14 : tensor<8x3xf32>, tensor<8x3xf32>
    amp.yield %32 : tensor<8x3xf32>
  }
  %17 = amp.fusion(%arg13 = %16, %arg14 = %1) : (tensor<8x3xf32>, tensor<f32>) -> tensor<8x3xf32> attributes {amp.place = [#amp.place<arena 1024>]} {
    %32 = amp.div %arg13, %arg14 : tensor<8x3xf32>, tensor<f32>
    amp.yield %32 : tensor<8x3xf32>
  }
  %18 = amp.fusion(%arg13 = %arg5, %arg14 = %12#1) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32> attributes {amp.place = [#amp.place<arena 2304>]} {
    %32 = amp.add %arg13, %arg14 : tensor<3xf32>, tensor<3xf32>
    amp.yield %32 : tensor<3xf32>
  }
  %19 = amp.fusion(%arg13 = %18, %arg14 = %1) : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32> attributes {amp.place = [#amp.place<arena 512>]} {
    %32 = amp.div %arg13, %arg14 : tensor<3xf32>, tensor<f32>
    amp.yield %32 : tensor<3xf32>
  }
  %20 = amp.fusion(%arg13 = %13, %arg14 = %0) : (tensor<f32>, tensor<f32>) -> tensor<i1> attributes {amp.place = [#amp.place<arena 256>]} {
    %32 = amp.compare eq, %arg13, %arg14 : tensor<f32>, tensor<f32>
    amp.yield %32 : tensor<i1>
  }
  %21:2 = amp.fusion(%arg13 = %arg0, %arg14 = %17, %arg15 = %arg2, %arg16 = %arg3, %arg17 = %arg1, %arg18 = %19, %arg19 = %20) : (tensor<8x3xf32>, tensor<8x3xf32>, tensor<f64>, tensor<f64>, tensor<3xf32>, tensor<3xf32>, tensor<i1>) -> (tensor<8x3xf32>, tensor<3xf32>) attributes {amp.place = [#amp.place<arena 2560>, #amp.place<arena 2816>]} {
    %32 = amp.sgd_update %arg13, %arg14 lr(%arg15) weight_decay(%arg16) : tensor<8x3xf32>
    %33 = amp.sgd_update %arg17, %arg18 lr(%arg15) weight_decay(%arg16) : tensor<3xf32>
    %34 = amp.select %arg19, %32, %arg13 : tensor<i1>, tensor<8x3xf32>, tensor<8x3xf32>
    %35 = amp.select %arg19, %33, %arg17 : tensor<i1>, tensor<3xf32>, tensor<3xf32>
    amp.yield %34, %35 : tensor<8x3xf32>, tensor<3xf32>
  }
  %22:3 = amp.fusion(%arg13 = %arg8, %arg14 = %arg9, %arg15 = %arg10, %arg16 = %13) : (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>) attributes {amp.place = [#amp.place<arena 256>, #amp.place<arena 512>, #amp.place<arena 1024>]} {
    %new_scale, %new_growth_tracker, %new_hysteresis_tracker = amp.scaler_update %arg13, %arg14, %arg15, %arg16 {backoff_factor = 5.000000e-01 : f64, growth_factor = 2.000000e+00 : f64, growth_interval = 2000 : i64, hysteresis = 1 : i64} : tensor<f32>
    amp.yield %new_scale, %new_growth_tracker, %new_hysteresis_tracker : tensor<f32>, tensor<f32>, tensor<f32>
  }
  %23 = amp.fusion(%arg13 = %15, %arg14 = %21#0, %arg15 = %arg0) : (tensor<i1>, tensor<8x3xf32>, tensor<8x3xf32>) -> tensor<8x3xf32> attributes {amp.place = [#amp.place<arg 0>]} {
    %32 = amp.select %arg13, %arg14, %arg15 : tensor<i1>, tensor<8x3xf32>, tensor<8x3xf32>
    amp.yield %32 : tensor<8x3xf32>
  }
  %24 = amp.fusion(%arg13 = %15, %arg14 = %21#1, %arg15 = %arg1) : (tensor<i1>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32> attributes {amp.place = [#amp.place<arg 1>]} {
    %32 = amp.select %arg13, %arg14, %arg15 : tensor<i1>, tensor<3xf32>, tensor<3xf32>
    amp.yield %32 : tensor<3xf32>
  }
  %25 = amp.fusion(%arg13 = %15, %arg14 = %22#0, %arg15 = %arg8) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32> attributes {amp.place = [#amp.place<arg 8>]} {
    %32 = amp.select %arg13, %arg14, %arg15 : tensor<i1>, tensor<f32>, tensor<f32>
    amp.yield %32 : tensor<f32>
  }
  %26 = amp.fusion(%arg13 = %15, %arg14 = %22#1, %arg15 = %arg9) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32> attributes {amp.place = [#amp.place<arg 9>]} {
    %32 = amp.select %arg13, %arg14, %arg15 : tensor<i1>, tensor<f32>, tensor<f32>
    amp.yield %32 : tensor<f32>
  }
  %27 = amp.fusion(%arg13 = %15, %arg14 = %22#2, %arg15 = %arg10) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32> attributes {amp.place = [#amp.place<arg 10>]} {
    %32 = amp.select %arg13, %arg14, %arg15 : tensor<i1>, tensor<f32>, tensor<f32>
    amp.yield %32 : tensor<f32>
  }
  %28 = amp.fusion(%arg13 = %15, %arg14 = %16) : (tensor<i1>, tensor<8x3xf32>) -> tensor<8x3xf32> attributes {amp.place = [#amp.place<arg 4>]} {
    %32 = amp.constant dense<0.000000e+00> : tensor<8x3xf32>
    %33 = amp.select %arg13, %32, %arg14 : tensor<i1>, tensor<8x3xf32>, tensor<8x3xf32>
    amp.yield %33 : tensor<8x3xf32>
  }
  %29 = amp.fusion(%arg13 = %15, %arg14 = %18) : (tensor<i1>, tensor<3xf32>) -> tensor<3xf32> attributes {amp.place = [#amp.place<arg 5>]} {
    %32 = amp.constant dense<0.000000e+00> : tensor<3xf32>
    %33 = amp.select %arg13, %32, %arg14 : tensor<i1>, tensor<3xf32>, tensor<3xf32>
    amp.yield %33 : tensor<3xf32>
  }
  %30 = amp.fusion(%arg13 = %15, %arg14 = %0, %arg15 = %14) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32> attributes {amp.place = [#amp.place<arg 6>]} {
    %32 = amp.select %arg13, %arg14, %arg15 : tensor<i1>, tensor<f32>, tensor<f32>
    amp.yield %32 : tensor<f32>
  }
  %31 = amp.fusion(%arg13 = %15, %arg14 = %0, %arg15 = %13) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32> attributes {amp.place = [#amp.place<arg 7>]} {
    %32 = amp.select %arg13, %arg14, %arg15 : tensor<i1>, tensor<f32>, tensor<f32>
    amp.yield %32 : tensor<f32>
  }
  return %23, %24, %arg2, %arg3, %28, %29, %30, %31, %25, %26, %27, %5#0, %13 : tensor<8x3xf32>, tensor<3xf32>, tensor<f64>, tensor<f64>, tensor<8x3xf32>, tensor<3xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>
}