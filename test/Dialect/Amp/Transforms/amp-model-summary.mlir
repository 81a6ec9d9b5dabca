// RUN: amp-opt %s --amp-model-summary -o /dev/null | FileCheck %s
// The pass changes nothing:
// RUN: amp-opt %s --amp-model-summary | FileCheck %s --check-prefix=IR

// Figures worked out by hand. Parameters: 4x3 + 3 + 3x2 + 2 = 23 f32 = 92 B.
// FLOPs: matmul 2*5*3*4 = 120, add 15, relu 15, matmul 2*5*2*3 = 60, add 10,
// cross-entropy 5 per logit = 50; total 270.
// CHECK-LABEL: function @tiny_mlp
// CHECK-NEXT: ops: 6 (contraction 2, elementwise 3, loss 1)
// CHECK-NEXT: by name: amp.add=2 amp.cross_entropy=1 amp.matmul=2 amp.relu=1
// CHECK-NEXT: parameters: 4 tensors, 23 elements (92.00 B)
// CHECK-NEXT: inputs: 2
// CHECK-NEXT: forward FLOPs: 270 (270.00 FLOP)
// IR-LABEL: func.func @tiny_mlp
// IR: amp.matmul
func.func @tiny_mlp(%w1: tensor<4x3xf32> {amp.param}, %b1: tensor<3xf32> {amp.param},
                    %w2: tensor<3x2xf32> {amp.param}, %b2: tensor<2xf32> {amp.param},
                    %x: tensor<5x4xf32>, %y: tensor<5xi64>) -> tensor<f32> {
  %0 = amp.matmul %x, %w1 : tensor<5x4xf32>, tensor<4x3xf32> to tensor<5x3xf32>
  %1 = amp.add %0, %b1 : tensor<5x3xf32>, tensor<3xf32>
  %2 = amp.relu %1 : tensor<5x3xf32>
  %3 = amp.matmul %2, %w2 : tensor<5x3xf32>, tensor<3x2xf32> to tensor<5x2xf32>
  %4 = amp.add %3, %b2 : tensor<5x2xf32>, tensor<2xf32>
  %5 = amp.cross_entropy %4, %y : tensor<5x2xf32>, tensor<5xi64> to tensor<f32>
  return %5 : tensor<f32>
}

// Mixed precision parameters count their real size: 1024x1024 f16 is 2 MiB,
// 1024 bf16 is 2 KiB. FLOPs: 2*8*1024*1024 = 16777216 for the matmul, 8
// per element for the layer norm (8*8*1024 = 65536), 0 for the casts and the
// reshape, 1 per element for the reduction (8192): 16850944 in all.
// CHECK-LABEL: function @mixed
// CHECK-NEXT: ops: 5 (contraction 1, normalization 1, reduction 1, shape 1, data 1)
// CHECK-NEXT: by name: amp.cast=1 amp.layer_norm=1 amp.matmul=1 amp.reshape=1 amp.sum=1
// CHECK-NEXT: parameters: 2 tensors, 1049600 elements (2.00 MiB)
// CHECK-NEXT: inputs: 1
// CHECK-NEXT: forward FLOPs: 16850944 (16.85 MFLOP)
func.func @mixed(%w: tensor<1024x1024xf16> {amp.param}, %g: tensor<1024xbf16> {amp.param},
                 %x: tensor<8x1024xf32>) -> tensor<f32> {
  %h = amp.cast %x : tensor<8x1024xf32> to tensor<8x1024xf16>
  %0 = amp.matmul %h, %w : tensor<8x1024xf16>, tensor<1024x1024xf16> to tensor<8x1024xf32>
  %1 = amp.layer_norm %0 : tensor<8x1024xf32>
  %2 = amp.reshape %1 : tensor<8x1024xf32> to tensor<8192xf32>
  %3 = amp.sum %2 dims = [0] : tensor<8192xf32> to tensor<f32>
  return %3 : tensor<f32>
}

// Dropout: the generator is no batch input; the training dropouts are
// counted. FLOPs: the training dropout 81 an element (Philox4x32-10's
// integer operations, as the cost report counts them) 81*12 = 972, the
// evaluation one none (a copy), matmul 2*4*3*3 = 72, sum 12: 1056.
// CHECK-LABEL: function @dropped
// CHECK-NEXT: ops: 4 (contraction 1, elementwise 2, reduction 1)
// CHECK-NEXT: by name: amp.dropout=2 amp.matmul=1 amp.sum=1
// CHECK-NEXT: parameters: 1 tensors, 9 elements (36.00 B)
// CHECK-NEXT: inputs: 1
// CHECK-NEXT: random: 1 training dropouts, a generator argument
// CHECK-NEXT: forward FLOPs: 1056 (1.06 kFLOP)
func.func @dropped(%x: tensor<4x3xf32>, %rng: tensor<2xi64> {amp.rng},
                   %w: tensor<3x3xf32> {amp.param}) -> tensor<f32> {
  %a = amp.dropout %x, %rng p = 0.1 stream = 0 training : tensor<4x3xf32>
  %h = amp.matmul %a, %w : tensor<4x3xf32>, tensor<3x3xf32> to tensor<4x3xf32>
  %b = amp.dropout %h, %rng p = 0.1 stream = 1 : tensor<4x3xf32>
  %s = amp.sum %b dims = [0, 1] : tensor<4x3xf32> to tensor<f32>
  return %s : tensor<f32>
}

// Declarations have no body and are skipped.
// CHECK-NOT: function @external
func.func private @external(tensor<2xf32>) -> tensor<2xf32>

// Counts beyond 64 bits are errors at the op or argument, never wrapped
// (negative) figures.
// RUN: not amp-opt %S/Inputs/model-summary-overflow.mlir --split-input-file --amp-model-summary -o /dev/null 2>&1 | FileCheck %s --check-prefix=OVERFLOW
// OVERFLOW: offset :6:8: error: amp-model-summary: the forward FLOPs of this op do not fit in 64 bits
// OVERFLOW: offset :4:78: error: amp-model-summary: the parameter counts of @parameter_bytes do not fit in 64 bits
// OVERFLOW: offset :6:8: error: amp-model-summary: the forward FLOPs of @flops_sum do not fit in 64 bits
// OVERFLOW-NOT: forward FLOPs: -
