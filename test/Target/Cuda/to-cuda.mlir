// RUN: amp-translate --amp-to-cuda --amp-name=tiny %s | FileCheck %s

// The emitted file for a small f16 step with dynamic loss scaling: named
// kernels as functors whose comments list their ops, the GEMMs and the
// loss-scaling work as runtime calls, and a table of the step's tensors.
// The input is a planned step, as --amp-train-step{compute-type=f16
// optimizer=sgd loss-scaling=dynamic} and --amp-backend make it of
//   loss = cross_entropy(x @ w + b, labels)
// for x: 4x8, w: 8x3, b: 3; written out here, so that only the translation
// is under test.

// CHECK: #include "amp_runtime/step_kernels.h"

// The arena's layout: an offset per value the step touches, named as its
// pointer in the step, and per kernel's scratch memory, in the order of
// the arena; values at one offset reuse the memory.
// CHECK: namespace offsets {
// CHECK-NEXT: constexpr int64_t cast0 = 0;
// CHECK-NEXT: constexpr int64_t sum7 = 0;
// CHECK-NEXT: constexpr int64_t unscale10_1 = 0;
// CHECK-NEXT: constexpr int64_t cast1 = 256;
// CHECK-NEXT: constexpr int64_t cross_entropy3 = 256;
// CHECK: constexpr int64_t k3_scratch = 768;
// CHECK: constexpr int64_t unscale10_2 = 1024;
// CHECK-NEXT: } // namespace offsets

// An elementwise kernel: the input cast to f16, a functor the host and the
// GPU run per element. Kernels with the same code share one functor: the
// loss gradient's cast to f16 (k5_cast) runs this one.
// CHECK-LABEL: // k0_cast:
// CHECK-NEXT: //   {{.*}} = amp.cast {{.*}} : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK-NEXT: struct k0_cast {
// CHECK-NEXT:   ampstep::In<float> in0;
// CHECK-NEXT:   ampstep::Out<ampstep::f16_t> out0;
// CHECK-NEXT:   AMP_HOST_DEVICE void operator()({{\[\[}}maybe_unused{{\]\]}} int64_t i) const {
// CHECK-NEXT:     const float x0 = in0[i];
// CHECK-NEXT:     const float v1 = ampstep::rndF16(x0);
// CHECK-NEXT:     ampstep::stF16(out0, i, v1);

// The loss and its gradient are f32 row kernels: a functor whose
// operator() takes the row and its row context, which the host runs with
// the warp's lanes emulated and nvcc a warp per row (ampstep::launchRows),
// the same code on both. The loss writes its row's loss to scratch memory
// the plan gave it (amprt::crossEntropyRowLoss, the interpreter's
// function), from one lane, then one thread sums the rows in order (the
// interpreter's order).
// CHECK-LABEL: // k3_cross_entropy:
// CHECK-NEXT: //
// CHECK-NEXT: struct k3_cross_entropy {
// CHECK-NEXT:   ampstep::In<float> in0;
// CHECK-NEXT:   ampstep::In<int64_t> in1;
// CHECK-NEXT:   float *scratch0;
// CHECK-NEXT:   template <typename Row>
// CHECK-NEXT:   AMP_HOST_DEVICE void operator()({{\[\[}}maybe_unused{{\]\]}} int64_t i, const Row &row) const {
// CHECK-NEXT:     const auto x = [&](int64_t j) { return static_cast<float>(in0[i * 3 + j]); };
// CHECK-NEXT:     const int64_t label = in1[i];
// CHECK-NEXT:     const float loss = amprt::crossEntropyRowLoss<float>(row, 3, x, label, false, 0);
// CHECK-NEXT:     if (row.leads())
// CHECK-NEXT:       scratch0[i] = loss;
// The sum is a reduction functor: the host runs operator(), which folds the
// rows in the order of amprt::foldReduction (blocks of 256 in order, then
// pairwise), as the interpreter does; under nvcc, launchReduce may give a
// long reduction a block, whose threads fold parts of it in the same order.
// CHECK-LABEL: // k3_cross_entropy_sum:
// CHECK: struct k3_cross_entropy_sum {
// CHECK:        AMP_HOST_DEVICE float identity() const { return static_cast<float>(0x0p+0); }
// CHECK:        AMP_HOST_DEVICE float loadAt({{\[\[}}maybe_unused{{\]\]}} int64_t base, {{\[\[}}maybe_unused{{\]\]}} int64_t r) const {
// CHECK-NEXT:     return scratch0[r];
// CHECK:        AMP_HOST_DEVICE float combine(float acc, float v) const { return acc + v; }
// CHECK:        AMP_HOST_DEVICE void finish({{\[\[}}maybe_unused{{\]\]}} int64_t i, float acc) const {
// CHECK-NEXT:     acc = acc / static_cast<float>(0x1p+2);
// CHECK:        AMP_HOST_DEVICE void operator()({{\[\[}}maybe_unused{{\]\]}} int64_t i) const {
// CHECK-NEXT:     const int64_t base = baseOf(i);
// CHECK-NEXT:     finish(i, amprt::foldReduction(
// CHECK-NEXT:         4, identity(), [&](int64_t r) { return loadAt(base, r); },
// CHECK-NEXT:         [&](float a, float v) { return combine(a, v); }));

