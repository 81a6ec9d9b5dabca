// A two-layer perceptron for MNIST-like data: 784 inputs (28x28 pixels),
// one hidden layer of 256 ReLU units, 10 classes; one batch of 64 samples.
//
//   hidden = relu(x @ w1 + b1)      x: [64, 784]   w1: [784, 256]  b1: [256]
//   logits = hidden @ w2 + b2       hidden: [64, 256]  w2: [256, 10]  b2: [10]
//   loss   = cross_entropy(logits, labels)  labels: [64] i64, batch mean
//
// Only the forward pass and the loss are written here. The trainable
// parameters are the function arguments marked `amp.param`; the inputs and
// labels are plain arguments. The compiler derives the backward pass, the
// optimizer step and the mixed-precision casts from this graph later.

module {
  func.func @mlp(%x: tensor<64x784xf32>,
                 %labels: tensor<64xi64>,
                 %w1: tensor<784x256xf32> {amp.param},
                 %b1: tensor<256xf32> {amp.param},
                 %w2: tensor<256x10xf32> {amp.param},
                 %b2: tensor<10xf32> {amp.param}) -> tensor<f32> {
    // Hidden layer; the bias broadcasts over the batch dimension.
    %hidden_mm = amp.matmul %x, %w1
        : tensor<64x784xf32>, tensor<784x256xf32> to tensor<64x256xf32>
    %hidden_pre = amp.add %hidden_mm, %b1 : tensor<64x256xf32>, tensor<256xf32>
    %hidden = amp.relu %hidden_pre : tensor<64x256xf32>

    // Output layer: one logit per class.
    %logits_mm = amp.matmul %hidden, %w2
        : tensor<64x256xf32>, tensor<256x10xf32> to tensor<64x10xf32>
    %logits = amp.add %logits_mm, %b2 : tensor<64x10xf32>, tensor<10xf32>

    // Softmax cross-entropy against the integer labels, averaged.
    %loss = amp.cross_entropy %logits, %labels
        : tensor<64x10xf32>, tensor<64xi64> to tensor<f32>
    return %loss : tensor<f32>
  }
}
