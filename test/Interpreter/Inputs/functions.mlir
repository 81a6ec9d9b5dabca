// Functions for the amp-run error tests (errors.test).
func.func @add(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = amp.add %a, %b : tensor<2x3xf32>, tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

func.func @gather(%ids: tensor<2xi64>) -> tensor<2x3xf32> {
  %table = amp.constant dense<1.0> : tensor<4x3xf32>
  %0 = amp.embedding %table[%ids] : tensor<4x3xf32>, tensor<2xi64>
  return %0 : tensor<2x3xf32>
}

func.func @loss(%logits: tensor<2x3xf32>, %labels: tensor<2xi64>) -> tensor<f32> {
  %0 = amp.cross_entropy %logits, %labels : tensor<2x3xf32>, tensor<2xi64> to tensor<f32>
  return %0 : tensor<f32>
}

func.func @unsupported(%a: tensor<2xi64>) -> tensor<2xi64> {
  %0 = arith.addi %a, %a : tensor<2xi64>
  return %0 : tensor<2xi64>
}

func.func private @external(tensor<2xf32>) -> tensor<2xf32>

func.func @call_external(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = func.call @external(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

func.func @external_user(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = func.call @call_external(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
