// Labels as i32: the runtime's cross-entropy takes i64 labels, so both
// targets keep the generated kernels for the loss and its gradient.
func.func @i32_labels(%x: tensor<4x8xf32>, %labels: tensor<4xi32>,
                      %w: tensor<8x8xf32> {amp.param}) -> tensor<f32> {
  %logits = amp.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> to tensor<4x8xf32>
  %loss = amp.cross_entropy %logits, %labels
      : tensor<4x8xf32>, tensor<4xi32> to tensor<f32>
  return %loss : tensor<f32>
}
