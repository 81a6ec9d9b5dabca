// amp.precision names f16, which contradicts compute-type=bf16.
func.func @forced(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %g = amp.gelu %x {amp.precision = f16} : tensor<2x2xf32>
  return %g : tensor<2x2xf32>
}
