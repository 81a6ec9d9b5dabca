// Accumulators: low matmuls accumulate in f32; an accumulator that cannot
// hold the new operand type exactly becomes f32, one that can is kept.
// RUN: amp-opt %s --amp-autocast="compute-type=bf16 allow=amp.sum" -split-input-file | FileCheck %s --check-prefix=BF16
// RUN: amp-opt %s --amp-autocast=compute-type=f16 -split-input-file | FileCheck %s --check-prefix=F16

// BF16-LABEL: func.func @f16_accumulator
// BF16: amp.matmul %{{.*}}, %{{.*}} {acc_type = f32} : tensor<2x2xbf16>, tensor<2x2xbf16> to tensor<2x2xbf16>
// F16-LABEL: func.func @f16_accumulator
// F16: amp.matmul %{{.*}}, %{{.*}} {acc_type = f16} : tensor<2x2xf16>, tensor<2x2xf16> to tensor<2x2xf16>
func.func @f16_accumulator(%x: tensor<2x2xf16>) -> tensor<2x2xf16> {
  %m = amp.matmul %x, %x {acc_type = f16} : tensor<2x2xf16>, tensor<2x2xf16> to tensor<2x2xf16>
  return %m : tensor<2x2xf16>
}

// -----

// A sum moved to bf16 (allow=amp.sum) with an f16 accumulator gets an f32
// one; left keep-fp32, it computes in f32 (its f16 input cast up), and its
// accumulator must hold f32.
// BF16-LABEL: func.func @sum_accumulator
// BF16: amp.sum %{{.*}} dims = [0] {acc_type = f32} : tensor<4xbf16> to tensor<bf16>
// F16-LABEL: func.func @sum_accumulator
// F16: %[[UP:.*]] = amp.cast %{{.*}} : tensor<4xf16> to tensor<4xf32>
// F16: %[[S:.*]] = amp.sum %[[UP]] dims = [0] {acc_type = f32} : tensor<4xf32> to tensor<f32>
// F16: amp.cast %[[S]] : tensor<f32> to tensor<f16>
func.func @sum_accumulator(%x: tensor<4xf16>) -> tensor<f16> {
  %s = amp.sum %x dims = [0] {acc_type = f16} : tensor<4xf16> to tensor<f16>
  return %s : tensor<f16>
}
