//===- DataMovementKernels.cpp - gathers, embeddings, im2col --------------===//
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

/// The sizes a window op's kernel prints: the image [N, C, H, W], the
/// window, and the output positions OH x OW.
struct WindowSizes {
  ArrayRef<int64_t> image;
  Conv2dWindow window;
  int64_t outH, outW;
};

WindowSizes windowSizesOf(ArrayRef<int64_t> image, Conv2dWindow window) {
  return {image, window, window.outputSize(image[2], 0),
          window.outputSize(image[3], 1)};
}

/// `a + offset`, then ` + term` or ` - term` where `term` is not empty.
std::string affine(std::string a, int64_t offset, char sign = '+',
                   StringRef term = "") {
  if (offset > 0)
    a += " + " + std::to_string(offset);
  else if (offset < 0)
    a += " - " + std::to_string(-offset);
  if (!term.empty())
    a += std::string(" ") + sign + " " + term.str();
  return a;
}

/// `name * factor` where the kernel has more than one offset along the
/// dimension, else nothing (the offset is 0).
std::string offsetTerm(StringRef name, int64_t extent, int64_t factor) {
  return extent > 1 ? scaled(name, factor) : "";
}

/// Counts, of `image` in the cost report, the rows and columns some window
/// reads (a stride longer than the window skips some).
void readsWindows(OpKernel &kernel, Value image, const WindowSizes &w) {
  auto readAlong = [&](int dim) {
    int64_t size = w.image[2 + dim], out = dim == 0 ? w.outH : w.outW;
    std::vector<bool> read(size);
    for (int64_t o = 0; o < out; ++o) {
      // Only the offsets that land inside: a long window over a small image
      // costs no more than the image.
      int64_t first, last;
      w.window.insideOffsets(o, dim, size, first, last);
      for (int64_t k = first; k <= last; ++k)
        read[w.window.inputPosition(o, k, dim)] = true;
    }
    return static_cast<int64_t>(llvm::count(read, true));
  };
  kernel.functor().readsPart(
      image, readAlong(0) * readAlong(1) * w.image[0] * w.image[1] *
                 getByteSize(image.getType()) / countOf(image));
}

/// The statements of a pooling kernel that declare its window and
/// `load(p)`, the element at position p of the image plane `plane`.
std::string windowLoad(OpKernel &kernel, const WindowSizes &w) {
  const Conv2dWindow &win = w.window;
  std::string window = llvm::formatv(
      "constexpr amprt::Conv2dWindow window{{{{{0}, {1}}, "
      "{{{2}, {3}}, {{{4}, {5}, {6}, {7}}, {{{8}, {9}}};\n",
      win.kernel[0], win.kernel[1], win.strides[0], win.strides[1],
      win.padding[0], win.padding[1], win.padding[2], win.padding[3],
      win.dilations[0], win.dilations[1]);
  return window + "const auto load = [&](int64_t p) { return " +
         kernel.load(0, scaled("plane", w.image[2] * w.image[3]) + " + p") +
         "; };\n";
}

/// Prints the coordinates of element i of a [planes, height, width] tensor
/// of `count` elements: `x` and `y` in the plane, and the plane.
void printPlaneCoordinates(raw_ostream &body, int64_t count, int64_t height,
                           int64_t width, StringRef y, StringRef x,
                           StringRef plane) {
  body << "const int64_t " << x << " = " << coordinateOf("i", 1, width, count)
       << ", " << y << " = " << coordinateOf("i", width, height, count) << ";\n"
       << "const int64_t " << plane << " = "
       << coordinateOf("i", height * width, count / (height * width), count)
       << ";\n";
}

