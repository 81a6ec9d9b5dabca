// Returns its argument: reads a .npy back through amp-run (round-trip.test).
func.func @identity(%x: tensor<f32>) -> tensor<f32> {
  return %x : tensor<f32>
}
