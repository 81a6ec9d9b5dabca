// A four-layer perceptron whose two middle layers compute-type=fp8 makes
// FP8 GEMMs (the first and last stay in the base type): 64 x 128 inputs,
// 256, 256 and 128 hidden units, 16 classes.
func.func @fp8_mlp(%x: tensor<64x128xf32>, %labels: tensor<64xi64>,
                   %w1: tensor<128x256xf32> {amp.param}, %b1: tensor<256xf32> {amp.param},
                   %w2: tensor<256x256xf32> {amp.param}, %b2: tensor<256xf32> {amp.param},
                   %w3: tensor<256x128xf32> {amp.param}, %b3: tensor<128xf32> {amp.param},
                   %w4: tensor<128x16xf32> {amp.param}, %b4: tensor<16xf32> {amp.param}) -> tensor<f32> {
  %m1 = amp.matmul %x, %w1 : tensor<64x128xf32>, tensor<128x256xf32> to tensor<64x256xf32>
  %h1 = amp.add %m1, %b1 : tensor<64x256xf32>, tensor<256xf32>
  %a1 = amp.relu %h1 : tensor<64x256xf32>
  %m2 = amp.matmul %a1, %w2 : tensor<64x256xf32>, tensor<256x256xf32> to tensor<64x256xf32>
  %h2 = amp.add %m2, %b2 : tensor<64x256xf32>, tensor<256xf32>
  %a2 = amp.gelu %h2 : tensor<64x256xf32>
  %m3 = amp.matmul %a2, %w3 : tensor<64x256xf32>, tensor<256x128xf32> to tensor<64x128xf32>
  %h3 = amp.add %m3, %b3 : tensor<64x128xf32>, tensor<128xf32>
  %a3 = amp.relu %h3 : tensor<64x128xf32>
  %m4 = amp.matmul %a3, %w4 : tensor<64x128xf32>, tensor<128x16xf32> to tensor<64x16xf32>
  %logits = amp.add %m4, %b4 : tensor<64x16xf32>, tensor<16xf32>
  %loss = amp.cross_entropy %logits, %labels : tensor<64x16xf32>, tensor<64xi64> to tensor<f32>
  return %loss : tensor<f32>
}