/// im2col: each column element, [n * C + c][kh][kw][y][x] of the result,
/// copies the image element its window reads, or zero in the padding.
LogicalResult emitIm2col(Im2colOp op, OpKernel &kernel) {
  WindowSizes w =
      windowSizesOf(tensorOf(op.getInput()).getShape(), op.getWindow());
  const Conv2dWindow &win = w.window;
  int64_t count = countOf(op.getResult()), positions = w.outH * w.outW;
  raw_indented_ostream &body = kernel.functor().body();
  body << "const int64_t x = " << coordinateOf("i", 1, w.outW, count)
       << ", y = " << coordinateOf("i", w.outW, w.outH, count) << ";\n";
  if (win.kernel[1] > 1)
    body << "const int64_t kw = "
         << coordinateOf("i", positions, win.kernel[1], count) << ";\n";
  if (win.kernel[0] > 1)
    body << "const int64_t kh = "
         << coordinateOf("i", positions * win.kernel[1], win.kernel[0], count)
         << ";\n";
  body << "const int64_t image = "
       << coordinateOf("i", positions * win.kernel[0] * win.kernel[1],
                       w.image[0] * w.image[1], count)
       << ";\n"
       << "const int64_t row = "
       << affine(scaled("y", win.strides[0]), -win.padding[0], '+',
                 offsetTerm("kh", win.kernel[0], win.dilations[0]))
       << ";\n"
       << "const int64_t col = "
       << affine(scaled("x", win.strides[1]), -win.padding[1], '+',
                 offsetTerm("kw", win.kernel[1], win.dilations[1]))
       << ";\n"
       << kernel.out(0) << "[i] = row >= 0 && row < " << w.image[2]
       << " && col >= 0 && col < " << w.image[3] << "\n"
       << "    ? " << kernel.in(0) << "[(image * " << w.image[2] << " + row) * "
       << w.image[3] << " + col]\n"
       << "    : " << storageType(elementOf(op.getResult())) << "(0);\n";
  readsWindows(kernel, op.getInput(), w);
  kernel.functor().launch(count);
  return success();
}

/// Prints, for output coordinate `out` along `dim` of a window, the loop
/// over its kernel offsets `k` (none for a kernel of one) and in it a block
/// for the offsets that read an output position from image coordinate `at`,
/// which `out` then names. Returns the scopes it opened, for closeScopes.
int openWindowLoop(raw_indented_ostream &body, const WindowSizes &w, int dim,
                   StringRef k, StringRef out, StringRef at) {
  const Conv2dWindow &win = w.window;
  int64_t extent = win.kernel[dim], stride = win.strides[dim];
  int64_t bound = dim == 0 ? w.outH : w.outW;
  int scopes = 0;
  if (extent > 1) {
    body << "for (int64_t " << k << " = 0; " << k << " < " << extent << "; ++"
         << k << ") {\n";
    body.indent();
    ++scopes;
  }
  // The output position that reads `at` at offset k, times the stride.
  std::string from = stride > 1 ? "s" + out.str() : out.str();
  body << "const int64_t " << from << " = "
       << affine(at.str(), win.padding[dim], '-',
                 offsetTerm(k, extent, win.dilations[dim]))
       << ";\n"
       << "if (" << from << " >= 0"
       << (stride > 1 ? " && " + from + " % " + std::to_string(stride) + " == 0"
                      : "")
       << " && " << from << " < " << bound * stride << ") {\n";
  body.indent();
  ++scopes;
  if (stride > 1)
    body << "const int64_t " << out << " = " << from << " / " << stride
         << ";\n";
  return scopes;
}

/// Closes the scopes openWindowLoop opened.
void closeScopes(raw_indented_ostream &body, int scopes) {
  for (; scopes > 0; --scopes)
    body.unindent() << "}\n";
}