// CHECK-LABEL: // k4_cross_entropy_grad:

// CHECK-LABEL: // k5_cast:
// CHECK-NEXT: //   {{.*}} = amp.cast {{.*}} : tensor<4x3xf32> to tensor<4x3xf16>
// CHECK-NEXT: //   runs k0_cast, whose code it shares

// The bias gradient sums the batch rows of each column: output i starts at
// column i, and value r is r rows down.
// CHECK-LABEL: // k7_sum:
// CHECK:        AMP_HOST_DEVICE int64_t baseOf({{\[\[}}maybe_unused{{\]\]}} int64_t i) const {
// CHECK-NEXT:     int64_t base = 0;
// CHECK-NEXT:     base += i;
// CHECK:          const int64_t at = base + r * 3;

// The optimizer updates of both parameters are one kernel, one call of the
// runtime's multi-tensor SGD (no functor): in place, skipped when the
// unscale's found_inf is set, the selects that keep the old values on such
// a step folded into it.
// CHECK-NOT: struct k12_sgd_update

// The step: named pointers to the tensors it touches (the arguments by
// their amp.name, the arena's values by op and kernel, at the offsets of
// the plan), then the launches in program order, GEMMs through amp_gemm
// (f16 in and out, transposed left operand for the weight gradient).
// CHECK-LABEL: static amp_status_t tiny_run(amp_stream_t *stream, void *const *tensors, void *arenaBase,
// CHECK: const float *const x = static_cast<const float *>(tensors[5]);
// CHECK-NEXT: ampstep::f16_t *const cast0 = reinterpret_cast<ampstep::f16_t *>(arena + offsets::cast0);
// CHECK-NEXT: float *const w = static_cast<float *>(tensors[0]);
// CHECK: float *const b = static_cast<float *>(tensors[1]);
// CHECK: const int64_t *const labels = static_cast<const int64_t *>(tensors[6]);
// CHECK: float *const loss_scale = static_cast<float *>(tensors[2]);
// CHECK: ampstep::launch(stream, "k0_cast", 32, k0_cast{x, cast0}));
// CHECK-NEXT: ampstep::launch(stream, "k1_cast", 24, k0_cast{w, cast1}));
// The logits' GEMM: f16 operands, the f32 bias added in the accumulator
// and the sum written once, in f32 (autocast folded the bias add after the
// product's widening cast into the matmul).
// CHECK: // k2_matmul:
// CHECK: amp_gemm_t g{.ab_dtype = AMP_F16,
// CHECK-NEXT: .c_dtype = AMP_F32,
// CHECK-NEXT: .trans_a = 0,
// CHECK-NEXT: .trans_b = 0,
// CHECK-NEXT: .m = 4,
// CHECK-NEXT: .n = 3,
// CHECK-NEXT: .k = 8,
// CHECK-NEXT: .batch = 1,
// CHECK-NEXT: .alpha = 1.0f,
// CHECK-NEXT: .beta = 0.0f,
// CHECK-NEXT: .epilogue = AMP_EPILOGUE_BIAS};
// CHECK-NEXT: AMP_STEP_CHECK(amp_gemm(stream, &g, cast0, cast1, b, matmul2));
// CHECK-NOT: #if
// CHECK: ampstep::launchRows(
// CHECK-NEXT: stream, "k3_cross_entropy", 4,
// CHECK-NEXT: k3_cross_entropy{matmul2, labels, reinterpret_cast<float *>(arena + offsets::k3_scratch)}));
// CHECK-NEXT: ampstep::launchReduce(
// CHECK-NEXT: stream, "k3_cross_entropy_sum", 1, 4,
// CHECK-NEXT: k3_cross_entropy_sum{cross_entropy3,
// CHECK-NEXT: reinterpret_cast<const float *>(arena + offsets::k3_scratch)}));
// The loss's gradient, scaled by the loss scale (read on the device) over
// the batch mean.
// CHECK-NEXT: AMP_STEP_CHECK(
// CHECK-NEXT: ampstep::launchRows(stream, "k4_cross_entropy_grad", 4,
// CHECK-NEXT: k4_cross_entropy_grad{loss_scale, matmul2, labels, cross_entropy_grad4}));
// CHECK-NEXT: ampstep::launch(stream, "k5_cast", 12, k0_cast{cross_entropy_grad4, cast5}));
// CHECK: // k6_matmul:
// CHECK: amp_gemm_t g{.ab_dtype = AMP_F16,
// CHECK-NEXT: .c_dtype = AMP_F16,
// CHECK-NEXT: .trans_a = 1,
// CHECK-NEXT: .trans_b = 0,
// CHECK-NEXT: .m = 8,
// CHECK-NEXT: .n = 3,
// CHECK-NEXT: .k = 4,
// CHECK-NEXT: .batch = 1,
// CHECK-NEXT: .alpha = 1.0f,
// CHECK-NEXT: .beta = 0.0f,
// CHECK-NEXT: .epilogue = AMP_EPILOGUE_NONE};
// CHECK: ampstep::launchReduce(stream, "k7_sum", 3, 4, k7_sum{cross_entropy_grad4, sum7}));

