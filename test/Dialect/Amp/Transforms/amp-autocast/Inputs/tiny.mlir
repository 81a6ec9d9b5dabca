// A small graph for the autocast option tests.
func.func @tiny(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %m = amp.matmul %x, %x : tensor<2x2xf32>, tensor<2x2xf32> to tensor<2x2xf32>
  %g = amp.gelu %m : tensor<2x2xf32>
  return %g : tensor<2x2xf32>
}
