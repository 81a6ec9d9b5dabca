// A model whose first weight is kept in bf16 (no f32 master): its optimizer
// state is bf16 too, so the backend runs its update as a generated kernel,
// and the f32 bias's update on the runtime's multi-tensor kernel.
func.func @bf16_weight(%x: tensor<4x8xbf16>, %labels: tensor<4xi64>,
                       %w: tensor<8x8xbf16> {amp.param},
                       %b: tensor<8xf32> {amp.param}) -> tensor<f32> {
  %mm = amp.matmul %x, %w : tensor<4x8xbf16>, tensor<8x8xbf16> to tensor<4x8xbf16>
  %wide = amp.cast %mm : tensor<4x8xbf16> to tensor<4x8xf32>
  %logits = amp.add %wide, %b : tensor<4x8xf32>, tensor<8xf32>
  %loss = amp.cross_entropy %logits, %labels
      : tensor<4x8xf32>, tensor<4xi64> to tensor<f32>
  return %loss : tensor<f32>
}