// Unscaling: found_inf zeroed, then one amp_unscale over the list, in
// place: each unscaled gradient takes the slot of the gradient it scales
// (unscale10_0 is cast8's memory), so nothing is copied.
// CHECK: // k10_unscale:
// CHECK: ampstep::launch(stream, "k10_unscale_zero", 1,{{[[:space:]]*}}ampstep::Fill{unscale10_2, 0.0f}));
// CHECK-NOT: _copy
// CHECK: float *const data[] = {unscale10_0, unscale10_1};
// CHECK-NEXT: const size_t sizes[] = {24, 3};
// CHECK-NEXT: AMP_STEP_CHECK(amp_unscale(stream, amp_tensor_list_t{2, data, sizes}, cast9, unscale10_2));

// CHECK: // k12_sgd_update: the runtime's multi-tensor update over 2 tensors, skipped when found_inf is set
// CHECK-NEXT: //   {{%[0-9]+}} = amp.sgd_update %arg0, %[[UNSCALED:[0-9]+]]#0 lr(%arg7) weight_decay(%arg8) : tensor<8x3xf32>
// CHECK-NEXT: //   {{%[0-9]+}} = amp.sgd_update %arg1, %[[UNSCALED]]#1 lr(%arg7) weight_decay(%arg8) : tensor<3xf32>
// CHECK-NEXT: {
// CHECK-NEXT: const amp_sgd_hparams_t hparams{.lr = lr,
// CHECK-NEXT: .momentum = nullptr,
// CHECK-NEXT: .weight_decay = weight_decay,
// CHECK-NEXT: .dampening = 0.0,
// CHECK-NEXT: .nesterov = 0,
// CHECK-NEXT: .grad_scale = nullptr};
// CHECK-NEXT: float *const params[] = {w, b};
// CHECK-NEXT: float *const grads[] = {unscale10_0, unscale10_1};
// CHECK-NEXT: const size_t sizes[] = {24, 3};
// CHECK-NEXT: AMP_STEP_CHECK(amp_sgd_apply(stream, &hparams, amp_tensor_list_t{2, params, sizes},
// CHECK-NEXT: amp_tensor_list_t{2, grads, sizes},
// CHECK-NEXT: amp_tensor_list_t{0, nullptr, nullptr}, nullptr, unscale10_2,
// CHECK-NEXT: amp_copy_list_t{AMP_F32, nullptr}));
// CHECK-NEXT: }

