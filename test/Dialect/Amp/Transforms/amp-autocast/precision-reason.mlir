// amp.precision_reason says why an op's precision is forced (the importer
// writes "torch.autocast(enabled=False) at ..." on the ops of a region
// that disables autocast): the report gives it with the decision, and the
// op stays in f32 as amp.precision says.
// RUN: amp-opt %s --amp-autocast="report=%t.json" | FileCheck %s
// RUN: FileCheck %s --check-prefix=REPORT < %t.json
// CHECK: amp.matmul %{{.*}}, %{{.*}} {acc_type = f32} : tensor<4x4xf16>, tensor<4x4xf16> to tensor<4x4xf16>
// CHECK: amp.softmax %{{.*}} dim = 1 {amp.precision = f32, amp.precision_reason = "torch.autocast(enabled=False) at forward (model.py:7)"} : tensor<4x4xf32>
// REPORT: "op": "amp.softmax",
// REPORT: "precision": "f32",
// REPORT-NEXT: "reason": "forced by amp.precision (torch.autocast(enabled=False) at forward (model.py:7))"
func.func @region(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %m = amp.matmul %x, %x : tensor<4x4xf32>, tensor<4x4xf32> to tensor<4x4xf32>
  %s = amp.softmax %m dim = 1 {amp.precision = f32, amp.precision_reason = "torch.autocast(enabled=False) at forward (model.py:7)"} : tensor<4x4xf32>
  return %s : tensor<4x4xf32>
}
