// RUN: amp-translate --amp-to-cuda %s | FileCheck %s --implicit-check-not=expf

// exp, sigmoid and tanh are scalar_math.h's, which the interpreter runs
// too, not the C library's or CUDA's; a bf16 register is stored by its
// high half (every op rounds its result, so it holds a bf16 value), where
// a value the kernel has not rounded is stored rounding.

// CHECK-LABEL: struct k0_cast_exp_sigmoid_tanh {
// CHECK: const float v1 = ampstep::rndBF16(x0);
// CHECK-NEXT: const float v2 = ampstep::rndBF16(amprt::math::exp(v1));
// CHECK-NEXT: const float v3 = ampstep::rndBF16(amprt::sigmoid(v2));
// CHECK-NEXT: const float v4 = ampstep::rndBF16(amprt::math::tanh(v3));
// CHECK-NEXT: ampstep::stHeldBF16(out0, i, v4);
// The sum's f32 accumulator is rounded once, by the store.
// CHECK-LABEL: struct k1_sum {
// CHECK: ampstep::stBF16(out0, i, acc);
func.func @step(%w: tensor<2x3xf32> {amp.param}) -> (tensor<2x3xf32>, tensor<f32>)
    attributes {amp.arena_size = 256 : i64} {
  %m = amp.fusion(%wi = %w) : (tensor<2x3xf32>) -> tensor<2x3xbf16> attributes {amp.place = [#amp.place<arena 0>]} {
    %c = amp.cast %wi : tensor<2x3xf32> to tensor<2x3xbf16>
    %e = amp.exp %c : tensor<2x3xbf16>
    %s = amp.sigmoid %e : tensor<2x3xbf16>
    %t = amp.tanh %s : tensor<2x3xbf16>
    amp.yield %t : tensor<2x3xbf16>
  }
  %r = amp.fusion(%mi = %m) : (tensor<2x3xbf16>) -> tensor<3xbf16> attributes {amp.place = [#amp.place<arena 32>]} {
    %0 = amp.sum %mi dims = [0] : tensor<2x3xbf16> to tensor<3xbf16>
    amp.yield %0 : tensor<3xbf16>
  }
  %s = amp.fusion(%ri = %r) : (tensor<3xbf16>) -> tensor<f32> attributes {amp.place = [#amp.place<arena 64>]} {
    %0 = amp.cast %ri : tensor<3xbf16> to tensor<3xf32>
    %1 = amp.sum %0 dims = [0] : tensor<3xf32> to tensor<f32>
    amp.yield %1 : tensor<f32>
  }
  return %w, %s : tensor<2x3xf32>, tensor<f32>
}
