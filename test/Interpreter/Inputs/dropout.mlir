// One dropout per element type, p = 0.3 and 0.9, two streams: the masks
// that dropout_oracle.py recomputes on its own.
func.func @dropout(%x32: tensor<6x100xf32>, %x16: tensor<1000xf16>,
                   %xb: tensor<3x7x5xbf16>, %x64: tensor<257xf64>,
                   %rng: tensor<2xi64> {amp.rng})
    -> (tensor<6x100xf32> {amp.name = "y32"},
        tensor<1000xf16> {amp.name = "y16"},
        tensor<3x7x5xbf16> {amp.name = "yb"},
        tensor<257xf64> {amp.name = "y64"}) {
  %y32 = amp.dropout %x32, %rng p = 0.3 stream = 0 training : tensor<6x100xf32>
  %y16 = amp.dropout %x16, %rng p = 0.3 stream = 1 training : tensor<1000xf16>
  %yb = amp.dropout %xb, %rng p = 0.9 stream = 2 training : tensor<3x7x5xbf16>
  %y64 = amp.dropout %x64, %rng p = 0.3 stream = 4000000000 training : tensor<257xf64>
  return %y32, %y16, %yb, %y64
      : tensor<6x100xf32>, tensor<1000xf16>, tensor<3x7x5xbf16>, tensor<257xf64>
}
