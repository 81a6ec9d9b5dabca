// RUN: amp-opt %s --verify-diagnostics --amp-rebatch=batch=2

// At a batch whose arithmetic would let it through ([2, 6] holds as many
// elements as [3, 4]), a reshape whose rows span examples is still
// refused: the rule is each example's, not the element count's.
func.func @inward(%x: tensor<4x6xf32>, %w: tensor<8xf32> {amp.param}) -> tensor<6x4xf32> {
  // expected-error @+1 {{amp-rebatch: at batch 2, 'amp.reshape' moves the batch from the outermost dimension (input 'tensor<4x6xf32>', result 'tensor<6x4xf32>'): a row of the result spans examples}}
  %0 = amp.reshape %x : tensor<4x6xf32> to tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}
