// amp.fp8 = true on a matmul kept in f32.
func.func @f32(%x: tensor<64x32xf32>, %w: tensor<32x16xf32> {amp.param}) -> tensor<64x16xf32> {
  %o = amp.matmul %x, %w {amp.fp8 = true, amp.precision = f32} : tensor<64x32xf32>, tensor<32x16xf32> to tensor<64x16xf32>
  return %o : tensor<64x16xf32>
}
