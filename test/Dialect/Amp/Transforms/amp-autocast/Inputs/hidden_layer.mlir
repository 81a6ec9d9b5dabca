// The MLP's hidden layer (examples/mlp.mlir), returning the pre-activation
// the relu reads.
func.func @hidden(%x: tensor<64x784xf32>, %w1: tensor<784x256xf32> {amp.param},
                  %b1: tensor<256xf32> {amp.param},
                  %w2: tensor<256x10xf32> {amp.param}) -> tensor<64x256xf32> {
  %mm = amp.matmul %x, %w1 : tensor<64x784xf32>, tensor<784x256xf32> to tensor<64x256xf32>
  %pre = amp.add %mm, %b1 : tensor<64x256xf32>, tensor<256xf32>
  %h = amp.relu %pre : tensor<64x256xf32>
  %o = amp.matmul %h, %w2 : tensor<64x256xf32>, tensor<256x10xf32> to tensor<64x10xf32>
  return %pre : tensor<64x256xf32>
}
