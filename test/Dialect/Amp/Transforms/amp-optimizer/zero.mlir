// amp-optimizer{zero-stage=1 replicas=N}: ZeRO stage 1. The gradients are
// reduced as with data-parallel; each replica then updates its part of
// every parameter's master weights and moments and gathers the updated
// parts. A weight that autocast reads only in f16 becomes an f16 weight
// with an f32 master part; the bias, read in f32, is its own master.
// RUN: amp-opt %S/step.mlir --amp-train-step="compute-type=f16 optimizer=adamw zero-stage=1 replicas=2" | FileCheck %s
// RUN: amp-opt %S/step.mlir --amp-train-step="compute-type=f16 optimizer=adamw zero-stage=1 replicas=2 bucket-mb=0.00001" | FileCheck %s --check-prefix=BUCKETS
// RUN: amp-opt %S/step.mlir --amp-train-step="compute-type=none optimizer=sgd momentum=0.9 zero-stage=1 replicas=4" | FileCheck %s --check-prefix=FP32

// CHECK-LABEL: func.func @linear_step
// CHECK-SAME: (%[[W:[a-z0-9]+]]: tensor<4x3xf16> {amp.name = "w", amp.param}, %[[B:[a-z0-9]+]]: tensor<3xf32> {amp.name = "b", amp.param},
// CHECK-SAME: %[[WM:[a-z0-9]+]]: tensor<6xf32> {amp.name = "w.master", amp.shard_of = array<i64: 0, 2, 1>, amp.state},
// CHECK-SAME: %[[WA:[a-z0-9]+]]: tensor<6xf32> {amp.name = "w.exp_avg", amp.shard_of = array<i64: 0, 2, 0>, amp.state},
// CHECK-SAME: %{{[a-z0-9]+}}: tensor<6xf32> {amp.name = "w.exp_avg_sq", amp.shard_of = array<i64: 0, 2, 0>, amp.state},
// CHECK-SAME: %[[BA:[a-z0-9]+]]: tensor<2xf32> {amp.name = "b.exp_avg", amp.shard_of = array<i64: 1, 2, 0>, amp.state},
// CHECK-SAME: -> (tensor<4x3xf16>, tensor<3xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<2xf32>, tensor<2xf32>,
// The f16 weight widens exactly for the gradient function.
// CHECK: %[[W32:.*]] = amp.cast %[[W]] : tensor<4x3xf16> to tensor<4x3xf32>
// CHECK: %[[G:.*]]:4 = call @linear_grad(%[[W32]],
// CHECK: amp.all_reduce sum %[[G]]#2, %[[G]]#1
// CHECK: %[[MEAN:.*]]:2, %{{.*}} = amp.unscale
// CHECK: %[[ALL:.*]] = amp.all_reduce max
// CHECK: %[[GW:.*]] = amp.replica_shard %[[MEAN]]#0 {replicas = 2 : i64} : tensor<4x3xf32> -> tensor<6xf32>
// CHECK: %[[BP:.*]] = amp.replica_shard %[[B]] {replicas = 2 : i64} : tensor<3xf32> -> tensor<2xf32>
// CHECK: %[[GB:.*]] = amp.replica_shard %[[MEAN]]#1 {replicas = 2 : i64} : tensor<3xf32> -> tensor<2xf32>
// CHECK: %[[NW:new_param[_0-9]*]], {{.*}} = amp.adamw_update %[[WM]], %[[GW]], %[[WA]],
// CHECK: %[[NB:new_param[_0-9]*]], {{.*}} = amp.adamw_update %[[BP]], %[[GB]], %[[BA]],
// A step that overflows keeps the old parts.
// CHECK: %[[APPLY:.*]] = amp.compare eq, %[[ALL]]
// CHECK: %[[KW:.*]] = amp.select %[[APPLY]], %[[NW]], %[[WM]]
// CHECK: %[[KB:.*]] = amp.select %[[APPLY]], %[[NB]], %[[BP]]
// CHECK: %[[LOW:.*]] = amp.cast %[[KW]] : tensor<6xf32> to tensor<6xf16>
// CHECK: %[[NEW:.*]]:2 = amp.all_gather %[[LOW]], %[[KB]] {replicas = 2 : i64} : tensor<6xf16>, tensor<2xf32> -> tensor<4x3xf16>, tensor<3xf32>
// CHECK: return %[[NEW]]#0, %[[NEW]]#1, %[[KW]],

