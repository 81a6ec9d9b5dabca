//===- DataMovementKernels.cpp - transpose, slice, concat, embeddings -----===//
//
// Ops that move elements: one index per output element, reading the
// element it comes from. The embedding's gradient buckets the ids by row
// first, so that each output element sums the gradients of its row's ids
// only, in position order.
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

/// The ids' positions bucketed by id, in the scratch memory of the
/// embedding's gradient: `end[v]`, where the bucket of row v ends (it
/// begins where row v - 1's ends), then the positions, ascending in each
/// bucket. A counting sort: stable, so that each row's gradients are then
/// summed in position order, as the interpreter sums them. One thread, in
/// O(ids + rows); ids outside the table (which the runtime's index checks
/// refuse before a run) fall in no bucket.
LogicalResult emitIdBuckets(EmbeddingGradOp op, OpKernel &gradKernel) {
  OpKernel kernel(gradKernel.getEmitter(), op, {},
                  gradKernel.getName().str() + "_buckets");
  FailureOr<std::string> scratch = kernel.scratch("int64_t");
  if (failed(scratch))
    return failure();
  std::string rows = std::to_string(op.getType().getDimSize(0));
  std::string ids = std::to_string(countOf(op.getIndices()));
  std::string id = kernel.load(0, "n");
  kernel.functor().body() << "int64_t *const end = " << *scratch << ";\n"
                          << "int64_t *const positions = " << *scratch << " + "
                          << rows << ";\n"
                          << "for (int64_t v = 0; v < " << rows << "; ++v)\n"
                          << "  end[v] = 0;\n"
                          << "for (int64_t n = 0; n < " << ids << "; ++n) {\n"
                          << "  const int64_t id = " << id << ";\n"
                          << "  if (id >= 0 && id < " << rows << ")\n"
                          << "    ++end[id];\n"
                          << "}\n"
                          << "int64_t total = 0;\n"
                          << "for (int64_t v = 0; v < " << rows << "; ++v) {\n"
                          << "  const int64_t count = end[v];\n"
                          << "  end[v] = total;\n"
                          << "  total += count;\n"
                          << "}\n"
                          << "for (int64_t n = 0; n < " << ids << "; ++n) {\n"
                          << "  const int64_t id = " << id << ";\n"
                          << "  if (id >= 0 && id < " << rows << ")\n"
                          << "    positions[end[id]++] = n;\n"
                          << "}\n";
  kernel.functor().launch(1);
  return success();
}

LogicalResult emitEmbeddingGrad(EmbeddingGradOp op, OpKernel &kernel) {
  if (failed(emitIdBuckets(op, kernel)))
    return failure();
  Type type = elementOf(op.getResult());
  std::string t = registerType(type);
  int64_t width = tensorOf(op.getResult()).getDimSize(1);
  int64_t rows = op.getType().getDimSize(0);
  FailureOr<std::string> scratch = kernel.scratch("const int64_t");
  if (failed(scratch))
    return failure();
  // Each output element sums the gradients of its row's bucket.
  kernel.functor().body()
      << "const int64_t row = i / " << width << ", col = i % " << width << ";\n"
      << "const int64_t *const end = " << *scratch << ";\n"
      << "const int64_t *const positions = " << *scratch << " + " << rows
      << ";\n"
      << t << " acc = " << literal(0, t) << ";\n"
      << "for (int64_t k = row == 0 ? 0 : end[row - 1]; k < end[row]; ++k)\n"
      << "  acc = acc + static_cast<" << t << ">("
      << kernel.load(1, "positions[k] * " + std::to_string(width) + " + col")
      << ");\n"
      << kernel.store(0, "i", roundExpr(type, "acc")) << "\n";
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
