// Counts that do not fit in 64 bits (amp-model-summary.mlir): each tensor
// fits, their products or sums do not. They printed negative FLOPs.

// 2 * 2^21 * 2^21 * 2^21 = 2^64 FLOPs.
func.func @gemm_flops(%a: tensor<2097152x2097152xf32>, %b: tensor<2097152x2097152xf32>) -> tensor<2097152x2097152xf32> {
  %c = amp.matmul %a, %b : tensor<2097152x2097152xf32>, tensor<2097152x2097152xf32> to tensor<2097152x2097152xf32>
  return %c : tensor<2097152x2097152xf32>
}

// -----

// Two parameters of 2^62 bytes each.
func.func @parameter_bytes(%w1: tensor<1152921504606846976xf32> {amp.param}, %w2: tensor<1152921504606846976xf32> {amp.param}) {
  return
}

// -----

// Two GEMMs of 2^62 FLOPs each.
func.func @flops_sum(%a: tensor<1048576x2097152xf32>, %b: tensor<2097152x1048576xf32>) -> tensor<1048576x1048576xf32> {
  %c = amp.matmul %a, %b : tensor<1048576x2097152xf32>, tensor<2097152x1048576xf32> to tensor<1048576x1048576xf32>
  %d = amp.matmul %a, %b : tensor<1048576x2097152xf32>, tensor<2097152x1048576xf32> to tensor<1048576x1048576xf32>
  %e = amp.add %c, %d : tensor<1048576x1048576xf32>, tensor<1048576x1048576xf32>
  return %e : tensor<1048576x1048576xf32>
}
