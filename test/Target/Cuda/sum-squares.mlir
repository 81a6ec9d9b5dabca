// RUN: amp-opt %s --pass-pipeline='builtin.module(func.func(amp-fuse,amp-plan-buffers))' | amp-translate --amp-to-cuda --amp-name=sq | FileCheck %s
// RUN: amp-opt %s --pass-pipeline='builtin.module(func.func(amp-fuse,amp-plan-buffers))' | amp-translate --amp-cost-report --amp-name=sq | %python %S/Inputs/cost_rows.py | FileCheck %s --check-prefix=COST

// Clipping's sum of squares is one runtime call over every tensor, whatever
// their types; differential.test checks its result against the
// interpreter's bit for bit, OptimizerKernelsTest the runtime's slices.
// CHECK-LABEL: // k0_sum_squares:
// CHECK: const void *const data[] = {param0, input0, input1,
// CHECK: input27, input28, input29, input30, input31};
// CHECK-NEXT: const amp_dtype_t dtypes[] = {AMP_F32, AMP_F32,
// CHECK: AMP_F32, AMP_F32, AMP_F32, AMP_F32, AMP_BF16};
// CHECK-NEXT: const size_t sizes[] = {8, 8, 8,
// CHECK-NEXT: 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 300000};
// CHECK-NEXT: AMP_STEP_CHECK(
// CHECK-NEXT: amp_sum_squares(stream, amp_typed_tensor_list_t{33, data, dtypes, sizes}, [[OUT:.*]]));
// CHECK: ampstep::Results{[[OUT]], nullptr,

// Its cost, by hand (launch_grid.h): one launch for up to 256 tensors. Of
// the 300256 values, each 8-value tensor gets one slice (one part of 256
// or fewer values): 32 blocks, 2 * 256 FLOPs, 1024 bytes read. The bf16
// tensor may have at most ceil(300000 / 65536) = 5 slices and wants its
// share of 1056, so 5: 1172 parts of 256, 256 a block; 2 * 300000 FLOPs,
// 600000 bytes. In all 37 blocks, 600512 FLOPs, 601024 bytes. Then a
// block's threads combine each tensor's slices and its thread 0 adds the
// 33 results into the result.
// COST: k0_sum_squares sum-squares launches=1 grid=37x256 flops=600512 transcendentals=0 tensor_core=0 read=601024 written=0
// COST-NEXT: k0_sum_squares_finish scalar launches=1 grid=1x256 flops=0 transcendentals=0 tensor_core=0 read=0 written=4

func.func @step(%g0: tensor<8xf32> {amp.param}, %g1: tensor<8xf32>, %g2: tensor<8xf32>, %g3: tensor<8xf32>, %g4: tensor<8xf32>, %g5: tensor<8xf32>, %g6: tensor<8xf32>, %g7: tensor<8xf32>, %g8: tensor<8xf32>, %g9: tensor<8xf32>, %g10: tensor<8xf32>, %g11: tensor<8xf32>, %g12: tensor<8xf32>, %g13: tensor<8xf32>, %g14: tensor<8xf32>, %g15: tensor<8xf32>, %g16: tensor<8xf32>, %g17: tensor<8xf32>, %g18: tensor<8xf32>, %g19: tensor<8xf32>, %g20: tensor<8xf32>, %g21: tensor<8xf32>, %g22: tensor<8xf32>, %g23: tensor<8xf32>, %g24: tensor<8xf32>, %g25: tensor<8xf32>, %g26: tensor<8xf32>, %g27: tensor<8xf32>, %g28: tensor<8xf32>, %g29: tensor<8xf32>, %g30: tensor<8xf32>, %g31: tensor<8xf32>, %big: tensor<300000xbf16>) -> (tensor<8xf32>, tensor<f32>) {
  %sq = amp.sum_squares %g0, %g1, %g2, %g3, %g4, %g5, %g6, %g7, %g8, %g9, %g10, %g11, %g12, %g13, %g14, %g15, %g16, %g17, %g18, %g19, %g20, %g21, %g22, %g23, %g24, %g25, %g26, %g27, %g28, %g29, %g30, %g31, %big : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<300000xbf16>
  return %g0, %sq : tensor<8xf32>, tensor<f32>
}
