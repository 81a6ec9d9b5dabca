// RUN: amp-opt %s --pass-pipeline='builtin.module(func.func(amp-fuse,amp-plan-buffers))' | amp-translate --amp-to-cuda --amp-name=step | FileCheck %s
// RUN: amp-opt %s --pass-pipeline='builtin.module(func.func(amp-fuse,amp-plan-buffers))' | amp-translate --amp-cost-report --amp-name=step | %python %S/Inputs/cost_rows.py | FileCheck %s --check-prefix=COST

// The bf16 copies of the two f32 weights in one launch (a `casts`
// kernel): the 64 and 128 elements laid end to end, index i in the
// tensor whose start is the last at or below it, each element rounded and
// stored as the kernel of one cast stores it (rndBF16, then stHeldBF16).
// differential tests (gpt-block, mlp) hold the result to the
// interpreter's bit for bit.
// CHECK-LABEL: // k0_casts: 2 casts in one launch
// CHECK: struct k0_casts {
// CHECK-NEXT: ampstep::In<float> from[2];
// CHECK-NEXT: ampstep::Out<ampstep::bf16_t> to[2];
// CHECK-NEXT: int64_t starts[3];
// CHECK: const int64_t j = i - starts[t];
// CHECK-NEXT: ampstep::stHeldBF16(to[t], j, ampstep::rndBF16(from[t][j]));
// CHECK: ampstep::launch(stream, "k0_casts", 192,
// CHECK-NEXT: k0_casts{{[{][{]}}param0, param1}, {[[W0:.*]], [[W1:.*]]}, {0, 64, 192}}));
// CHECK: amp_gemm(stream, &g, input0, [[W0]], nullptr,
// CHECK: amp_gemm(stream, &g, matmul1, [[W1]], nullptr,

// Its cost by hand: 192 threads (one block), 768 bytes of f32 read, 384
// of bf16 written.
// COST: k0_casts elementwise launches=1 grid=1x256 flops=0 transcendentals=0 tensor_core=0 read=768 written=384

func.func @step(%x: tensor<4x8xbf16>, %w0: tensor<8x8xf32> {amp.param}, %w1: tensor<8x16xf32> {amp.param}) -> (tensor<8x8xf32>, tensor<8x16xf32>, tensor<f32>) {
  %c0 = amp.cast %w0 : tensor<8x8xf32> to tensor<8x8xbf16>
  %h = amp.matmul %x, %c0 : tensor<4x8xbf16>, tensor<8x8xbf16> to tensor<4x8xbf16>
  %c1 = amp.cast %w1 : tensor<8x16xf32> to tensor<8x16xbf16>
  %y = amp.matmul %h, %c1 : tensor<4x8xbf16>, tensor<8x16xbf16> to tensor<4x16xbf16>
  %yf = amp.cast %y : tensor<4x16xbf16> to tensor<4x16xf32>
  %loss = amp.sum %yf dims = [0, 1] : tensor<4x16xf32> to tensor<f32>
  return %w0, %w1, %loss : tensor<8x8xf32>, tensor<8x16xf32>, tensor<f32>
}
