// amp.fp8 = true where no FP8 GEMM can be: 10 columns.
func.func @shape(%x: tensor<64x32xf32>, %w: tensor<32x10xf32> {amp.param}) -> tensor<64x10xf32> {
  %o = amp.matmul %x, %w {amp.fp8 = true} : tensor<64x32xf32>, tensor<32x10xf32> to tensor<64x10xf32>
  return %o : tensor<64x10xf32>
}
