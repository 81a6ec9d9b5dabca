// compute-type=fp8: bf16 everywhere as compute-type=bf16, and the linear
// layers between the first and the last as FP8 GEMMs (e4m3 operands, e5m2
// gradients); the report says why each matmul is or is not one.
// RUN: amp-opt %s --amp-autocast="compute-type=fp8 report=%t.json" | FileCheck %s
// RUN: FileCheck %s --check-prefix=REPORT < %t.json
// RUN: amp-opt %s --amp-autocast="compute-type=fp8 fp8-gradients=e4m3 fp8-keep-first-last=false" | FileCheck %s --check-prefix=ALL
// RUN: amp-opt %s --amp-autocast="compute-type=fp8-f16" | FileCheck %s --check-prefix=F16
// Convolutions stay in bf16, and the report says why.
// RUN: amp-opt %S/Inputs/conv-batch-norm.mlir --amp-autocast="compute-type=fp8 report=%t.conv.json" -o /dev/null
// RUN: FileCheck %s --check-prefix=CONV < %t.conv.json
// CONV: "fp8": null,
// CONV-NEXT: "fp8_reason": "kept in bf16, not FP8: convolutions have no FP8 path yet",
// CONV: "line": "{{.*}}, 0 of 0 matmuls FP8 GEMMs"

// CHECK-LABEL: func.func @mlp
// CHECK: amp.matmul %{{.*}}, %{{.*}} {acc_type = f32} : tensor<64x128xbf16>, tensor<128x256xbf16>
// CHECK: amp.matmul %{{.*}}, %{{.*}} {acc_type = f32, grad_fp8 = f8E5M2, lhs_fp8 = f8E4M3FN, rhs_fp8 = f8E4M3FN} : tensor<64x256xbf16>, tensor<256x256xbf16>
// CHECK: amp.matmul %{{.*}}, %{{.*}} {acc_type = f32, grad_fp8 = f8E5M2, lhs_fp8 = f8E4M3FN, rhs_fp8 = f8E4M3FN} : tensor<64x256xbf16>, tensor<256x128xbf16>
// CHECK: amp.matmul %{{.*}}, %{{.*}} {acc_type = f32} : tensor<64x128xbf16>, tensor<128x16xbf16>
// ALL-LABEL: func.func @mlp
// ALL-COUNT-4: amp.matmul %{{.*}}, %{{.*}} {acc_type = f32, grad_fp8 = f8E4M3FN, lhs_fp8 = f8E4M3FN, rhs_fp8 = f8E4M3FN}
// F16-LABEL: func.func @mlp
// F16: amp.matmul %{{.*}}, %{{.*}} {acc_type = f32} : tensor<64x128xf16>, tensor<128x256xf16>
// F16: amp.matmul %{{.*}}, %{{.*}} {acc_type = f32, grad_fp8 = f8E5M2, lhs_fp8 = f8E4M3FN, rhs_fp8 = f8E4M3FN} : tensor<64x256xf16>, tensor<256x256xf16>
// REPORT: "compute_type": "bf16",
// REPORT: "fp8": null,
// REPORT-NEXT: "fp8_reason": "kept in bf16, not FP8: the first linear layer, which the FP8 recipes keep in higher precision (amp.fp8 = true overrides)",
// REPORT: "fp8": {
// REPORT-NEXT: "grad": "f8E5M2",
// REPORT-NEXT: "lhs": "f8E4M3FN",
// REPORT-NEXT: "rhs": "f8E4M3FN"
// REPORT-NEXT: },
// REPORT-NEXT: "fp8_reason": "FP8: a linear layer: e4m3 operands, gradient in e5m2, per-tensor current scaling",
// REPORT: "fp8_reason": "kept in bf16, not FP8: the last linear layer (the output head), which the FP8 recipes keep in higher precision (amp.fp8 = true overrides)",
// REPORT: "fp8_gemms": 2,
// REPORT: "line": "converted 7/7 ops to bf16 with 6 casts (834.0 KiB cast traffic per step), 2 of 4 matmuls FP8 GEMMs",
func.func @mlp(%x: tensor<64x128xf32>, %w1: tensor<128x256xf32> {amp.param}, %w2: tensor<256x256xf32> {amp.param},
               %w3: tensor<256x128xf32> {amp.param}, %w4: tensor<128x16xf32> {amp.param}) -> tensor<64x16xf32> {
  %h1 = amp.matmul %x, %w1 : tensor<64x128xf32>, tensor<128x256xf32> to tensor<64x256xf32>
  %a1 = amp.relu %h1 : tensor<64x256xf32>
  %h2 = amp.matmul %a1, %w2 : tensor<64x256xf32>, tensor<256x256xf32> to tensor<64x256xf32>
  %a2 = amp.relu %h2 : tensor<64x256xf32>
  %h3 = amp.matmul %a2, %w3 : tensor<64x256xf32>, tensor<256x128xf32> to tensor<64x128xf32>
  %a3 = amp.relu %h3 : tensor<64x128xf32>
  %o = amp.matmul %a3, %w4 : tensor<64x128xf32>, tensor<128x16xf32> to tensor<64x16xf32>
  return %o : tensor<64x16xf32>
}


