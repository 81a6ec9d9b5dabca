// The MLP with dropout: on the input (p = 0.2, stream 0) and on the hidden
// layer (p = 0.5, stream 1), as a model with two dropouts draws its masks
// from one generator. Its f16 copy of the hidden layer is dropped too.
module {
  func.func @mlp_dropout(%x: tensor<32x48xf32>,
                         %labels: tensor<32xi64>,
                         %rng: tensor<2xi64> {amp.rng},
                         %w1: tensor<48x64xf32> {amp.param},
                         %b1: tensor<64xf32> {amp.param},
                         %w2: tensor<64x8xf32> {amp.param},
                         %b2: tensor<8xf32> {amp.param}) -> tensor<f32> {
    %x_drop = amp.dropout %x, %rng p = 0.2 stream = 0 training
        : tensor<32x48xf32>
    %hidden_mm = amp.matmul %x_drop, %w1
        : tensor<32x48xf32>, tensor<48x64xf32> to tensor<32x64xf32>
    %hidden_pre = amp.add %hidden_mm, %b1 : tensor<32x64xf32>, tensor<64xf32>
    %hidden = amp.relu %hidden_pre : tensor<32x64xf32>
    %hidden_drop = amp.dropout %hidden, %rng p = 0.5 stream = 1 training
        : tensor<32x64xf32>
    %logits_mm = amp.matmul %hidden_drop, %w2
        : tensor<32x64xf32>, tensor<64x8xf32> to tensor<32x8xf32>
    %logits = amp.add %logits_mm, %b2 : tensor<32x8xf32>, tensor<8xf32>
    %loss = amp.cross_entropy %logits, %labels
        : tensor<32x8xf32>, tensor<32xi64> to tensor<f32>
    return %loss : tensor<f32>
  }
}
