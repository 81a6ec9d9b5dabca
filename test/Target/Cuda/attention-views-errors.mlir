// RUN: amp-opt %s --pass-pipeline='builtin.module(func.func(amp-fuse,amp-plan-buffers))' | not amp-translate --amp-to-cuda --amp-name=step 2>&1 | FileCheck %s

// amp-fuse marks only the views the runtime's attention can read by
// strides; a hand-marked transpose that moves the head dim (whose
// elements then lie 3 apart) is refused where the attention is emitted,
// with its location, and nothing is printed.
// CHECK: error: amp-to-cuda: the attention's q has no layout the runtime can read
// CHECK-NEXT: amp.attention
// CHECK-NOT: amp_attention_forward
func.func @step(%x: tensor<2x5x4x3xf16> {amp.param}, %k: tensor<2x3x5x4xf16>) -> (tensor<2x5x4x3xf16>, tensor<f32>) {
  %q = amp.transpose %x, [0, 3, 1, 2] {amp.attention_view} : tensor<2x5x4x3xf16> to tensor<2x3x5x4xf16>
  %o = amp.attention %q, %k, %k : tensor<2x3x5x4xf16>, tensor<2x3x5x4xf16>, tensor<2x3x5x4xf16>
  %of = amp.cast %o : tensor<2x3x5x4xf16> to tensor<2x3x5x4xf32>
  %loss = amp.sum %of dims = [0, 1, 2, 3] : tensor<2x3x5x4xf32> to tensor<f32>
  return %x, %loss : tensor<2x5x4x3xf16>, tensor<f32>
}
