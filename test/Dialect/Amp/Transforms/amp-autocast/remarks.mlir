// remarks=true explains every decision and sums up each function.
// RUN: amp-opt %s --amp-autocast=remarks=true -verify-diagnostics -o /dev/null
// Casts, by hand: %x (128 elements, 4 bytes read + 2 written each) 768 B,
// %w (256 elements) 1536 B, %o back to f32 (128) 768 B: 3 casts, 3072 B
// (%b is a full tensor, not a bias: the add stays, see bias-fold.mlir).
// expected-remark @+1 {{amp-autocast: converted 3/5 ops to f16 with 3 casts (3.0 KiB cast traffic per step)}}
func.func @explained(%x: tensor<8x16xf32>, %w: tensor<16x16xf32> {amp.param}, %b: tensor<8x16xf32> {amp.param},
                     %y: tensor<8xi64>) -> tensor<f32> {
  // expected-remark @+1 {{amp-autocast: f16, lower-precision (default category)}}
  %h = amp.matmul %x, %w : tensor<8x16xf32>, tensor<16x16xf32> to tensor<8x16xf32>
  // expected-remark @+1 {{amp-autocast: f16, between lower-precision ops 'amp.matmul' at}}
  %r = amp.relu %h : tensor<8x16xf32>
  // expected-remark @+1 {{amp-autocast: f16, lower-precision (default category)}}
  %o = amp.matmul %r, %w : tensor<8x16xf32>, tensor<16x16xf32> to tensor<8x16xf32>
  // expected-remark @+1 {{amp-autocast: f32, widest input is f32 (argument #2 'b')}}
  %a = amp.add %o, %b : tensor<8x16xf32>, tensor<8x16xf32>
  // expected-remark @+1 {{amp-autocast: f32, keep-fp32 (default category)}}
  %l = amp.cross_entropy %a, %y : tensor<8x16xf32>, tensor<8xi64> to tensor<f32>
  return %l : tensor<f32>
}
