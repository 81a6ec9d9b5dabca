// RUN: amp-opt %s --pass-pipeline='builtin.module(func.func(amp-fuse,amp-plan-buffers))' | amp-translate --amp-to-cuda --amp-name=pro | FileCheck %s
// RUN: amp-opt %s --pass-pipeline='builtin.module(func.func(amp-fuse,amp-plan-buffers))' | amp-translate --amp-cost-report --amp-name=pro | %python %S/Inputs/cost_rows.py | FileCheck %s --check-prefix=COST

// The elementwise ops --amp-fuse puts before a reduction are computed in
// the reduction's loads: each value once, at the index the load reads,
// rounded to its type as their own kernel would round it, and never
// stored. differential-gpt.test checks such kernels (each layer norm's scale
// gradient in the GPT block) against the interpreter bit for bit.

// A product with a broadcast operand summed over the rows: the row vector
// is read at the load's column.
// CHECK-LABEL: // k0_mul_sum:
// CHECK: struct k0_mul_sum {
// CHECK-NEXT: ampstep::In<float> in0;
// CHECK-NEXT: ampstep::In<float> in1;
// CHECK-NEXT: ampstep::Out<float> out0;
// CHECK: loadAt([[MU:.*]] int64_t base, {{.*}} int64_t r) const {
// CHECK-NEXT: const int64_t at = base + r * 8;
// CHECK-NEXT: const float x0 = in0[at];
// CHECK-NEXT: const int64_t c1 = at % 8;
// CHECK-NEXT: const float x1 = in1[c1];
// CHECK-NEXT: const float v2 = static_cast<float>(x0 * x1);
// CHECK-NEXT: return static_cast<float>(v2);
// CHECK-NEXT: }

// A squared norm of a bf16 tensor: widened and squared in the loads, so
// neither the f32 copy nor the squares reach memory.
// CHECK-LABEL: // k1_cast_mul_sum:
// CHECK: struct k1_cast_mul_sum {
// CHECK-NEXT: ampstep::In<ampstep::bf16_t> in0;
// CHECK-NEXT: ampstep::Out<float> out0;
// CHECK: const float x0 = ampstep::ldBF16(in0, at);
// CHECK-NEXT: const float v1 = static_cast<float>(x0);
// CHECK-NEXT: const float v2 = static_cast<float>(v1 * v1);
// CHECK-NEXT: return static_cast<float>(v2);

// Their cost, by hand: the product's 32 FLOPs and the sum's 32 combines;
// x (4x8 f32) and g (8 f32) read, 8 f32 written. The norm: 32 squares and
// 32 combines; 32 bf16 read and one f32 written.
// COST: k0_mul_sum reduce-thread launches=1 grid=1x256 flops=64 transcendentals=0 tensor_core=0 read=160 written=32
// COST-NEXT: k1_cast_mul_sum reduce-thread launches=1 grid=1x256 flops=64 transcendentals=0 tensor_core=0 read=64 written=4

func.func @step(%g: tensor<8xf32> {amp.param}, %x: tensor<4x8xf32>, %c: tensor<4x8xbf16>) -> (tensor<8xf32>, tensor<f32>) {
  %p = amp.mul %x, %g : tensor<4x8xf32>, tensor<8xf32>
  %s = amp.sum %p dims = [0] : tensor<4x8xf32> to tensor<8xf32>
  %w = amp.cast %c : tensor<4x8xbf16> to tensor<4x8xf32>
  %q = amp.mul %w, %w : tensor<4x8xf32>, tensor<4x8xf32>
  %norm = amp.sum %q dims = [0, 1] : tensor<4x8xf32> to tensor<f32>
  %new = amp.sub %g, %s : tensor<8xf32>, tensor<8xf32>
  return %new, %norm : tensor<8xf32>, tensor<f32>
}
