// A classifier of 3 features into 5 classes on batches of 4: the smallest
// model the data-set and state-file tests train.
func.func @tiny(%x: tensor<4x3xf32>, %labels: tensor<4xi64>,
                %w: tensor<3x5xf32> {amp.param}, %b: tensor<5xf32> {amp.param}) -> tensor<f32> {
  %m = amp.matmul %x, %w : tensor<4x3xf32>, tensor<3x5xf32> to tensor<4x5xf32>
  %logits = amp.add %m, %b : tensor<4x5xf32>, tensor<5xf32>
  %loss = amp.cross_entropy %logits, %labels : tensor<4x5xf32>, tensor<4xi64> to tensor<f32>
  return %loss : tensor<f32>
}
