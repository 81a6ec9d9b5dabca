// A classifier whose labels may be ignore_index (3, one label in eight of
// differential.py's random batch): the loss is the mean over the other
// rows and the ignored rows have no gradient, in the compiled step as in
// the interpreter.
func.func @ignore_index(%x: tensor<4x16x8xf32>, %labels: tensor<4x16xi64>,
                        %w: tensor<8x8xf32> {amp.param},
                        %b: tensor<8xf32> {amp.param}) -> tensor<f32> {
  %mm = amp.matmul %x, %w : tensor<4x16x8xf32>, tensor<8x8xf32> to tensor<4x16x8xf32>
  %logits = amp.add %mm, %b : tensor<4x16x8xf32>, tensor<8xf32>
  %loss = amp.cross_entropy %logits, %labels ignore_index = 3
      : tensor<4x16x8xf32>, tensor<4x16xi64> to tensor<f32>
  return %loss : tensor<f32>
}
