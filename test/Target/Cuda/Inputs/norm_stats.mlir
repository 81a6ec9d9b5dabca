// A classifier with a layer norm and an RMS norm, each with a weight, over
// more than one dimension for the RMS norm: their weights' gradients sum
// dy times the normalised input, which amp-fuse computes from the
// statistics the forward's norms store (amp.norm_stats) rather than by
// normalising the rows again. The steps agree with the interpreter, which
// runs the norms as they are, bit for bit.
func.func @norm_stats(%x: tensor<4x6x8xf32>, %labels: tensor<4xi64>,
                      %w1: tensor<8x8xf32> {amp.param},
                      %g1: tensor<8xf32> {amp.param},
                      %b1: tensor<8xf32> {amp.param},
                      %g2: tensor<6x8xf32> {amp.param},
                      %w2: tensor<48x5xf32> {amp.param}) -> tensor<f32> {
  %mm = amp.matmul %x, %w1 : tensor<4x6x8xf32>, tensor<8x8xf32> to tensor<4x6x8xf32>
  %ln = amp.layer_norm %mm scale(%g1 : tensor<8xf32>) bias(%b1 : tensor<8xf32>) {epsilon = 1.0e-05 : f64} : tensor<4x6x8xf32>
  %act = amp.gelu %ln approximate = tanh : tensor<4x6x8xf32>
  %rms = amp.rms_norm %act scale(%g2 : tensor<6x8xf32>) {axis = 1 : i64, epsilon = 1.0e-06 : f64} : tensor<4x6x8xf32>
  %flat = amp.reshape %rms : tensor<4x6x8xf32> to tensor<4x48xf32>
  %logits = amp.matmul %flat, %w2 : tensor<4x48xf32>, tensor<48x5xf32> to tensor<4x5xf32>
  %loss = amp.cross_entropy %logits, %labels : tensor<4x5xf32>, tensor<4xi64> to tensor<f32>
  return %loss : tensor<f32>
}
