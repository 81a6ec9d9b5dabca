// A matmul's bias is added in the f32 accumulator and the sum rounded once;
// a separate add rounds the product first. Values by hand, in bf16 (8
// significant bits, so 1 + 2^-8 is halfway between 1 and 1 + 2^-7 and
// rounds to the even 1):
//   x = [1, 2^-8], w = [[1, 1], [1, 0]]: x w = [1 + 2^-8, 1]; bias [-1, 0.5]
//   one rounding:  [2^-8, 1.5] = [0.00390625, 1.5]
//   two roundings: [round(1 + 2^-8) - 1, 1.5] = [0, 1.5]
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/make_npy.py %t/x.npy '<f4' 1x2 1 0.00390625
// RUN: %python %S/Inputs/make_npy.py %t/w.npy '<f4' 2x2 1 1 1 0
// RUN: %python %S/Inputs/make_npy.py %t/b.npy '<f4' 2 -1 0.5
// RUN: amp-run %s --function=fused --input=%t/x.npy --input=%t/w.npy --input=%t/b.npy | FileCheck %s --check-prefix=ONCE
// RUN: amp-run %s --function=separate --input=%t/x.npy --input=%t/w.npy --input=%t/b.npy | FileCheck %s --check-prefix=TWICE
// Autocast folds the bias add of an f32 linear layer, in bf16 and f16 (f16
// holds 1 + 2^-8 exactly, so both give 2^-8 there):
// RUN: amp-opt %s --amp-autocast=compute-type=bf16 | amp-run - --function=linear --input=%t/x.npy --input=%t/w.npy --input=%t/b.npy | FileCheck %s --check-prefix=ONCE
// RUN: amp-opt %s --amp-autocast=compute-type=f16 | amp-run - --function=linear --input=%t/x.npy --input=%t/w.npy --input=%t/b.npy | FileCheck %s --check-prefix=ONCE
// The relu after it sees 2^-8 > 0, as in PyTorch's F.linear, not 0.
// RUN: amp-opt %s --amp-autocast=compute-type=bf16 | amp-run - --function=linear_relu --input=%t/x.npy --input=%t/w.npy --input=%t/b.npy | FileCheck %s --check-prefix=ONCE-LOW

// ONCE: result #0: tensor<1x2x{{bf16|f32}}> = [0.00390625, 1.5]
// TWICE: result #0: tensor<1x2xbf16> = [0, 1.5]
// ONCE-LOW: result #0: tensor<1x2xf32> = [0.00390625, 1.5]

func.func @fused(%x: tensor<1x2xf32>, %w: tensor<2x2xf32>, %b: tensor<2xf32>) -> tensor<1x2xbf16> {
  %xl = amp.cast %x : tensor<1x2xf32> to tensor<1x2xbf16>
  %wl = amp.cast %w : tensor<2x2xf32> to tensor<2x2xbf16>
  %bl = amp.cast %b : tensor<2xf32> to tensor<2xbf16>
  %y = amp.matmul %xl, %wl bias %bl : tensor<1x2xbf16>, tensor<2x2xbf16>, tensor<2xbf16> to tensor<1x2xbf16>
  return %y : tensor<1x2xbf16>
}

func.func @separate(%x: tensor<1x2xf32>, %w: tensor<2x2xf32>, %b: tensor<2xf32>) -> tensor<1x2xbf16> {
  %xl = amp.cast %x : tensor<1x2xf32> to tensor<1x2xbf16>
  %wl = amp.cast %w : tensor<2x2xf32> to tensor<2x2xbf16>
  %bl = amp.cast %b : tensor<2xf32> to tensor<2xbf16>
  %m = amp.matmul %xl, %wl : tensor<1x2xbf16>, tensor<2x2xbf16> to tensor<1x2xbf16>
  %y = amp.add %m, %bl : tensor<1x2xbf16>, tensor<2xbf16>
  return %y : tensor<1x2xbf16>
}

func.func @linear(%x: tensor<1x2xf32>, %w: tensor<2x2xf32>, %b: tensor<2xf32>) -> tensor<1x2xf32> {
  %m = amp.matmul %x, %w : tensor<1x2xf32>, tensor<2x2xf32> to tensor<1x2xf32>
  %y = amp.add %m, %b : tensor<1x2xf32>, tensor<2xf32>
  return %y : tensor<1x2xf32>
}

// Between two matmuls the layer stays low: the bias goes to bf16 (exact
// here).
func.func @linear_relu(%x: tensor<1x2xf32>, %w: tensor<2x2xf32>, %b: tensor<2xf32>) -> (tensor<1x2xf32>, tensor<1x2xf32>) {
  %m = amp.matmul %x, %w : tensor<1x2xf32>, tensor<2x2xf32> to tensor<1x2xf32>
  %y = amp.add %m, %b : tensor<1x2xf32>, tensor<2xf32>
  %r = amp.relu %y : tensor<1x2xf32>
  %o = amp.matmul %r, %w : tensor<1x2xf32>, tensor<2x2xf32> to tensor<1x2xf32>
  return %r, %o : tensor<1x2xf32>, tensor<1x2xf32>
}
