// RUN: amp-opt %s --pass-pipeline='builtin.module(func.func(amp-fuse,amp-plan-buffers))' | amp-translate --amp-to-cuda --amp-name=re | FileCheck %s
// RUN: amp-opt %s --pass-pipeline='builtin.module(func.func(amp-fuse,amp-plan-buffers))' | amp-translate --amp-cost-report --amp-name=re | %python %S/Inputs/cost_rows.py | FileCheck %s --check-prefix=COST

// The elementwise kernel that reads a row op's result runs in the row
// kernel's store: each value of the result, rounded to its type, is the
// epilogue's operand at that index; the result is stored too where another
// kernel reads it (the sum after the GEMM), and the epilogue's other
// operands are loaded at the same index. differential-gpt.test checks such
// kernels (the GPT block's layer norms and their casts, a layer norm
// gradient and the residual add) against the interpreter bit for bit.
// CHECK-LABEL: // k0_neg_rms_norm_add_cast:
// CHECK: struct k0_neg_rms_norm_add_cast {
// CHECK-NEXT: ampstep::In<float> in0;
// CHECK-NEXT: ampstep::In<float> in1;
// CHECK-NEXT: ampstep::Out<float> out0;
// CHECK-NEXT: ampstep::Out<ampstep::f16_t> out1;
// CHECK: const auto store = [&](int64_t j, float v) {
// CHECK-NEXT: const int64_t at = i * 8 + j;
// CHECK-NEXT: const float result = static_cast<float>(v);
// CHECK-NEXT: out0[at] = static_cast<float>(result);
// CHECK-NEXT: const float x1 = in0[at];
// CHECK-NEXT: const float v2 = static_cast<float>(-x1);
// CHECK-NEXT: const float v3 = static_cast<float>(v2 + result);
// CHECK-NEXT: const float v4 = ampstep::rndF16(v3);
// CHECK-NEXT: ampstep::stF16(out1, at, v4);
// CHECK-NEXT: };
// CHECK-NEXT: amprt::rmsNormRow<float>(row, 8, x, true, weight,

// By hand: the RMS norm's 3 FLOPs and the scale per element, the negation
// and the add (the cast is no work): 6 * 32. It reads x (4x8 f32, once for
// both) and the scale (8 f32); it writes the norm (4x8 f32) and the f16 sum.
// COST: k0_neg_rms_norm_add_cast rows launches=1 grid=1x256 flops=192 transcendentals=0 tensor_core=0 read=160 written=192

func.func @step(%w: tensor<8xf32> {amp.param}, %x: tensor<4x8xf32>, %m: tensor<8x3xf16>) -> (tensor<8xf32>, tensor<f32>) {
  %early = amp.neg %x : tensor<4x8xf32>
  %q = amp.rms_norm %x scale(%w : tensor<8xf32>) : tensor<4x8xf32>
  %sum = amp.add %early, %q : tensor<4x8xf32>, tensor<4x8xf32>
  %h = amp.cast %sum : tensor<4x8xf32> to tensor<4x8xf16>
  %mm = amp.matmul %h, %m : tensor<4x8xf16>, tensor<8x3xf16> to tensor<4x3xf16>
  %loss = amp.sum %mm dims = [0, 1] : tensor<4x3xf16> to tensor<f32>
  %g = amp.sum %q dims = [0] : tensor<4x8xf32> to tensor<8xf32>
  %new = amp.sub %w, %g : tensor<8xf32>, tensor<8xf32>
  return %new, %loss : tensor<8xf32>, tensor<f32>
}