// The scaler updates its state in place: no copies.
// CHECK: // k13_scaler_update:
// CHECK: amp_scaler_config_t config{.growth_factor = 0x1p+1,
// CHECK-NEXT: .backoff_factor = 0x1p-1,
// CHECK-NEXT: .growth_interval = 2000,
// CHECK-NEXT: .hysteresis = 1,
// CHECK-NEXT: .min_scale = 0x0p+0,
// CHECK-NEXT: .max_scale = 0x0p+0};
// CHECK-NOT: _copy
// CHECK: AMP_STEP_CHECK(amp_scaler_update(stream, &config, loss_scale, growth_tracker,
// CHECK-NEXT: hysteresis_tracker, unscale10_2));
// CHECK: ampstep::Results{cross_entropy3, unscale10_2, loss, found_inf, counters}));

// The tensor table: parameters with their fan-in (the bias takes its
// matmul's), the scaler state with its initial values (scale 65536, growth
// tracker 0, hysteresis 1), the batch, the hyperparameters at their
// compiled values (the step reads them from memory). The names are the arguments'
// amp.name: amp-opt read the parameters' and inputs' from this file, the
// optimizer named the state.
// CHECK-LABEL: static const amp_step_tensor_t tiny_tensors[] = {
// CHECK-NEXT:   {"w", AMP_STEP_PARAM, AMP_ELEMENT_F32, 2, {8, 3}, 8, 0x0p+0},
// CHECK-NEXT:   {"b", AMP_STEP_PARAM, AMP_ELEMENT_F32, 1, {3}, 8, 0x0p+0},
// CHECK-NEXT:   {"loss_scale", AMP_STEP_STATE, AMP_ELEMENT_F32, 0, {}, 1, 0x1p+16},
// CHECK-NEXT:   {"growth_tracker", AMP_STEP_STATE, AMP_ELEMENT_F32, 0, {}, 1, 0x0p+0},
// CHECK-NEXT:   {"hysteresis_tracker", AMP_STEP_STATE, AMP_ELEMENT_F32, 0, {}, 1, 0x1p+0},
// CHECK-NEXT:   {"x", AMP_STEP_INPUT, AMP_ELEMENT_F32, 2, {4, 8}, 1, 0x0p+0},
// CHECK-NEXT:   {"labels", AMP_STEP_INPUT, AMP_ELEMENT_I64, 1, {4}, 1, 0x0p+0},
// CHECK-NEXT:   {"lr", AMP_STEP_HPARAM, AMP_ELEMENT_F64, 0, {}, 1, 0x1.0624dd2f1a9fcp-10},
// CHECK-NEXT:   {"weight_decay", AMP_STEP_HPARAM, AMP_ELEMENT_F64, 0, {}, 1, 0x0p+0},
// CHECK-NEXT: };
// The labels (tensor 6) are read as one of 3 classes: the runtime checks
// them before a run, and names the op that reads them (here at its place
// in this file; a long path moves the string to a line of its own).
// CHECK-LABEL: static const amp_step_index_check_t tiny_index_checks[] = {
// CHECK-NEXT:   {6, 3, 0, 0,{{[[:space:]]+}}"read by amp.cross_entropy at {{.*}}to-cuda.mlir:{{[0-9]+}}:{{[0-9]+}}"},
// CHECK-NEXT: };
// The loss scale is tensor 2; the arena holds 1280 bytes.
// CHECK: static const amp_step_description_t tiny_description = {
// CHECK-NEXT: AMP_STEP_ABI_VERSION, // abi_version
// CHECK-NEXT: "tiny",               // name
// CHECK-NEXT: ampstep::kDevice,     // target
// CHECK-NEXT: 9,                    // tensor_count
// CHECK-NEXT: tiny_tensors,         // tensors
// CHECK-NEXT: 2,                    // loss_scale_tensor
// CHECK-NEXT: 1280,                 // arena_size
// CHECK-NEXT: tiny_run,             // run
// CHECK-NEXT: 1,                    // index_check_count
// CHECK-NEXT: tiny_index_checks,    // index_checks
// CHECK-NEXT: nullptr,              // eval
// CHECK-NEXT: 0,                    // data_parallel
// CHECK-NEXT: 0,                    // zero_replicas
// CHECK-NEXT: 0,                    // accumulate
// CHECK-NEXT: 0,                    // micro_batch_tensor
// CHECK-NEXT: 0,                    // other_eval_count
// CHECK-NEXT: nullptr,              // other_evals
// CHECK-NEXT: };
// CHECK: tiny_describe(void) {
// CHECK-NEXT: return &tiny_description;