// With accumulation only the update's micro-batch gathers; the others
// keep the weights they read.
// RUN: amp-opt %S/step.mlir --amp-train-step="compute-type=f16 optimizer=adamw zero-stage=1 replicas=2 accumulate=2" | FileCheck %s --check-prefix=ACCUM
// ACCUM-LABEL: func.func @linear_step
// ACCUM-SAME: (%[[W:[a-z0-9]+]]: tensor<4x3xf16> {amp.name = "w", amp.param}, %[[B:[a-z0-9]+]]: tensor<3xf32> {amp.name = "b", amp.param},
// ACCUM: %[[DONE:.*]] = amp.compare ge
// ACCUM: amp.all_gather %{{.*}}, %{{.*}} else %[[W]], %[[B]](tensor<4x3xf16>, tensor<3xf32>) when %[[DONE]] {replicas = 2 : i64}
// RUN: amp-opt %S/step.mlir --amp-train-step="compute-type=f16 optimizer=adamw lr=0.05 zero-stage=1 replicas=1 accumulate=2" -o %t.zero-acc.mlir
// RUN: amp-opt %S/step.mlir --amp-train-step="compute-type=f16 optimizer=adamw lr=0.05 data-parallel=true accumulate=2" -o %t.plain-acc.mlir
// RUN: amp-run %t.zero-acc.mlir --function=linear_step --random-inputs=3 --train-steps=6 --print-every=1 > %t.zero-acc.txt
// RUN: amp-run %t.plain-acc.mlir --function=linear_step --random-inputs=3 --train-steps=6 --print-every=1 > %t.plain-acc.txt
// RUN: diff %t.zero-acc.txt %t.plain-acc.txt

// Small buckets: one gather per parameter, the first parameter's first.
// BUCKETS-LABEL: func.func @linear_step
// BUCKETS: amp.all_gather %{{.*}} {replicas = 2 : i64} : tensor<6xf16> -> tensor<4x3xf16>
// BUCKETS-NEXT: amp.all_gather %{{.*}} {replicas = 2 : i64} : tensor<2xf32> -> tensor<3xf32>

// Without autocast every parameter is f32 and its own master; SGD's
// momentum buffers are sharded.
// FP32-LABEL: func.func @linear_step
// FP32-SAME: tensor<4x3xf32> {amp.name = "w", amp.param}
// FP32-SAME: tensor<3xf32> {amp.name = "w.momentum_buffer", amp.shard_of = array<i64: 0, 4, 0>, amp.state}
// FP32-SAME: tensor<1xf32> {amp.name = "b.momentum_buffer", amp.shard_of = array<i64: 1, 4, 0>, amp.state}
// FP32-NOT: master
// FP32: amp.sgd_momentum_update
// FP32: amp.all_gather %{{.*}}, %{{.*}} {replicas = 4 : i64} : tensor<3xf32>, tensor<1xf32> -> tensor<4x3xf32>, tensor<3xf32>

// One replica trains as the unsharded step, bit for bit (the interpreter
// is one replica): the master starts at the weight's f32 values, the f16
// weight at their rounding.
// RUN: amp-opt %S/step.mlir --amp-train-step="compute-type=f16 optimizer=adamw lr=0.05 zero-stage=1 replicas=1" -o %t.zero.mlir
// RUN: amp-opt %S/step.mlir --amp-train-step="compute-type=f16 optimizer=adamw lr=0.05 data-parallel=true" -o %t.plain.mlir
// RUN: amp-run %t.zero.mlir --function=linear_step --random-inputs=3 --train-steps=6 --print-every=1 > %t.zero.txt
// RUN: amp-run %t.plain.mlir --function=linear_step --random-inputs=3 --train-steps=6 --print-every=1 > %t.plain.txt
// RUN: diff %t.zero.txt %t.plain.txt
// RUN: FileCheck %s --check-prefix=TRAINS < %t.zero.txt
// TRAINS: step 5 loss
// TRAINS-NOT: skipped
// TRAINS: 0 skipped

// The interpreter is one replica: a step sharded over two is refused.
// RUN: amp-opt %S/step.mlir --amp-train-step="compute-type=f16 optimizer=adamw zero-stage=1 replicas=2" -o %t.two.mlir
// RUN: not amp-run %t.two.mlir --function=linear_step --random-inputs=3 --train-steps=1 2>&1 | FileCheck %s --check-prefix=ONE-REPLICA
// ONE-REPLICA: error: 'amp.replica_shard' op cuts a tensor into parts for 2 replicas; the interpreter is one replica (compile for replicas=1 to interpret the step)
