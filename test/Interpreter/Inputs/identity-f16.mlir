// Returns its argument: prints an f16 .npy through amp-run.
func.func @identity(%x: tensor<2xf16>) -> tensor<2xf16> {
  return %x : tensor<2xf16>
}