// What is never FP8 without amp.fp8 = true: a product of two activations,
// a shape cuBLASLt's FP8 GEMMs cannot take (10 columns), a layer kept by
// amp.fp8 = false. amp.fp8 = true makes the last layer one.
// CHECK-LABEL: func.func @kept
// CHECK: amp.matmul %{{.*}}, %{{.*}} {acc_type = f32} : tensor<64x32xbf16>, tensor<32x32xbf16>
// CHECK: amp.matmul %{{.*}}, %{{.*}} {acc_type = f32, transpose_rhs} : tensor<64x32xbf16>, tensor<64x32xbf16>
// CHECK: amp.matmul %{{.*}}, %{{.*}} {acc_type = f32} : tensor<64x32xbf16>, tensor<32x10xbf16>
// CHECK: amp.matmul %{{.*}}, %{{.*}} {acc_type = f32, amp.fp8 = false} : tensor<64x32xbf16>, tensor<32x32xbf16>
// CHECK: amp.matmul %{{.*}}, %{{.*}} {acc_type = f32, amp.fp8 = true, grad_fp8 = f8E5M2, lhs_fp8 = f8E4M3FN, rhs_fp8 = f8E4M3FN} : tensor<64x32xbf16>, tensor<32x32xbf16>
// REPORT: "fp8_reason": "kept in bf16, not FP8: a product of two activations (attention's), which the FP8 recipes keep in bf16",
// REPORT: "fp8_reason": "kept in bf16, not FP8: its rows (64), columns (10) and inner dimension (32) are not all multiples of 16, which cuBLASLt's FP8 GEMMs need",
// REPORT: "fp8_reason": "kept in bf16 by amp.fp8 = false",
// REPORT: "fp8_reason": "FP8, forced by amp.fp8 = true: e4m3 operands, gradient in e5m2, per-tensor current scaling",
// A matmul written as an FP8 GEMM keeps its formats, and counts.
// CHECK: amp.matmul %{{.*}}, %{{.*}} {acc_type = f32, lhs_fp8 = f8E5M2, rhs_fp8 = f8E4M3FN} : tensor<64x32xbf16>, tensor<32x32xbf16>
// REPORT: "grad": null,
// REPORT-NEXT: "lhs": "f8E5M2",
// REPORT-NEXT: "rhs": "f8E4M3FN"
// REPORT-NEXT: },
// REPORT-NEXT: "fp8_reason": "an FP8 GEMM as written (its formats kept)",
// REPORT: "fp8_gemms": 2,
func.func @kept(%x: tensor<64x32xf32>, %w1: tensor<32x32xf32> {amp.param}, %w2: tensor<32x10xf32> {amp.param},
                %w3: tensor<32x32xf32> {amp.param}, %w4: tensor<32x32xf32> {amp.param}) -> (tensor<64x64xf32>, tensor<64x10xf32>, tensor<64x32xf32>) {
  %h = amp.matmul %x, %w1 : tensor<64x32xf32>, tensor<32x32xf32> to tensor<64x32xf32>
  %s = amp.matmul %h, %h {transpose_rhs} : tensor<64x32xf32>, tensor<64x32xf32> to tensor<64x64xf32>
  %n = amp.matmul %h, %w2 : tensor<64x32xf32>, tensor<32x10xf32> to tensor<64x10xf32>
  %k = amp.matmul %h, %w3 {amp.fp8 = false} : tensor<64x32xf32>, tensor<32x32xf32> to tensor<64x32xf32>
  %o = amp.matmul %k, %w4 {amp.fp8 = true} : tensor<64x32xf32>, tensor<32x32xf32> to tensor<64x32xf32>
  %e = amp.matmul %o, %w4 {lhs_fp8 = f8E5M2, rhs_fp8 = f8E4M3FN} : tensor<64x32xf32>, tensor<32x32xf32> to tensor<64x32xf32>
  return %s, %n, %e : tensor<64x64xf32>, tensor<64x10xf32>, tensor<64x32xf32>
}