func.func @tiny_step(%arg0: tensor<8x3xf32> {amp.name = "w", amp.param},
                     %arg1: tensor<3xf32> {amp.name = "b", amp.param},
                     %arg2: tensor<f32> {amp.loss_scale, amp.name = "loss_scale", amp.state = 6.553600e+04 : f64},
                     %arg3: tensor<f32> {amp.name = "growth_tracker", amp.state},
                     %arg4: tensor<f32> {amp.name = "hysteresis_tracker", amp.state = 1.000000e+00 : f64},
                     %arg5: tensor<4x8xf32> {amp.name = "x"},
                     %arg6: tensor<4xi64> {amp.name = "labels"},
                     %lr: tensor<f64> {amp.name = "lr", amp.state = 1.000000e-03 : f64, amp.hparam},
                     %wd: tensor<f64> {amp.name = "weight_decay", amp.state = 0.000000e+00 : f64, amp.hparam})
    -> (tensor<8x3xf32>, tensor<3xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f64>, tensor<f64>, tensor<f32>, tensor<f32>)
    attributes {amp.arena_size = 1280 : i64, amp.memory = #amp.memory<arena = 1280, arguments = 280, peak = 1560, peak_f32 = 1560>} {
  %0 = amp.fusion(%arg7 = %arg5) : (tensor<4x8xf32>) -> tensor<4x8xf16> attributes {amp.place = [#amp.place<arena 0>]} {
    %15 = amp.cast %arg7 : tensor<4x8xf32> to tensor<4x8xf16>
    amp.yield %15 : tensor<4x8xf16>
  }
  %1 = amp.fusion(%arg7 = %arg0) : (tensor<8x3xf32>) -> tensor<8x3xf16> attributes {amp.place = [#amp.place<arena 256>]} {
    %15 = amp.cast %arg7 : tensor<8x3xf32> to tensor<8x3xf16>
    amp.yield %15 : tensor<8x3xf16>
  }
  %2 = amp.fusion(%arg7 = %0, %arg8 = %1, %arg9 = %arg1) : (tensor<4x8xf16>, tensor<8x3xf16>, tensor<3xf32>) -> tensor<4x3xf32> attributes {amp.place = [#amp.place<arena 512>]} {
    %15 = amp.matmul %arg7, %arg8 bias %arg9 {acc_type = f32} : tensor<4x8xf16>, tensor<8x3xf16>, tensor<3xf32> to tensor<4x3xf32>
    amp.yield %15 : tensor<4x3xf32>
  }
  %3 = amp.fusion(%arg7 = %2, %arg8 = %arg6) : (tensor<4x3xf32>, tensor<4xi64>) -> tensor<f32> attributes {amp.place = [#amp.place<arena 256>]} {
    %15 = amp.cross_entropy %arg7, %arg8 {amp.scratch = 768 : i64} : tensor<4x3xf32>, tensor<4xi64> to tensor<f32>
    amp.yield %15 : tensor<f32>
  }
  %4 = amp.fusion(%arg7 = %2, %arg8 = %arg6, %arg9 = %arg2) : (tensor<4x3xf32>, tensor<4xi64>, tensor<f32>) -> tensor<4x3xf32> attributes {amp.place = [#amp.place<arena 768>]} {
    %15 = amp.cross_entropy_grad %arg7, %arg8, %arg9 : tensor<4x3xf32>, tensor<4xi64>, tensor<f32>
    amp.yield %15 : tensor<4x3xf32>
  }
  %5 = amp.fusion(%arg7 = %4) : (tensor<4x3xf32>) -> tensor<4x3xf16> attributes {amp.place = [#amp.place<arena 512>]} {
    %15 = amp.cast %arg7 : tensor<4x3xf32> to tensor<4x3xf16>
    amp.yield %15 : tensor<4x3xf16>
  }
  %6 = amp.fusion(%arg7 = %0, %arg8 = %5) : (tensor<4x8xf16>, tensor<4x3xf16>) -> tensor<8x3xf16> attributes {amp.place = [#amp.place<arena 1024>]} {
    %15 = amp.matmul %arg7, %arg8 {acc_type = f32, transpose_lhs} : tensor<4x8xf16>, tensor<4x3xf16> to tensor<8x3xf16>
    amp.yield %15 : tensor<8x3xf16>
  }
  %7 = amp.fusion(%arg7 = %4) : (tensor<4x3xf32>) -> tensor<1x3xf32> attributes {amp.place = [#amp.place<arena 0>]} {
    %15 = amp.sum %arg7 dims = [0] keepdims : tensor<4x3xf32> to tensor<1x3xf32>
    amp.yield %15 : tensor<1x3xf32>
  }
  %8 = amp.reshape %7 {amp.place = [#amp.place<view>]} : tensor<1x3xf32> to tensor<3xf32>
  %9 = amp.fusion(%arg7 = %6) : (tensor<8x3xf16>) -> tensor<8x3xf32> attributes {amp.place = [#amp.place<arena 512>]} {
    %15 = amp.cast %arg7 : tensor<8x3xf16> to tensor<8x3xf32>
    amp.yield %15 : tensor<8x3xf32>
  }
  %10 = amp.fusion(%arg7 = %arg2) : (tensor<f32>) -> tensor<f32> attributes {amp.place = [#amp.place<arena 768>]} {
    %15 = amp.constant dense<1.000000e+00> : tensor<f64>
    %16 = amp.cast %arg7 : tensor<f32> to tensor<f64>
    %17 = amp.div %15, %16 : tensor<f64>, tensor<f64>
    %18 = amp.cast %17 : tensor<f64> to tensor<f32>
    amp.yield %18 : tensor<f32>
  }
  %11:3 = amp.fusion(%arg7 = %10, %arg8 = %9, %arg9 = %8) : (tensor<f32>, tensor<8x3xf32>, tensor<3xf32>) -> (tensor<8x3xf32>, tensor<3xf32>, tensor<f32>) attributes {amp.place = [#amp.place<arena 512>, #amp.place<arena 0>, #amp.place<arena 1024>]} {
    %unscaled:2, %found_inf = amp.unscale %arg7, %arg8, %arg9 : tensor<f32>, tensor<8x3xf32>, tensor<3xf32>
    amp.yield %unscaled#0, %unscaled#1, %found_inf : tensor<8x3xf32>, tensor<3xf32>, tensor<f32>
  }
  %12 = amp.fusion(%arg7 = %11#2) : (tensor<f32>) -> tensor<i1> attributes {amp.place = [#amp.place<arena 768>]} {
    %15 = amp.constant dense<0.000000e+00> : tensor<f32>
    %16 = amp.compare eq, %arg7, %15 : tensor<f32>, tensor<f32>
    amp.yield %16 : tensor<i1>
  }
  %13:2 = amp.fusion(%arg7 = %arg0, %arg8 = %11#0, %arg9 = %arg1, %arg10 = %11#1, %arg11 = %12, %arg12 = %lr, %arg13 = %wd) : (tensor<8x3xf32>, tensor<8x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<i1>, tensor<f64>, tensor<f64>) -> (tensor<8x3xf32>, tensor<3xf32>) attributes {amp.place = [#amp.place<arg 0>, #amp.place<arg 1>]} {
    %15 = amp.sgd_update %arg7, %arg8 lr(%arg12) weight_decay(%arg13) : tensor<8x3xf32>
    %16 = amp.sgd_update %arg9, %arg10 lr(%arg12) weight_decay(%arg13) : tensor<3xf32>
    %17 = amp.select %arg11, %15, %arg7 : tensor<i1>, tensor<8x3xf32>, tensor<8x3xf32>
    %18 = amp.select %arg11, %16, %arg9 : tensor<i1>, tensor<3xf32>, tensor<3xf32>
    amp.yield %17, %18 : tensor<8x3xf32>, tensor<3xf32>
  }
  %14:3 = amp.fusion(%arg7 = %arg2, %arg8 = %arg3, %arg9 = %arg4, %arg10 = %11#2) : (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>) attributes {amp.place = [#amp.place<arg 2>, #amp.place<arg 3>, #amp.place<arg 4>]} {
    %new_scale, %new_growth_tracker, %new_hysteresis_tracker = amp.scaler_update %arg7, %arg8, %arg9, %arg10 {backoff_factor = 5.000000e-01 : f64, growth_factor = 2.000000e+00 : f64, growth_interval = 2000 : i64, hysteresis = 1 : i64} : tensor<f32>
    amp.yield %new_scale, %new_growth_tracker, %new_hysteresis_tracker : tensor<f32>, tensor<f32>, tensor<f32>
  }
  return %13#0, %13#1, %14#0, %14#1, %14#2, %lr, %wd, %3, %11#2 : tensor<8x3xf32>, tensor<3xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f64>, tensor<f64>, tensor<f32>, tensor<f32>
}
