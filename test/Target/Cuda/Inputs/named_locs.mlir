// A model whose ops are located by name, as the torch importer locates
// them (module paths), and one op by number only (%0: no name).
func.func @named(%x: tensor<4x8xf32>, %w: tensor<8x8xf32> {amp.param})
    -> tensor<f32> {
  %0 = amp.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> to tensor<4x8xf32> loc("blocks.0.fc"("named_locs.py":3:1))
  %1 = amp.tanh %0 : tensor<4x8xf32> loc("blocks.0.act"("named_locs.py":4:1))
  %2 = amp.sum %1 dims = [0, 1] : tensor<4x8xf32> to tensor<f32>
  return %2 : tensor<f32>
}
