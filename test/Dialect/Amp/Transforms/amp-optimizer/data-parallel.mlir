// amp-optimizer{data-parallel}: the gradients summed over the replicas in
// buckets, the last parameters' first, then divided by the replica count
// in one pass that checks them; found_inf joins that check and is reduced
// with max; with accumulation, only on the update's micro-batch.
// RUN: amp-opt %S/step.mlir --amp-autodiff --amp-loss-scaling=mode=dynamic --amp-optimizer="optimizer=sgd data-parallel=true" | FileCheck %s --check-prefix=ONE
// RUN: amp-opt %S/step.mlir --amp-autodiff --amp-loss-scaling=mode=dynamic --amp-optimizer="optimizer=sgd data-parallel=true bucket-mb=0.00003" | FileCheck %s --check-prefix=TWO
// RUN: amp-opt %S/step.mlir --amp-autodiff --amp-loss-scaling=mode=dynamic --amp-optimizer="optimizer=sgd data-parallel=true accumulate=2" | FileCheck %s --check-prefix=ACCUM
// RUN: amp-opt %S/step.mlir --amp-autodiff --amp-optimizer="optimizer=sgd data-parallel=true" | FileCheck %s --check-prefix=FP32
// The pipeline takes the options too:
// RUN: amp-opt %S/step.mlir --amp-train-step="compute-type=none optimizer=sgd data-parallel=true" | FileCheck %s --check-prefix=FP32

// One bucket (the default 25 MiB holds both), b's gradient first.
// ONE-LABEL: func.func @linear_step
// ONE: %[[G:.*]]:4 = call @linear_grad
// ONE: %[[R:.*]]:2 = amp.all_reduce sum %[[G]]#2, %[[G]]#1 : tensor<3xf32>, tensor<4x3xf32>
// ONE-NEXT: %[[N:.*]] = amp.replica_count : tensor<f32>
// ONE-NEXT: %[[ONE:.*]] = amp.constant dense<1.000000e+00> : tensor<f32>
// ONE-NEXT: %[[INV:.*]] = amp.div %[[ONE]], %[[N]]
// ONE-NEXT: %[[MEAN:.*]]:2, %[[FOUND:.*]] = amp.unscale %[[INV]], %[[R]]#1, %[[R]]#0 : tensor<f32>, tensor<4x3xf32>, tensor<3xf32>
// ONE-NEXT: %[[ANY:.*]] = amp.maximum %[[G]]#3, %[[FOUND]]
// ONE-NEXT: %[[ALL:.*]] = amp.all_reduce max %[[ANY]] : tensor<f32>
// ONE: amp.sgd_update %{{.*}}, %[[MEAN]]#0
// ONE: amp.sgd_update %{{.*}}, %[[MEAN]]#1
// ONE: amp.compare eq, %[[ALL]]
// ONE: amp.scaler_update %{{.*}}, %{{.*}}, %{{.*}}, %[[ALL]]
// ONE: return {{.*}}, %[[ALL]] :

// 30 bytes a bucket: b's 12 bytes, then w's 48 in one of their own.
// TWO-LABEL: func.func @linear_step
// TWO: amp.all_reduce sum %{{.*}}#2 : tensor<3xf32>
// TWO-NEXT: amp.all_reduce sum %{{.*}}#1 : tensor<4x3xf32>
// TWO-NOT: amp.all_reduce sum

// Accumulation: the mean over the micro-batches is reduced, on the N-th.
// ACCUM-LABEL: func.func @linear_step
// ACCUM: %[[DONE:.*]] = amp.compare ge
// ACCUM: %[[W:.*]] = amp.div %{{.*}}, %{{.*}} : tensor<4x3xf32>, tensor<f32>
// ACCUM: %[[B:.*]] = amp.div %{{.*}}, %{{.*}} : tensor<3xf32>, tensor<f32>
// ACCUM: amp.all_reduce sum %[[B]], %[[W]] when %[[DONE]]
// ACCUM: amp.all_reduce max %{{.*}} when %[[DONE]] : tensor<f32>

// Without loss scaling there is no found_inf to reduce.
// FP32-LABEL: func.func @linear_step
// FP32: amp.all_reduce sum
// FP32: amp.unscale
// FP32-NOT: amp.all_reduce
// FP32: return

// One replica trains as a step without data parallelism, bit for bit: the
// sums are the gradients, the division by 1 exact.
// RUN: amp-opt %S/step.mlir --amp-train-step="compute-type=none optimizer=sgd lr=0.5 data-parallel=true" -o %t.dp.mlir
// RUN: amp-opt %S/step.mlir --amp-train-step="compute-type=none optimizer=sgd lr=0.5" -o %t.plain.mlir
// RUN: amp-run %t.dp.mlir --function=linear_step --random-inputs=3 --train-steps=4 --print-every=1 > %t.dp.txt
// RUN: amp-run %t.plain.mlir --function=linear_step --random-inputs=3 --train-steps=4 --print-every=1 > %t.plain.txt
// RUN: diff %t.dp.txt %t.plain.txt
// RUN: FileCheck %s --check-prefix=TRAINS < %t.dp.txt
// TRAINS: step 3 loss
