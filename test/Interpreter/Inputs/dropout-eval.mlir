func.func @identity(%rng: tensor<2xi64> {amp.rng}) -> tensor<3xf32> {
  %x = amp.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %y = amp.dropout %x, %rng p = 0.5 stream = 0 : tensor<3xf32>
  return %y : tensor<3xf32>
}
