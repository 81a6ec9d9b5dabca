// RUN: amp-opt %S/Inputs/bf16_weight.mlir --pass-pipeline='builtin.module(amp-train-step{compute-type=none optimizer=adamw},amp-backend)' \
// RUN:   | amp-translate --amp-to-cuda --amp-function=bf16_weight_step --amp-name=bw | FileCheck %s --check-prefix=MIXED
// RUN: amp-opt %s --pass-pipeline='builtin.module(amp-train-step{compute-type=f16 optimizer=sgd loss-scaling=dynamic accumulate=2},amp-backend)' \
// RUN:   | amp-translate --amp-to-cuda --amp-function=tiny_step --amp-name=tiny | FileCheck %s --check-prefix=ACCUMULATE

// The optimizer updates of a step are one kernel; the runtime's
// multi-tensor update runs those it can (f32 tensors updated in place under
// a found_inf guard or none), and each of the others is a generated kernel.
// Both paths are checked against the interpreter by differential.test.

// A bf16 weight next to an f32 bias: the bias on the runtime, the weight
// in a generated kernel that loads and stores bf16.
// MIXED-LABEL: // k8_adamw_update_1:
// MIXED-NEXT: //   {{.*}} = amp.adamw_update %arg0, {{.*}} : tensor<8x8xbf16>, tensor<f32>
// MIXED-NEXT: struct k8_adamw_update_1 {
// MIXED: amprt::AdamwScalars<float> scalars{};
// MIXED: scalars = amprt::adamwScalars<float>({{.*}}, static_cast<double>({{.*}}));
// MIXED: float p = ampstep::ldBF16(b1, i);
// MIXED-NEXT: const float g = {{.*}};
// MIXED: amprt::adamwElement<float>(scalars, p, g, m, v);
// MIXED-NEXT: ampstep::stBF16(b5, i, ampstep::rndBF16(p));
// MIXED: // k8_adamw_update: the runtime's multi-tensor update over 1 tensor{{$}}
// MIXED-NEXT: //   {{.*}} = amp.adamw_update %arg1, {{.*}} : tensor<8xf32>, tensor<f32>
// MIXED-NEXT: {
// MIXED-NEXT: amp_adamw_config_t config{0x1.0624dd2f1a9fcp-10, 0x1.ccccccccccccdp-1, 0x1.ff7ced916872bp-1, 0x1.5798ee2308c3ap-27, 0x1.47ae147ae147bp-7};
// MIXED-NEXT: float *const params[] = {static_cast<float *>(tensors[1])};
// MIXED-NEXT: float *const grads[] = {reinterpret_cast<float *>(arena + {{[0-9]+}})};
// MIXED-NEXT: float *const exp_avgs[] = {static_cast<float *>(tensors[4])};
// MIXED-NEXT: float *const exp_avg_sqs[] = {static_cast<float *>(tensors[5])};
// MIXED-NEXT: const size_t sizes[] = {8};
// MIXED-NEXT: AMP_STEP_CHECK(amp_adamw_apply(stream, &config, amp_tensor_list_t{1, params, sizes}, amp_tensor_list_t{1, grads, sizes}, amp_tensor_list_t{1, exp_avgs, sizes}, amp_tensor_list_t{1, exp_avg_sqs, sizes}, static_cast<const float *>(tensors[6]), nullptr, amp_copy_list_t{AMP_F32, nullptr}));
// MIXED-NEXT: }
// MIXED-NEXT: AMP_STEP_CHECK(ampstep::launch(stream, "k8_adamw_update_1", 64, k8_adamw_update_1{

// With gradient accumulation the guard is not found_inf alone (the
// micro-batch counter decides too): generated kernels, each storing the new
// value where the step is kept and the old one elsewhere.
// ACCUMULATE-NOT: amp_sgd_apply
// ACCUMULATE: // [[K:k[0-9]+]]_sgd_update:
// ACCUMULATE-NEXT: //   [[NEW:%[0-9]+]] = amp.sgd_update %arg0, {{.*}} : tensor<8x3xf32>
// ACCUMULATE-NEXT: //   {{.*}} = amp.select [[OK:%[0-9]+]], [[NEW]], %arg0 : tensor<i1>, tensor<8x3xf32>, tensor<8x3xf32>
// ACCUMULATE-NEXT: struct [[K]]_sgd_update {
// ACCUMULATE-NEXT:   const float *b0;
// ACCUMULATE-NEXT:   const float *b1;
// ACCUMULATE-NEXT:   const uint8_t *b2;
// ACCUMULATE-NEXT:   float *b3;
// ACCUMULATE:          const float p = amprt::sgdElement<float>(s, b0[i], {{.*}}, nullptr, false);
// ACCUMULATE-NEXT:     b3[i] = static_cast<float>(((b2[0] != 0) ? static_cast<float>(p) : b0[i]));
// The second update has the same code: it runs the first one's functor.
// ACCUMULATE: // [[K]]_sgd_update_1:
// ACCUMULATE-NEXT: //   {{.*}} = amp.sgd_update %arg1, {{.*}} : tensor<3xf32>
// ACCUMULATE:      //   runs [[K]]_sgd_update, whose code it shares
// ACCUMULATE-NOT: amp_sgd_apply
// ACCUMULATE: "[[K]]_sgd_update", 24, [[K]]_sgd_update{static_cast<const float *>(tensors[0]), {{.*}}}));
// ACCUMULATE-NEXT: "[[K]]_sgd_update_1", 3, [[K]]_sgd_update{static_cast<const float *>(tensors[1]), {{.*}}}));

func.func @tiny(%x: tensor<4x8xf32>, %labels: tensor<4xi64>,
                %w: tensor<8x3xf32> {amp.param},
                %b: tensor<3xf32> {amp.param}) -> tensor<f32> {
  %mm = amp.matmul %x, %w : tensor<4x8xf32>, tensor<8x3xf32> to tensor<4x3xf32>
  %logits = amp.add %mm, %b : tensor<4x3xf32>, tensor<3xf32>
  %loss = amp.cross_entropy %logits, %labels
      : tensor<4x3xf32>, tensor<4xi64> to tensor<f32>
  return %loss : tensor<f32>
}
