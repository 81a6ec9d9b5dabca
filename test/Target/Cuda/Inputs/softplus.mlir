// A two-layer classifier with a softplus activation, the op added by
// following docs/architecture.md's "Adding an op": its kernel calls
// amprt::softplus (scalar_math.h), as the interpreter does, and its
// gradient is the sigmoid the VJP builds. Keep-fp32: in bf16 it reads and
// writes f32 copies.
func.func @softplus(%x: tensor<16x8xf32>, %labels: tensor<16xi64>,
                    %w1: tensor<8x12xf32> {amp.param},
                    %b1: tensor<12xf32> {amp.param},
                    %w2: tensor<12x8xf32> {amp.param}) -> tensor<f32> {
  %mm = amp.matmul %x, %w1 : tensor<16x8xf32>, tensor<8x12xf32> to tensor<16x12xf32>
  %pre = amp.add %mm, %b1 : tensor<16x12xf32>, tensor<12xf32>
  %h = amp.softplus %pre : tensor<16x12xf32>
  %logits = amp.matmul %h, %w2 : tensor<16x12xf32>, tensor<12x8xf32> to tensor<16x8xf32>
  %loss = amp.cross_entropy %logits, %labels : tensor<16x8xf32>, tensor<16xi64> to tensor<f32>
  return %loss : tensor<f32>
}
