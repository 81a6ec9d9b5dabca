// keep-fp32-low-io: keep-fp32 ops fed in low precision read and write the
// compute type (they compute in f32 internally); losses still return their
// own type. Off by default.
// RUN: amp-opt %s --amp-autocast | FileCheck %s --check-prefix=DEFAULT
// RUN: amp-opt %s --amp-autocast=keep-fp32-low-io=true | FileCheck %s --check-prefix=LOWIO

// DEFAULT-LABEL: func.func @low_io
// DEFAULT: %[[M:.*]] = amp.matmul {{.*}} to tensor<4x8xf16>
// DEFAULT: %[[MF:.*]] = amp.cast %[[M]] : tensor<4x8xf16> to tensor<4x8xf32>
// DEFAULT: amp.softmax %[[MF]] dim = 1 : tensor<4x8xf32>
// DEFAULT: amp.layer_norm %[[MF]] scale(%{{.*}} : tensor<8xf32>) : tensor<4x8xf32>
// DEFAULT: amp.cross_entropy %[[MF]], %{{.*}} : tensor<4x8xf32>, tensor<4xi64> to tensor<f32>
// LOWIO-LABEL: func.func @low_io
// LOWIO: %[[M:.*]] = amp.matmul {{.*}} to tensor<4x8xf16>
// LOWIO-NOT: amp.cast %[[M]]
// LOWIO: amp.softmax %[[M]] dim = 1 : tensor<4x8xf16>
// The weight stays f32: only the activation's I/O goes low.
// LOWIO: amp.layer_norm %[[M]] scale(%{{.*}} : tensor<8xf32>) : tensor<4x8xf16>
// LOWIO: amp.cross_entropy %[[M]], %{{.*}} : tensor<4x8xf16>, tensor<4xi64> to tensor<f32>
func.func @low_io(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>, %g: tensor<8xf32> {amp.param}, %y: tensor<4xi64>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<f32>) {
  %m = amp.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> to tensor<4x8xf32>
  %s = amp.softmax %m dim = 1 : tensor<4x8xf32>
  %n = amp.layer_norm %m scale(%g : tensor<8xf32>) : tensor<4x8xf32>
  %l = amp.cross_entropy %m, %y : tensor<4x8xf32>, tensor<4xi64> to tensor<f32>
  return %s, %n, %l : tensor<4x8xf32>, tensor<4x8xf32>, tensor<f32>
}

// A loss's labels and targets keep their type: only its input, an
// activation, may be narrowed. mse_loss needs both operands of one type, so
// with an f32 target it stays in f32 (narrowing the target made a
// regression target above 65504 inf, and the loss with it).
// LOWIO-LABEL: func.func @low_io_f32_target
// LOWIO-SAME: %[[T:[^:]*]]: tensor<4x2xf32>
// LOWIO: %[[M:.*]] = amp.matmul {{.*}} to tensor<4x2xf16>
// LOWIO: %[[MF:.*]] = amp.cast %[[M]] : tensor<4x2xf16> to tensor<4x2xf32>
// LOWIO-NOT: amp.cast %[[T]]
// LOWIO: amp.mse_loss %[[MF]], %[[T]] : tensor<4x2xf32>, tensor<4x2xf32> to tensor<f32>
func.func @low_io_f32_target(%x: tensor<4x8xf32>, %w: tensor<8x2xf32>, %t: tensor<4x2xf32>) -> tensor<f32> {
  %h = amp.matmul %x, %w : tensor<4x8xf32>, tensor<8x2xf32> to tensor<4x2xf32>
  %l = amp.mse_loss %h, %t : tensor<4x2xf32>, tensor<4x2xf32> to tensor<f32>
  return %l : tensor<f32>
}

// A target already in the compute type keeps it, and the loss reads both
// operands low.
// LOWIO-LABEL: func.func @low_io_f16_target
// LOWIO-SAME: %[[T:[^:]*]]: tensor<4x2xf16>
// LOWIO: %[[M:.*]] = amp.matmul {{.*}} to tensor<4x2xf16>
// LOWIO: amp.mse_loss %[[M]], %[[T]] : tensor<4x2xf16>, tensor<4x2xf16> to tensor<f32>
func.func @low_io_f16_target(%x: tensor<4x8xf32>, %w: tensor<8x2xf32>, %t: tensor<4x2xf16>) -> tensor<f32> {
  %h = amp.matmul %x, %w : tensor<4x8xf32>, tensor<8x2xf32> to tensor<4x2xf32>
  %hh = amp.cast %h : tensor<4x2xf32> to tensor<4x2xf16>
  %l = amp.mse_loss %hh, %t : tensor<4x2xf16>, tensor<4x2xf16> to tensor<f32>
  return %l : tensor<f32>
}
