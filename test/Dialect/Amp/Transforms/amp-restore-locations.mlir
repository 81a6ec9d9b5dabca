// RUN: amp-opt %s --pass-pipeline='builtin.module(canonicalize,func.func(amp-restore-locations))' --mlir-print-debuginfo | FileCheck %s

// canonicalize hoists and merges the two equal constants and erases their
// location; the merged constant takes its first user's (the add).
// CHECK-LABEL: func.func @hoisted
// CHECK: amp.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32> loc(#[[$ADD:loc[0-9]*]])
// CHECK: amp.neg {{.*}} loc(#[[$NEG:loc[0-9]*]])
// CHECK: amp.add {{.*}} loc(#[[$ADD]])

// An op with a known location keeps it.
// CHECK-LABEL: func.func @kept
// CHECK: amp.neg {{.*}} loc(#[[$KEPT:loc[0-9]*]])

// CHECK-DAG: #[[$NEG]] = loc("{{.*}}amp-restore-locations.mlir":18:8)
// CHECK-DAG: #[[$ADD]] = loc("{{.*}}amp-restore-locations.mlir":20:8)
// CHECK-DAG: #[[$KEPT]] = loc("{{.*}}amp-restore-locations.mlir":27:8)
func.func @hoisted(%x: tensor<2xf32>) -> tensor<2xf32> {
  %a = amp.neg %x : tensor<2xf32>
  %c1 = amp.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %y = amp.add %a, %c1 : tensor<2xf32>, tensor<2xf32>
  %c2 = amp.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %z = amp.mul %y, %c2 : tensor<2xf32>, tensor<2xf32>
  return %z : tensor<2xf32>
}

func.func @kept(%x: tensor<2xf32>) -> tensor<2xf32> {
  %a = amp.neg %x : tensor<2xf32>
  return %a : tensor<2xf32>
}
