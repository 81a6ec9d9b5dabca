// The names of a GEMM's delayed-scaling state must be free.
func.func @model(%x: tensor<16x32xf32>, %w: tensor<32x48xf32> {amp.param},
                 %taken: tensor<3xf32> {amp.name = "w.fp8_scale"}) -> tensor<f32> {
  // expected-error @+1 {{amp-autocast: fp8-scaling=delayed names this FP8 GEMM's state 'w.fp8_scale', which an argument of @model already holds; rename it}}
  %y = amp.matmul %x, %w : tensor<16x32xf32>, tensor<32x48xf32> to tensor<16x48xf32>
  %l = amp.sum %y dims = [0, 1] : tensor<16x48xf32> to tensor<f32>
  return %l : tensor<f32>
}
