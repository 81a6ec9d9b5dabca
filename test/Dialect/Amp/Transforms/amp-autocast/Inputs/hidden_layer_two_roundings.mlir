// The hidden layer in bf16 as autocast placed it before bias folding: the
// product rounded to bf16, then the sum with the bias rounded again.
func.func @hidden(%x: tensor<64x784xf32>, %w1: tensor<784x256xf32> {amp.param},
                  %b1: tensor<256xf32> {amp.param},
                  %w2: tensor<256x10xf32> {amp.param}) -> tensor<64x256xf32> {
  %xl = amp.cast %x : tensor<64x784xf32> to tensor<64x784xbf16>
  %wl = amp.cast %w1 : tensor<784x256xf32> to tensor<784x256xbf16>
  %bl = amp.cast %b1 : tensor<256xf32> to tensor<256xbf16>
  %mm = amp.matmul %xl, %wl {acc_type = f32} : tensor<64x784xbf16>, tensor<784x256xbf16> to tensor<64x256xbf16>
  %pre = amp.add %mm, %bl : tensor<64x256xbf16>, tensor<256xbf16>
  %out = amp.cast %pre : tensor<64x256xbf16> to tensor<64x256xf32>
  return %out : tensor<64x256xf32>
}
