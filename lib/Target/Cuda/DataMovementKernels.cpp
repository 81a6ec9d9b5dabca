//===- DataMovementKernels.cpp - transpose, slice, concat, embeddings -----===//
//
// Ops that move elements: one index per output element, reading the
// element it comes from. The embedding's gradient sums, per output
// element, the gradients of the ids that name its row, in id order.
//
//===----------------------------------------------------------------------===//

#include "StepEmitter.h"

#include "amp/Dialect/Amp/IR/AmpOps.h"

#include "mlir/Dialect/Utils/IndexingUtils.h"

using namespace mlir;
using namespace mlir::amp;
using namespace mlir::amp::cuda;

namespace {

/// Prints `at += ...` for each output dimension of `op`: the input offset
/// of output element i, with `inputIndex(d, coordinate)` the input index
/// along the input dimension that output dimension d reads and `inputDim(d)`
/// that dimension.
template <typename InputIndex, typename InputDim>
void printGather(OpKernel &kernel, InputIndex &&inputIndex,
                 InputDim &&inputDim) {
  Operation *op = kernel.getOp();
  SmallVector<int64_t> inStrides =
      computeStrides(tensorOf(op->getOperand(0)).getShape());
  ArrayRef<int64_t> outShape = tensorOf(op->getResult(0)).getShape();
  SmallVector<int64_t> outStrides = computeStrides(outShape);
  raw_indented_ostream &body = kernel.functor().body();
  body << "int64_t at = 0;\n";
  for (size_t d = 0; d < outShape.size(); ++d)
    body << "at += "
         << scaled(inputIndex(d, coordinateOf("i", outStrides[d], outShape[d],
                                              product(outShape))),
                   inStrides[inputDim(d)])
         << ";\n";
  body << kernel.out(0) << "[i] = " << kernel.in(0) << "[at];\n";
}

LogicalResult emitTranspose(TransposeOp op, OpKernel &kernel) {
  ArrayRef<int64_t> permutation = op.getPermutation();
  printGather(
      kernel, [](size_t, const std::string &c) { return c; },
      [&](size_t d) { return permutation[d]; });
  kernel.functor().launch(countOf(op.getResult()));
  return success();
}

LogicalResult emitSlice(SliceOp op, OpKernel &kernel) {
  ArrayRef<int64_t> start = op.getStart();
  printGather(
      kernel,
      [&](size_t d, const std::string &c) {
        return start[d] ? c + " + " + std::to_string(start[d]) : c;
      },
      [](size_t d) { return d; });
  kernel.functor().launch(countOf(op.getResult()));
  return success();
}

LogicalResult emitConcat(ConcatOp op, OpKernel &kernel) {
  ArrayRef<int64_t> outShape = tensorOf(op.getResult()).getShape();
  int64_t dim = op.getDim();
  int64_t inner = product(outShape.drop_front(dim + 1));
  int64_t total = product(outShape);
  raw_indented_ostream &body = kernel.functor().body();
  body << "const int64_t o = i / " << outShape[dim] * inner << ";\n"
       << "const int64_t j = " << coordinateOf("i", inner, outShape[dim], total)
       << ";\n"
       << "const int64_t r = "
       << (inner == 1 ? "0" : "i % " + std::to_string(inner)) << ";\n";
  int64_t start = 0;
  for (unsigned p = 0; p < op->getNumOperands(); ++p) {
    int64_t width = tensorOf(op->getOperand(p)).getDimSize(dim);
    std::string offset = start ? " - " + std::to_string(start) : "";
    body << (p ? "else " : "") << "if (j < " << start + width << ")\n  "
         << kernel.out(0) << "[i] = " << kernel.in(p) << "[(o * " << width
         << " + j" << offset << ") * " << inner << " + r];\n";
    start += width;
  }
  kernel.functor().launch(countOf(op.getResult()));
  return success();
}

LogicalResult emitEmbedding(EmbeddingOp op, OpKernel &kernel) {
  auto table = tensorOf(op->getOperand(0));
  int64_t rows = table.getDimSize(0), width = table.getDimSize(1);
  // The runtime checked the ids; one out of range reads zeros.
  kernel.functor().body() << "const int64_t id = "
                          << kernel.load(1, "i / " + std::to_string(width))
                          << ";\n"
                          << kernel.out(0) << "[i] = id >= 0 && id < " << rows
                          << "\n"
                          << "    ? " << kernel.in(0) << "[id * " << width
                          << " + i % " << width << "]\n"
                          << "    : " << storageType(elementOf(op.getResult()))
                          << "(0);\n";
  kernel.functor().launch(countOf(op.getResult()));
  return success();
}

LogicalResult emitEmbeddingGrad(EmbeddingGradOp op, OpKernel &kernel) {
  Type type = elementOf(op.getResult());
  std::string t = registerType(type);
  int64_t width = tensorOf(op.getResult()).getDimSize(1);
  int64_t ids = countOf(op->getOperand(0));
  kernel.functor().body() << "const int64_t row = i / " << width
                          << ", col = i % " << width << ";\n"
                          << t << " acc = " << literal(0, t) << ";\n"
                          << "for (int64_t n = 0; n < " << ids << "; ++n)\n"
                          << "  if (" << kernel.load(0, "n") << " == row)\n"
                          << "    acc = acc + static_cast<" << t << ">("
                          << kernel.load(1, "n * " + std::to_string(width) +
                                                " + col")
                          << ");\n"
                          << kernel.store(0, "i", roundExpr(type, "acc"))
                          << "\n";
  kernel.functor().launch(countOf(op.getResult()));
  return success();
}

} // namespace

void cuda::attachDataMovementModels(MLIRContext &context) {
  TransposeOp::attachInterface<KernelModel<TransposeOp, emitTranspose>>(
      context);
  SliceOp::attachInterface<KernelModel<SliceOp, emitSlice>>(context);
  ConcatOp::attachInterface<KernelModel<ConcatOp, emitConcat>>(context);
  EmbeddingOp::attachInterface<KernelModel<EmbeddingOp, emitEmbedding>>(
      context);
  EmbeddingGradOp::attachInterface<
      KernelModel<EmbeddingGradOp, emitEmbeddingGrad>>(context);
}
