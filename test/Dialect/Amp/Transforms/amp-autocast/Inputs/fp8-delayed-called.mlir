// Delayed scaling adds arguments to the function its FP8 GEMMs are in: a
// function that is called cannot take them.
// expected-error @+1 {{amp-autocast: fp8-scaling=delayed adds the FP8 GEMMs' scaling state to @layer as arguments, and @layer is called; delayed scaling needs the FP8 GEMMs in the model function itself}}
func.func @layer(%x: tensor<16x32xf32>, %w: tensor<32x48xf32>) -> tensor<16x48xf32> {
  %y = amp.matmul %x, %w {amp.fp8 = true} : tensor<16x32xf32>, tensor<32x48xf32> to tensor<16x48xf32>
  return %y : tensor<16x48xf32>
}

func.func @model(%x: tensor<16x32xf32>, %w: tensor<32x48xf32> {amp.param}) -> tensor<f32> {
  %y = func.call @layer(%x, %w) : (tensor<16x32xf32>, tensor<32x48xf32>) -> tensor<16x48xf32>
  %l = amp.sum %y dims = [0, 1] : tensor<16x48xf32> to tensor<f32>
  return %l : tensor<f32>
}
