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
#include "amp/Dialect/Amp/Transforms/Backend.h"

#include "mlir/Dialect/Utils/IndexingUtils.h"

using namespace mlir;
using namespace mlir::amp;
using namespace mlir::amp::backend;
using namespace mlir::amp::cuda;

namespace {

/// Prints `int64_t <name> = ...;` to `body`: the offset in operand 0 of a
/// transpose or slice `op` of the element at offset `index` of its result.
std::string printSourceIndex(raw_ostream &body, Operation *op, StringRef index,
                             StringRef name) {
  SmallVector<int64_t> inStrides =
      computeStrides(tensorOf(op->getOperand(0)).getShape());
  ArrayRef<int64_t> outShape = tensorOf(op->getResult(0)).getShape();
  SmallVector<int64_t> outStrides = computeStrides(outShape);
  body << "int64_t " << name << " = 0;\n";
  for (size_t d = 0; d < outShape.size(); ++d) {
    std::string c =
        coordinateOf(index, outStrides[d], outShape[d], product(outShape));
    int64_t inputDim = d;
    if (auto transpose = dyn_cast<TransposeOp>(op))
      inputDim = transpose.getPermutation()[d];
    else if (int64_t start = cast<SliceOp>(op).getStart()[d])
      c += " + " + std::to_string(start);
    body << name << " += " << scaled(c, inStrides[inputDim]) << ";\n";
  }
  return name.str();
}

/// The element of `value` at offset `index` (a variable of the body): read
/// from memory, or, where --amp-fuse put the transpose, slice or reshape
/// that makes `value` in this kernel, from that op's operand at the offset
/// it reads (printed first), and so on to memory. The cost report counts
/// as many bytes of that memory as `value` has (a slice reads its part).
std::string gathered(OpKernel &kernel, raw_ostream &body, Value value,
                     std::string index) {
  // One element of the source for each of `value`'s.
  int64_t bytes = getByteSize(value.getType());
  int step = 0;
  while (Operation *def = value.getDefiningOp()) {
    if (!llvm::is_contained(kernel.getFused(), def))
      break;
    if (!isView(def))
      index =
          printSourceIndex(body, def, index, "from" + std::to_string(step++));
    value = def->getOperand(0);
  }
  kernel.functor().readsPart(value, bytes);
  return kernel.functor().getParams().add(value, /*writes=*/false) + "[" +
         index + "]";
}

/// A transpose or slice: each output element reads the element it comes
/// from.
LogicalResult emitGather(Operation *op, OpKernel &kernel) {
  raw_indented_ostream &body = kernel.functor().body();
  std::string at = printSourceIndex(body, op, "i", "at");
  std::string load = gathered(kernel, body, op->getOperand(0), at);
  body << kernel.out(0) << "[i] = " << load << ";\n";
  kernel.functor().launch(countOf(op->getResult(0)));
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
  std::string out = kernel.out(0);
  int64_t start = 0;
  for (unsigned p = 0; p < op->getNumOperands(); ++p) {
    int64_t width = tensorOf(op->getOperand(p)).getDimSize(dim);
    std::string offset = start ? " - " + std::to_string(start) : "";
    body << (p ? "} else " : "") << "if (j < " << start + width << ") {\n";
    body.indent() << "const int64_t at = (o * " << width << " + j" << offset
                  << ") * " << inner << " + r;\n";
    std::string load = gathered(kernel, body, op->getOperand(p), "at");
    body << out << "[i] = " << load << ";\n";
    body.unindent();
    start += width;
  }
  body << "}\n";
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
  // Of the table, only the rows of the ids: an element per output element.
  kernel.functor().readsPart(op->getOperand(0),
                             getByteSize(op.getResult().getType()));
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

/// The model of a transpose, slice or concat, which also computes the
/// transposes, slices and reshapes --amp-fuse put before it (gathered).
template <typename Op, LogicalResult (*Emit)(Op, OpKernel &)>
struct GatherModel
    : KernelOpInterface::ExternalModel<GatherModel<Op, Emit>, Op> {
  LogicalResult emitKernel(Operation *op, OpKernel &kernel) const {
    return Emit(cast<Op>(op), kernel);
  }
  bool fusesWith(Operation *, ArrayRef<Operation *> others) const {
    return llvm::all_of(others, [](Operation *other) {
      return isa<TransposeOp, SliceOp>(other) || isView(other);
    });
  }
};

LogicalResult emitTranspose(TransposeOp op, OpKernel &kernel) {
  return emitGather(op, kernel);
}
LogicalResult emitSlice(SliceOp op, OpKernel &kernel) {
  return emitGather(op, kernel);
}

} // namespace

void cuda::attachDataMovementModels(MLIRContext &context) {
  TransposeOp::attachInterface<GatherModel<TransposeOp, emitTranspose>>(
      context);
  SliceOp::attachInterface<GatherModel<SliceOp, emitSlice>>(context);
  ConcatOp::attachInterface<GatherModel<ConcatOp, emitConcat>>(context);
  EmbeddingOp::attachInterface<KernelModel<EmbeddingOp, emitEmbedding>>(
      context);
  EmbeddingGradOp::attachInterface<
      KernelModel<EmbeddingGradOp, emitEmbeddingGrad>>(context);
}