/// col2im: each image element sums the column elements that read it, over
/// kh, then kw, ascending (the interpreter's order), in f32 (f64 for f64
/// columns), and rounds once.
LogicalResult emitCol2im(Col2imOp op, OpKernel &kernel) {
  WindowSizes w =
      windowSizesOf(tensorOf(op.getResult()).getShape(), op.getWindow());
  const Conv2dWindow &win = w.window;
  int64_t count = countOf(op.getResult()), positions = w.outH * w.outW;
  std::string acc = elementOf(op.getColumns()).isF64() ? "double" : "float";
  // Element [image][kh][kw][y][x] of the columns.
  std::string row = "image";
  if (win.kernel[0] > 1)
    row = scaled(row, win.kernel[0]) + " + kh";
  row = scaled(row, win.kernel[1]);
  if (win.kernel[1] > 1)
    row += " + kw";
  std::string load = kernel.load(0, scaled(row, positions) + " + " +
                                        scaled("y", w.outW) + " + x");
  raw_indented_ostream &body = kernel.functor().body();
  printPlaneCoordinates(body, count, w.image[2], w.image[3], "row", "col",
                        "image");
  body << acc << " acc = " << literal(0, acc) << ";\n";
  int scopes = openWindowLoop(body, w, 0, "kh", "y", "row");
  scopes += openWindowLoop(body, w, 1, "kw", "x", "col");
  body << "acc = acc + static_cast<" << acc << ">(" << load << ");\n";
  closeScopes(body, scopes);
  body << kernel.store(0, "i", roundExpr(elementOf(op.getResult()), "acc"))
       << "\n";
  // An addition per column element inside the image; of the columns, only
  // those are read (the others are the padding's).
  int64_t elements = *op.getForwardFlops();
  kernel.functor().addWork(elements);
  kernel.functor().readsPart(op.getColumns(),
                             elements * getByteSize(op.getColumns().getType()) /
                                 countOf(op.getColumns()));
  kernel.functor().launch(count);
  return success();
}

/// max_pool2d: each output copies its window's value at
/// amprt::windowArgmax (conv_window.h, shared with the interpreter).
LogicalResult emitMaxPool2d(MaxPool2dOp op, OpKernel &kernel) {
  WindowSizes w =
      windowSizesOf(tensorOf(op.getInput()).getShape(), op.getWindow());
  int64_t count = countOf(op.getResult()), plane = w.image[2] * w.image[3];
  raw_indented_ostream &body = kernel.functor().body();
  printPlaneCoordinates(body, count, w.outH, w.outW, "y", "x", "plane");
  body << windowLoad(kernel, w) << kernel.out(0) << "[i] = " << kernel.in(0)
       << "[" << scaled("plane", plane) << " + amprt::windowArgmax(window, "
       << w.image[2] << ", " << w.image[3] << ", y, x, load)];\n";
  readsWindows(kernel, op.getInput(), w);
  kernel.functor().addWork(*op.getForwardFlops());
  kernel.functor().launch(count);
  return success();
}

/// max_pool2d_grad: each input element sums the gradients of the windows
/// that read it and whose maximum it is, over kh, then kw, ascending (the
/// interpreter's order), in f32 (f64 for f64), and rounds once.
LogicalResult emitMaxPool2dGrad(MaxPool2dGradOp op, OpKernel &kernel) {
  WindowSizes w =
      windowSizesOf(tensorOf(op.getInput()).getShape(), op.getWindow());
  int64_t count = countOf(op.getResult());
  std::string acc = elementOf(op.getInput()).isF64() ? "double" : "float";
  raw_indented_ostream &body = kernel.functor().body();
  printPlaneCoordinates(body, count, w.image[2], w.image[3], "row", "col",
                        "plane");
  body << windowLoad(kernel, w) << acc << " acc = " << literal(0, acc) << ";\n";
  int scopes = openWindowLoop(body, w, 0, "kh", "y", "row");
  scopes += openWindowLoop(body, w, 1, "kw", "x", "col");
  body << "if (amprt::windowArgmax(window, " << w.image[2] << ", " << w.image[3]
       << ", y, x, load) == " << scaled("row", w.image[3]) << " + col)\n"
       << "  acc = acc + static_cast<" << acc << ">("
       << kernel.load(1, scaled("plane", w.outH * w.outW) + " + " +
                             scaled("y", w.outW) + " + x")
       << ");\n";
  closeScopes(body, scopes);
  body << kernel.store(0, "i", roundExpr(elementOf(op.getResult()), "acc"))
       << "\n";
  // Each window a position is in finds its maximum again: a comparison per
  // value of the window, for each column element inside the image; each
  // output's gradient is added once.
  int64_t images = w.image[0] * w.image[1];
  kernel.functor().addWork(images *
                               w.window.insideCount(w.image[2], w.image[3]) *
                               w.window.kernel[0] * w.window.kernel[1] +
                           images * w.outH * w.outW);
  readsWindows(kernel, op.getInput(), w);
  kernel.functor().launch(count);
  return success();
}

