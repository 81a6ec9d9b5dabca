// RUN: amp-opt %s --pass-pipeline='builtin.module(func.func(amp-fuse,amp-plan-buffers))' | amp-translate --amp-to-cuda --amp-name=heads | FileCheck %s
// RUN: amp-opt %s --pass-pipeline='builtin.module(func.func(amp-fuse,amp-plan-buffers))' | amp-translate --amp-cost-report --amp-name=heads | %python %S/Inputs/cost_rows.py | FileCheck %s --check-prefix=COST

// The attention reads the query, key and value where the [2, 5, 36] QKV
// buffer holds them and writes its output in [batch, seq, heads, dim]
// order (amp_attention_layout_t), by hand: element (b, h, s, c) of q is
// at b * 5 * 36 + h * 4 + s * 36 + c, k's and v's 12 and 24 further; of
// the output at b * 5 * 12 + h * 4 + s * 12 + c, where the heads' merge
// (a view now) reads it as [2, 5, 12]. The backward reads the output
// gradient in place too. No kernel transposes or slices: the only gather
// left is the concat of the three gradients.
// CHECK-NOT: transpose
// CHECK-LABEL: // k0_attention:
// CHECK: amp_attention_t a{.dtype = AMP_F16,
// CHECK-NEXT: .batch = 6,
// CHECK: .causal = 1,
// CHECK-NEXT: .heads = 3,
// CHECK-NEXT: .q = amp_attention_layout_t{180, 4, 36},
// CHECK-NEXT: .k = amp_attention_layout_t{180, 4, 36},
// CHECK-NEXT: .v = amp_attention_layout_t{180, 4, 36},
// CHECK-NEXT: .out = amp_attention_layout_t{60, 4, 12}};
// CHECK-NEXT: amp_attention_forward(stream, &a, param0, (param0 + 12), (param0 + 24),
// CHECK-NEXT: attention0_0, attention0_1));
// CHECK-LABEL: // k1_attention_grad:
// CHECK: .heads = 3,
// CHECK-NEXT: .q = amp_attention_layout_t{180, 4, 36},
// CHECK-NEXT: .k = amp_attention_layout_t{180, 4, 36},
// CHECK-NEXT: .v = amp_attention_layout_t{180, 4, 36},
// CHECK-NEXT: .out = amp_attention_layout_t{60, 4, 12},
// CHECK-NEXT: .dout = amp_attention_layout_t{60, 4, 12}};
// CHECK-NEXT: amp_attention_backward(stream, &a, param0, (param0 + 12), (param0 + 24),
// CHECK-NEXT: attention0_0, input0, attention0_1, attention_grad1_0,
// CHECK: k2_concat
// CHECK: k3_cast_sum{attention0_0,

// The cost counts what each tensor is, not the buffer it lies in: 240
// bytes for each of q, k, v and the output, 120 for the lse.
// COST: k0_attention attention launches=1 grid=4x256 {{.*}} read=720 written=360
func.func @heads(%qkv: tensor<2x5x36xf16> {amp.param}, %dy: tensor<2x5x12xf16>) -> (tensor<2x5x36xf16>, tensor<f32>) {
  %qs = amp.slice %qkv [0, 0, 0] to [2, 5, 12] : tensor<2x5x36xf16> to tensor<2x5x12xf16>
  %qr = amp.reshape %qs : tensor<2x5x12xf16> to tensor<2x5x3x4xf16>
  %q = amp.transpose %qr, [0, 2, 1, 3] : tensor<2x5x3x4xf16> to tensor<2x3x5x4xf16>
  %ks = amp.slice %qkv [0, 0, 12] to [2, 5, 24] : tensor<2x5x36xf16> to tensor<2x5x12xf16>
  %kr = amp.reshape %ks : tensor<2x5x12xf16> to tensor<2x5x3x4xf16>
  %k = amp.transpose %kr, [0, 2, 1, 3] : tensor<2x5x3x4xf16> to tensor<2x3x5x4xf16>
  %vs = amp.slice %qkv [0, 0, 24] to [2, 5, 36] : tensor<2x5x36xf16> to tensor<2x5x12xf16>
  %vr = amp.reshape %vs : tensor<2x5x12xf16> to tensor<2x5x3x4xf16>
  %v = amp.transpose %vr, [0, 2, 1, 3] : tensor<2x5x3x4xf16> to tensor<2x3x5x4xf16>
  %o, %lse = amp.attention %q, %k, %v causal with_lse : tensor<2x3x5x4xf16>, tensor<2x3x5x4xf16>, tensor<2x3x5x4xf16>
  %t = amp.transpose %o, [0, 2, 1, 3] : tensor<2x3x5x4xf16> to tensor<2x5x3x4xf16>
  %m = amp.reshape %t : tensor<2x5x3x4xf16> to tensor<2x5x12xf16>
  %mf = amp.cast %m : tensor<2x5x12xf16> to tensor<2x5x12xf32>
  %dr = amp.reshape %dy : tensor<2x5x12xf16> to tensor<2x5x3x4xf16>
  %do = amp.transpose %dr, [0, 2, 1, 3] : tensor<2x5x3x4xf16> to tensor<2x3x5x4xf16>
  %dq, %dk, %dv = amp.attention_grad %q, %k, %v, %o, %lse, %do causal : tensor<2x3x5x4xf16>, tensor<2x3x5x4xf16>, tensor<2x3x5x4xf16>, tensor<2x3x5x4xf16>, tensor<2x3x5xf32>, tensor<2x3x5x4xf16>
  %g = amp.concat %dq, %dk, %dv dim = 3 : tensor<2x3x5x4xf16>, tensor<2x3x5x4xf16>, tensor<2x3x5x4xf16> to tensor<2x3x5x12xf16>
  %gf = amp.cast %g : tensor<2x3x5x12xf16> to tensor<2x3x5x12xf32>
  %s1 = amp.sum %mf dims = [0, 1, 2] : tensor<2x5x12xf32> to tensor<f32>
  %s2 = amp.sum %gf dims = [0, 1, 2, 3] : tensor<2x3x5x12xf32> to tensor<f32>
  %loss = amp.add %s1, %s2 : tensor<f32>, tensor<f32>
  return %qkv, %loss : tensor<2x5x36xf16>, tensor<f32>
}
