//===- Passes.td - amp passes ------------------------------*- tablegen -*-===//

#ifndef AMP_DIALECT_AMP_TRANSFORMS_PASSES_TD
#define AMP_DIALECT_AMP_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def AmpModelSummary : Pass<"amp-model-summary", "mlir::ModuleOp"> {
  let summary = "Print what each function holds: ops by family, parameters, "
                "forward FLOPs";
  let description = [{
    An analysis printer: for every `func.func` in the module it prints, to
    standard output, the number of ops by family (contraction, elementwise,
    normalization, reduction, loss, shape, data, other) and by name, the
    parameters (arguments marked `amp.param`) with their element count and
    size, the number of other inputs, and the floating-point operations of
    one forward evaluation (FlopCountOpInterface). The IR is not changed.

    Given
    ```mlir
    func.func @linear(%w: tensor<4x3xf32> {amp.param}, %x: tensor<2x4xf32>)
        -> tensor<2x3xf32> {
      %y = amp.matmul %x, %w : tensor<2x4xf32>, tensor<4x3xf32> to tensor<2x3xf32>
      return %y : tensor<2x3xf32>
    }
    ```
    it prints
    ```
    function @linear
      ops: 1 (contraction 1)
      by name: amp.matmul=1
      parameters: 1 tensors, 12 elements (48.00 B)
      inputs: 1
      forward FLOPs: 48 (48.00 FLOP)
    ```
  }];
}

#endif // AMP_DIALECT_AMP_TRANSFORMS_PASSES_TD