/// The ids' positions bucketed by id, in the scratch memory of the
/// embedding's gradient: `end[v]`, where the bucket of row v ends (it
/// begins where row v - 1's ends), then the positions, ascending in each
/// bucket, so that each row's gradients are then summed in position order,
/// as the interpreter sums them; then amp_id_buckets' workspace. A runtime
/// call (amp_runtime/id_buckets.h): a counting sort on the host, CUB's
/// stable radix sort on the GPU, which bucket alike; ids outside the table
/// (which the runtime's index checks refuse before a run) fall in no
/// bucket.
LogicalResult emitIdBuckets(EmbeddingGradOp op, OpKernel &gradKernel) {
  StepEmitter &emitter = gradKernel.getEmitter();
  auto at = op->getAttrOfType<IntegerAttr>(kScratchAttr);
  if (!at)
    return op->emitError() << "amp-to-cuda: this op has no scratch memory; "
                              "run --amp-plan-buffers first";
  int64_t rows = op.getType().getDimSize(0);
  int64_t ids = countOf(op.getIndices());
  int idBytes = elementOf(op.getIndices()).getIntOrFloatBitWidth() / 8;
  std::string name = gradKernel.getName().str() + "_buckets";
  emitter.step() << "// " << name << ": the ids' positions by row\n"
                 << "AMP_STEP_CHECK(amp_id_buckets(stream, "
                 << emitter.pointerOf(op.getIndices(), false) << ", " << idBytes
                 << ", " << ids << ", " << rows << ", "
                 << emitter.arenaPointer("int64_t", at.getInt()) << ", "
                 << emitter.arenaPointer("int64_t", at.getInt()) << " + "
                 << rows << ", " << emitter.arenaPointer("char", at.getInt())
                 << " + " << 8 * (rows + ids) << "));\n";
  // On the GPU: the ends zeroed, the keys made, CUB's sort (a histogram,
  // its scan and a pass a byte of the key), the ends found and scanned (2
  // launches): 8 launches of a library's kind, whose bytes are the ids
  // read, the keys and positions written, read and written a pass, the
  // sorted keys read again, and the ends written, read and written.
  int64_t passes = rows < 256 ? 1 : rows < 65536 ? 2 : rows < (1 << 24) ? 3 : 4;
  KernelCost cost{name, "id-buckets", 8};
  cost.bytesRead = ids * idBytes + ids * 4 * (1 + passes) + ids * 8 * passes +
                   ids * 4 + rows * 8;
  cost.bytesWritten = ids * 12 + ids * 12 * passes + rows * 8 * 3;
  emitter.recordLaunch(std::move(cost), {});
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
  Im2colOp::attachInterface<KernelModel<Im2colOp, emitIm2col>>(context);
  Col2imOp::attachInterface<KernelModel<Col2imOp, emitCol2im>>(context);
  MaxPool2dOp::attachInterface<KernelModel<MaxPool2dOp, emitMaxPool2d>>(
      context);
  MaxPool2dGradOp::attachInterface<
      KernelModel<MaxPool2dGradOp, emitMaxPool2dGrad>>(context);
  EmbeddingGradOp::attachInterface<
      KernelModel<EmbeddingGradOp, emitEmbeddingGrad>>(context);
}
