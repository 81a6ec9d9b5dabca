//===- TranslateToCuda.cpp - amp-translate --amp-to-cuda ------------------===//
//
// Prints a fused, planned step function as one CUDA C++ translation unit:
// a functor per generated kernel (AMP_HOST_DEVICE bodies, one index per
// call), runtime calls for GEMMs, attention and loss scaling, and the step
// function that queues them in order, then a description table for the
// runtime (amp_runtime/step.h). The file builds with nvcc for the cuda
// target and with a host C++ compiler for the host target.
//
// Every op rounds its result to its type, as the interpreter does, so the
// host build reproduces the interpreter's elementwise results bit for bit.
//
//===----------------------------------------------------------------------===//

#include "amp/Target/Cuda/TranslateToCuda.h"

#include "CSource.h"

#include "amp/Dialect/Amp/IR/AmpOps.h"
#include "amp/Dialect/Amp/Transforms/ArgumentNames.h"
#include "amp/Dialect/Amp/Transforms/Backend.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <map>

using namespace mlir;
using namespace mlir::amp;
using namespace mlir::amp::backend;
using namespace mlir::amp::cuda;

namespace {

/// The place --amp-plan-buffers gave the op result `value` (see Backend.h);
/// null where it gave none.
PlaceAttr placeOf(OpResult value) {
  auto places = value.getOwner()->getAttrOfType<ArrayAttr>(kPlaceAttr);
  if (!places || value.getResultNumber() >= places.size())
    return {};
  return dyn_cast<PlaceAttr>(places[value.getResultNumber()]);
}

class Emitter {
public:
  Emitter(func::FuncOp func, StringRef name, raw_ostream &os)
      : func(func), name(name), os(os) {}

  LogicalResult emit();

private:
  /// Checks the buffer plan the emitted code trusts: a place for every
  /// result ("fused" ones read only inside their kernel, arguments of the
  /// same type, arena slots and scratch memory inside the arena), so that
  /// hand-edited IR is an error rather than code that writes out of bounds.
  LogicalResult verifyPlan();
  LogicalResult emitKernel(ArrayRef<Operation *> ops);
  LogicalResult emitElementwise(ArrayRef<Operation *> ops);
  LogicalResult emitGemm(ArrayRef<Operation *> ops);
  /// One op as one kernel; `guards` are the found_inf selects fused into
  /// an optimizer update (see getGuardSelects), one per result. `suffix`
  /// tells apart the kernels of one group.
  LogicalResult emitSingle(Operation *op, ArrayRef<Operation *> guards = {},
                           StringRef suffix = {});
  /// The optimizer updates of one kernel (with their guards): one call of
  /// the runtime's multi-tensor update where runtimeUpdateCall allows it,
  /// else a generated kernel per update.
  LogicalResult emitUpdates(ArrayRef<Operation *> updates);
  /// The amp_sgd_apply or amp_adamw_apply call (and the lines declaring its
  /// lists) that runs those of `updates` the runtime can in one launch:
  /// each with every tensor f32 and updated in place. The group needs its
  /// guard (if any) to be `found_inf == 0` on an f32 flag in memory, the
  /// attributes in the runtime's ranges and no tensor updated twice. The
  /// others are appended to `rest`; the call is empty when none is left.
  std::string runtimeUpdateCall(ArrayRef<Operation *> updates,
                                SmallVectorImpl<Operation *> &rest);
  /// For a row op the CUDA target runs on one of the runtime's warp-per-row
  /// kernels (softmax, layer and RMS norm and their input gradients, the
  /// cross-entropy's row losses and gradient), the call; empty for other
  /// ops and for types or layouts those kernels do not take. The host
  /// target keeps the generated kernel, which rounds exactly as the
  /// interpreter does.
  std::string runtimeRowCall(Operation *op);
  /// The second kernel of amp.cross_entropy: the rows' losses, which the
  /// first wrote to scratch one thread per row, summed in order.
  void emitRowSum(CrossEntropyOp op, StringRef rowKernel);
  LogicalResult emitReturn();

  /// The expression of the pointer to `value`'s memory inside the step.
  std::string pointerOf(Value value, bool writes);
  /// Starts a functor named `kernel` (with a comment naming its ops) whose
  /// operator() body the caller prints next; finish with endFunctor.
  void beginFunctor(StringRef kernel, ArrayRef<Operation *> ops);
  /// Prints the functor and its launch; `hostOnly` when the CUDA target
  /// runs a runtime kernel instead (the functor is then not compiled there).
  void endFunctor(StringRef kernel, const KernelParams &params, StringRef count,
                  bool hostOnly = false);
  /// Makes the functor being built a reduction of `extent` values per
  /// output, launched with ampstep::launchReduce: its operator() folds
  /// loadAt(baseOf(i), r) for r in order with `combine` from `identity` and
  /// hands the result to finish(i, acc), which is what the host runs; under
  /// nvcc long reductions give each output a block instead. The fragments
  /// are C++: `baseBody` sets `int64_t base` from i, `loadBody` returns the
  /// r-th value from base and r, `combine` is an expression of `acc` and
  /// `v`, `finishBody` stores from i and acc.
  void defineReduction(StringRef acc, StringRef identity, StringRef baseBody,
                       StringRef loadBody, StringRef combine,
                       StringRef finishBody, int64_t extent);
  std::string kernelName(ArrayRef<Operation *> ops);
  std::string describe(Operation *op);
  /// Defines the elements of a non-splat constant as an array of the
  /// library (once per op) and returns its name.
  std::string constantArray(ConstantOp op, DenseElementsAttr value);

  func::FuncOp func;
  StringRef name;
  raw_ostream &os;
  std::string defsText, bodyText;
  llvm::raw_string_ostream defs{defsText}, body{bodyText};
  std::string bodyOfFunctor;
  llvm::raw_string_ostream fn{bodyOfFunctor};
  // What every index of the functor shares: members computed by setup().
  std::string sharedMembers, bodyOfSetup;
  // A reduction's methods (defineReduction) and values per output.
  std::string reductionMethods;
  int64_t reductionExtent = 0;
  llvm::raw_string_ostream setup{bodyOfSetup};
  int64_t kernelCount = 0;
  llvm::DenseMap<Operation *, std::string> constantArrays;
  /// The functor defined for each distinct functor body (keyed with the
  /// target it is compiled for).
  llvm::StringMap<std::string> functorOfDefinition;
  std::string constantsText;
  llvm::raw_string_ostream constants{constantsText};
};

std::string Emitter::constantArray(ConstantOp op, DenseElementsAttr value) {
  auto found = constantArrays.find(op);
  if (found != constantArrays.end())
    return found->second;
  std::string name = "constant" + std::to_string(constantArrays.size());
  constantArrays[op] = name;
  Type element = value.getElementType();
  constants << "// " << describe(op) << "\n"
            << "AMP_STEP_DATA const " << storageType(element) << " " << name
            << "[] = {";
  int64_t column = 0;
  auto emit = [&](const std::string &text) {
    constants << (column ? ", " : "") << ((column % 8) ? "" : "\n    ") << text;
    ++column;
  };
  if (isa<FloatType>(element)) {
    for (const APFloat &v : value.getValues<APFloat>()) {
      if (element.isF16() || element.isBF16())
        emit(llvm::formatv("{0:x4}", v.bitcastToAPInt().getZExtValue()).str());
      else if (v.isFinite())
        emit(llvm::formatv("{0}", llvm::format("%a", v.convertToDouble()))
                 .str());
      else
        emit(literal(v.convertToDouble(), registerType(element)));
    }
  } else {
    for (const APInt &v : value.getValues<APInt>())
      emit(element.isInteger(1) ? std::to_string(v.getZExtValue())
                                : std::to_string(v.getSExtValue()) +
                                      (element.isInteger(64) ? "LL" : ""));
  }
  constants << "};\n\n";
  return name;
}

std::string Emitter::describe(Operation *op) {
  std::string text;
  llvm::raw_string_ostream s(text);
  OpPrintingFlags flags;
  flags.elideLargeElementsAttrs(4);
  op->print(s, flags);
  // One line, without the backend's own annotations.
  size_t at = text.find(" {amp.kernel");
  if (at != std::string::npos) {
    size_t close = text.find('}', at);
    text.erase(at, close - at + 1);
  }
  for (char &c : text)
    if (c == '\n')
      c = ' ';
  return text;
}

std::string Emitter::kernelName(ArrayRef<Operation *> ops) {
  std::string text = "k" + std::to_string(kernelCount);
  for (Operation *op : ops) {
    if (text.size() > 40)
      break;
    text += "_" + op->getName().stripDialect().str();
  }
  return text;
}

std::string Emitter::pointerOf(Value value, bool writes) {
  // Through views to the memory's owner.
  while (Operation *def = value.getDefiningOp()) {
    if (!isView(def))
      break;
    value = def->getOperand(0);
  }
  std::string type = storageType(elementOf(value));
  std::string constness = writes ? "" : "const ";
  if (auto arg = dyn_cast<BlockArgument>(value))
    return "static_cast<" + constness + type + " *>(tensors[" +
           std::to_string(arg.getArgNumber()) + "])";
  // verifyPlan checked that the value has an arena slot or an argument.
  PlaceAttr place = placeOf(cast<OpResult>(value));
  std::string number =
      std::to_string(place ? place.getNumber().value_or(0) : 0);
  if (place && place.getKind() == PlaceKind::arg)
    return "static_cast<" + constness + type + " *>(tensors[" + number + "])";
  return "reinterpret_cast<" + constness + type + " *>(arena + " + number + ")";
}

void Emitter::beginFunctor(StringRef kernel, ArrayRef<Operation *> ops) {
  defs << "// " << kernel << ":\n";
  for (Operation *op : ops)
    defs << "//   " << describe(op) << "\n";
  bodyOfFunctor.clear();
  sharedMembers.clear();
  reductionMethods.clear();
  reductionExtent = 0;
  bodyOfSetup.clear();
}

void Emitter::endFunctor(StringRef kernel, const KernelParams &params,
                         StringRef count, bool hostOnly) {
  std::string definition;
  llvm::raw_string_ostream members(definition);
  params.printMembers(members);
  if (!bodyOfSetup.empty())
    members << sharedMembers << "  AMP_HOST_DEVICE void setup() {\n"
            << bodyOfSetup << "  }\n";
  members << reductionMethods
          << "  AMP_HOST_DEVICE void operator()([[maybe_unused]] int64_t i) "
             "const {\n"
          << bodyOfFunctor << "  }\n";
  // A kernel whose code another already has launches that functor.
  auto [known, isNew] = functorOfDefinition.try_emplace(
      (hostOnly ? "host\n" : "any\n") + definition, kernel.str());
  if (isNew) {
    if (hostOnly)
      defs << "#if !defined(__CUDACC__)\n";
    defs << "struct " << kernel << " {\n" << definition << "};\n";
    defs << (hostOnly ? "#endif\n\n" : "\n");
  } else {
    defs << "//   runs " << known->second << ", whose code it shares\n\n";
  }
  StringRef functor = known->second;
  body << "  AMP_STEP_CHECK(ampstep::"
       << (reductionExtent ? "launchReduce" : "launch") << "(stream, \""
       << kernel << "\", " << count << ", ";
  if (reductionExtent)
    body << reductionExtent << ", ";
  body << functor
       << params.initializer([&](Value v, bool w) { return pointerOf(v, w); })
       << "));\n";
}

void Emitter::defineReduction(StringRef acc, StringRef identity,
                              StringRef baseBody, StringRef loadBody,
                              StringRef combine, StringRef finishBody,
                              int64_t extent) {
  llvm::raw_string_ostream methods(reductionMethods);
  methods << "  AMP_HOST_DEVICE " << acc << " identity() const { return "
          << identity << "; }\n"
          << "  AMP_HOST_DEVICE int64_t baseOf([[maybe_unused]] int64_t i) "
             "const {\n    int64_t base = 0;\n"
          << baseBody << "    return base;\n  }\n"
          << "  AMP_HOST_DEVICE " << acc
          << " loadAt([[maybe_unused]] int64_t base, [[maybe_unused]] int64_t "
             "r) const {\n"
          << loadBody << "  }\n"
          << "  AMP_HOST_DEVICE " << acc << " combine(" << acc << " acc, "
          << acc << " v) const { return " << combine << "; }\n"
          << "  AMP_HOST_DEVICE void finish([[maybe_unused]] int64_t i, " << acc
          << " acc) const {\n"
          << finishBody << "  }\n";
  // The order of amprt::foldReduction, which the interpreter follows too.
  fn << "    const int64_t base = baseOf(i);\n"
     << "    finish(i, amprt::foldReduction(\n        " << extent
     << ", identity(), [&](int64_t r) { return loadAt(base, r); },\n"
     << "        [&](" << acc << " a, " << acc
     << " v) { return combine(a, v); }));\n";
  reductionExtent = extent;
}

LogicalResult Emitter::emitElementwise(ArrayRef<Operation *> ops) {
  Operation *root = ops.back();
  ArrayRef<int64_t> shape = tensorOf(root->getResult(0)).getShape();
  SmallVector<int64_t> strides = computeStrides(shape);
  std::string kernel = kernelName(ops);
  beginFunctor(kernel, ops);
  KernelParams params;
  llvm::DenseMap<Value, std::string> registers;
  // Coordinate d of element i, printed once where first needed.
  llvm::SmallBitVector haveCoord(shape.size());
  auto coord = [&](size_t d) -> std::string {
    std::string name = "c" + std::to_string(d);
    if (!haveCoord.test(d)) {
      haveCoord.set(d);
      fn << "    const int64_t " << name << " = "
         << coordinateOf("i", strides[d], shape[d], product(shape)) << ";\n";
    }
    return name;
  };
  // The index of element i of the kernel's shape in `value`, broadcast.
  auto indexOf = [&](Value value) -> std::string {
    ArrayRef<int64_t> own = tensorOf(value).getShape();
    if (own == shape)
      return "i";
    SmallVector<int64_t> ownStrides = computeStrides(own);
    std::string text;
    size_t offset = shape.size() - own.size();
    for (size_t d = 0; d < own.size(); ++d) {
      if (own[d] == 1)
        continue;
      text += (text.empty() ? "" : " + ") +
              scaled(coord(d + offset), ownStrides[d]);
    }
    return text.empty() ? "0" : text;
  };
  auto operand = [&](Value value) -> std::string {
    auto found = registers.find(value);
    if (found != registers.end())
      return found->second;
    std::string member = params.add(value, /*writes=*/false);
    std::string reg = "x" + std::to_string(registers.size());
    std::string index = indexOf(value); // may print the coordinates first
    fn << "    const " << registerType(elementOf(value)) << " " << reg << " = "
       << loadExpr(elementOf(value), member, index) << ";\n";
    registers[value] = reg;
    return reg;
  };

  for (Operation *op : ops) {
    Value result = op->getResult(0);
    Type type = elementOf(result);
    std::string t = registerType(type);
    std::string expr;
    if (auto constant = dyn_cast<ConstantOp>(op)) {
      auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
      if (!dense)
        return op->emitError() << "the backend compiles dense constants only";
      if (!dense.isSplat()) {
        // An array of the library; each element read where the kernel's
        // index falls in the constant's (broadcast) shape.
        std::string data = constantArray(constant, dense);
        std::string member =
            params.addRaw("const " + storageType(type),
                          "ampstep::constantData(" + data + ")");
        expr = loadExpr(type, member, indexOf(result));
      } else {
        double v = isa<FloatType>(type)
                       ? dense.getSplatValue<APFloat>().convertToDouble()
                       : static_cast<double>(
                             dense.getSplatValue<APInt>().getSExtValue());
        expr = literal(v, t);
      }
    } else if (auto iota = dyn_cast<IotaOp>(op)) {
      expr =
          roundExpr(type, "static_cast<double>(" + coord(iota.getDim()) + ")");
    } else if (isa<CastOp>(op)) {
      Value in = op->getOperand(0);
      std::string x = operand(in);
      expr = type.isF32() && elementOf(in).isF64()
                 ? "static_cast<float>(" + x + ")"
                 : roundExpr(type, x);
    } else if (isa<BroadcastToOp>(op)) {
      expr = operand(op->getOperand(0));
    } else if (auto compare = dyn_cast<CompareOp>(op)) {
      std::string a = operand(op->getOperand(0)),
                  b = operand(op->getOperand(1));
      static const char *const symbols[] = {"==", "!=", "<", "<=", ">", ">="};
      expr = "(" + a + " " + symbols[static_cast<int>(compare.getPredicate())] +
             " " + b + ")";
    } else if (isa<SelectOp>(op)) {
      expr = "(" + operand(op->getOperand(0)) + " ? " +
             operand(op->getOperand(1)) + " : " + operand(op->getOperand(2)) +
             ")";
    } else if (isa<ReluGradOp>(op)) {
      std::string x = operand(op->getOperand(0)),
                  g = operand(op->getOperand(1));
      expr = "(" + x + " > 0 ? " + g + " : " + t + "(0))";
    } else if (auto gelu = dyn_cast<GeluGradOp>(op)) {
      std::string x = operand(op->getOperand(0)),
                  g = operand(op->getOperand(1));
      StringRef derivative = gelu.getApproximate() == GeluApproximation::tanh
                                 ? "amprt::geluTanhGrad"
                                 : "amprt::geluErfGrad";
      expr = roundExpr(type, g + " * " + derivative.str() + "(" + x + ")");
    } else if (op->getNumOperands() == 2) {
      std::string a = operand(op->getOperand(0)),
                  b = operand(op->getOperand(1));
      std::string r = TypeSwitch<Operation *, std::string>(op)
                          .Case([&](AddOp) { return a + " + " + b; })
                          .Case([&](SubOp) { return a + " - " + b; })
                          .Case([&](MulOp) { return a + " * " + b; })
                          .Case([&](DivOp) { return a + " / " + b; })
                          .Case([&](MaximumOp) {
                            return "ampstep::nanMax(" + a + ", " + b + ")";
                          })
                          .Case([&](MinimumOp) {
                            return "ampstep::nanMin(" + a + ", " + b + ")";
                          })
                          .Default([](Operation *) { return std::string(); });
      if (r.empty())
        return op->emitError() << "the backend has no kernel for this op";
      expr = roundExpr(type, r);
    } else {
      std::string x = operand(op->getOperand(0));
      auto c = [&](double v) { return literal(v, t); };
      std::string r =
          TypeSwitch<Operation *, std::string>(op)
              .Case([&](NegOp) { return "-" + x; })
              .Case([&](AbsOp) { return math("fabs", t) + "(" + x + ")"; })
              .Case([&](ExpOp) { return math("exp", t) + "(" + x + ")"; })
              .Case([&](LogOp) { return math("log", t) + "(" + x + ")"; })
              .Case([&](SqrtOp) { return math("sqrt", t) + "(" + x + ")"; })
              .Case([&](RsqrtOp) {
                return c(1) + " / " + math("sqrt", t) + "(" + x + ")";
              })
              .Case([&](TanhOp) { return math("tanh", t) + "(" + x + ")"; })
              .Case([&](SigmoidOp) {
                return c(1) + " / (" + c(1) + " + " + math("exp", t) + "(-" +
                       x + "))";
              })
              .Case([&](SoftplusOp) { return "amprt::softplus(" + x + ")"; })
              .Case([&](ReluOp) {
                return "(" + x + " < 0 ? " + c(0) + " : " + x + ")";
              })
              .Case([&](GeluOp gelu) {
                if (gelu.getApproximate() == GeluApproximation::tanh)
                  return "amprt::geluTanh(" + x + ")";
                return "amprt::geluErf(" + x + ")";
              })
              .Case([&](PowOp pow) {
                return math("pow", t) + "(" + x + ", " +
                       c(pow.getExponent().convertToDouble()) + ")";
              })
              .Default([](Operation *) { return std::string(); });
      if (r.empty())
        return op->emitError() << "the backend has no kernel for this op";
      expr = roundExpr(type, r);
    }
    std::string reg = "v" + std::to_string(registers.size());
    fn << "    const " << t << " " << reg << " = " << expr << ";\n";
    registers[result] = reg;
    // Values read outside the kernel reach memory.
    PlaceAttr place = placeOf(cast<OpResult>(result));
    if (place && place.isStored()) {
      std::string member = params.add(result, /*writes=*/true);
      fn << "    " << storeStmt(type, member, "i", reg) << "\n";
    }
  }
  endFunctor(kernel, params, std::to_string(product(shape)));
  return success();
}

LogicalResult Emitter::emitGemm(ArrayRef<Operation *> ops) {
  auto matmul = cast<MatmulOp>(ops.front());
  Operation *last = ops.back();
  auto lhs = tensorOf(matmul.getLhs()), rhs = tensorOf(matmul.getRhs());
  auto out = tensorOf(matmul.getResult());
  int64_t rank = out.getRank();
  int64_t m = out.getDimSize(rank - 2), n = out.getDimSize(rank - 1);
  int64_t k = matmul.getTransposeLhs() ? lhs.getDimSize(lhs.getRank() - 2)
                                       : lhs.getShape().back();
  ArrayRef<int64_t> lhsBatch = lhs.getShape().drop_back(2);
  ArrayRef<int64_t> rhsBatch = rhs.getShape().drop_back(2);
  ArrayRef<int64_t> outBatch = out.getShape().drop_back(2);
  int64_t batch = product(outBatch);
  bool sameBatch = lhsBatch == outBatch && rhsBatch == outBatch;
  bool foldIntoRows = rhsBatch.empty() && !matmul.getTransposeLhs();
  auto dtype = [](Type type) {
    return type.isF16() ? "AMP_F16" : type.isBF16() ? "AMP_BF16" : "AMP_F32";
  };
  std::string epilogue = "AMP_EPILOGUE_NONE";
  Value bias;
  if (auto attr = matmul->getAttrOfType<EpilogueAttr>(kEpilogueAttr)) {
    epilogue = attr.getValue() == Epilogue::bias_relu ? "AMP_EPILOGUE_BIAS_RELU"
                                                      : "AMP_EPILOGUE_BIAS";
    bias = matmul.getBias();
    if (!bias) {
      auto add = cast<AddOp>(ops[1]);
      bias = add.getLhs() == matmul.getResult() ? add.getRhs() : add.getLhs();
    }
  }
  std::string kernel = kernelName(ops);
  body << "  // " << kernel << ":\n";
  for (Operation *op : ops)
    body << "  //   " << describe(op) << "\n";
  body << "  {\n    amp_gemm_t g{" << dtype(lhs.getElementType()) << ", "
       << dtype(out.getElementType()) << ", " << matmul.getTransposeLhs()
       << ", " << matmul.getTransposeRhs() << ", ";
  std::string a = pointerOf(matmul.getLhs(), false),
              b = pointerOf(matmul.getRhs(), false),
              c = pointerOf(last->getResult(0), true),
              biasPointer = bias ? pointerOf(bias, false) : "nullptr";
  if (sameBatch || batch == 1) {
    body << m << ", " << n << ", " << k << ", " << batch << ", 1.0f, 0.0f, "
         << epilogue << "};\n    AMP_STEP_CHECK(amp_gemm(stream, &g, " << a
         << ", " << b << ", " << biasPointer << ", " << c << "));\n  }\n";
    return success();
  }
  if (foldIntoRows) {
    // [..., M, K] x [K, N]: one GEMM of (batch * M) rows.
    body << batch * m << ", " << n << ", " << k << ", 1, 1.0f, 0.0f, "
         << epilogue << "};\n    AMP_STEP_CHECK(amp_gemm(stream, &g, " << a
         << ", " << b << ", " << biasPointer << ", " << c << "));\n  }\n";
    return success();
  }
  // Broadcast batches: one GEMM per output matrix.
  auto batchOffset = [&](ArrayRef<int64_t> own, int64_t matrix) {
    std::string text;
    SmallVector<int64_t> outStrides = computeStrides(outBatch);
    SmallVector<int64_t> ownStrides = computeStrides(own);
    size_t offset = outBatch.size() - own.size();
    for (size_t d = 0; d < own.size(); ++d)
      if (own[d] != 1)
        text += (text.empty() ? "" : " + ") +
                scaled(coordinateOf("j", outStrides[d + offset],
                                    outBatch[d + offset], batch),
                       ownStrides[d] * matrix);
    return text.empty() ? std::string("0") : text;
  };
  body << m << ", " << n << ", " << k << ", 1, 1.0f, 0.0f, " << epilogue
       << "};\n    for (int64_t j = 0; j < " << batch << "; ++j)\n"
       << "      AMP_STEP_CHECK(amp_gemm(stream, &g, " << a << " + ("
       << batchOffset(lhsBatch, m * k) << "), " << b << " + ("
       << batchOffset(rhsBatch, k * n) << "), " << biasPointer << ", " << c
       << " + j * " << m * n << "));\n  }\n";
  return success();
}

LogicalResult Emitter::emitKernel(ArrayRef<Operation *> ops) {
  if (isa<MatmulOp>(ops.front()))
    return emitGemm(ops);
  if (llvm::all_of(ops, isFusibleElementwise))
    return emitElementwise(ops);
  SmallVector<Operation *> updates;
  llvm::SmallPtrSet<Operation *, 8> expected;
  for (Operation *op : ops)
    if (isa<OptimizerUpdateOpInterface>(op)) {
      updates.push_back(op);
      expected.insert(op);
      for (Operation *select : getGuardSelects(op))
        expected.insert(select);
    }
  if (!updates.empty() && expected.size() == ops.size() &&
      llvm::all_of(ops, [&](Operation *op) { return expected.contains(op); }))
    return emitUpdates(updates);
  if (ops.size() > 1)
    return ops.front()->emitError() << "the backend cannot run this group "
                                       "of ops as one kernel";
  return emitSingle(ops.front());
}

std::string Emitter::runtimeUpdateCall(ArrayRef<Operation *> updates,
                                       SmallVectorImpl<Operation *> &rest) {
  // Until the checks of the whole group pass, nothing runs on the runtime.
  rest.assign(updates.begin(), updates.end());
  auto isF32 = [&](Value v) { return elementOf(v).isF32(); };
  auto hasMemory = [](Value v) {
    Operation *def = v.getDefiningOp();
    if (!def || isView(def))
      return true;
    PlaceAttr place = placeOf(cast<OpResult>(v));
    return place && place.isStored();
  };
  auto hex = [](double v) {
    std::string text;
    llvm::raw_string_ostream(text) << llvm::format("%a", v);
    return text;
  };

  // The guard: `compare eq %found_inf, 0` on an f32 scalar in memory.
  std::string foundInf = "nullptr";
  SmallVector<Operation *> firstGuards = getGuardSelects(updates.front());
  if (!firstGuards.empty()) {
    auto compare = cast<SelectOp>(firstGuards.front())
                       .getCondition()
                       .getDefiningOp<CompareOp>();
    if (!compare || compare.getPredicate() != ComparePredicate::eq)
      return "";
    Value flag = compare.getLhs();
    auto zero = compare.getRhs().getDefiningOp<ConstantOp>();
    auto splat = zero ? dyn_cast<SplatElementsAttr>(zero.getValue())
                      : SplatElementsAttr();
    if (!splat || !isa<FloatType>(splat.getElementType()) ||
        !splat.getSplatValue<APFloat>().isPosZero() || !isF32(flag) ||
        tensorOf(flag).getNumElements() != 1 || !hasMemory(flag))
      return "";
    foundInf = pointerOf(flag, false);
  }

  Operation *first = updates.front();
  std::string config, function;
  bool withStep = true;
  if (auto sgd = dyn_cast<SgdUpdateOp>(first)) {
    double lr = sgd.getLr().convertToDouble();
    double wd = sgd.getWeightDecay().convertToDouble();
    if (!(lr >= 0) || !(wd >= 0))
      return "";
    config = "amp_sgd_config_t config{" + hex(lr) + ", 0.0, 0.0, " + hex(wd) +
             ", 0};";
    function = "amp_sgd_apply";
    withStep = false;
  } else if (auto sgd = dyn_cast<SgdMomentumUpdateOp>(first)) {
    double lr = sgd.getLr().convertToDouble();
    double momentum = sgd.getMomentum().convertToDouble();
    double dampening = sgd.getDampening().convertToDouble();
    double wd = sgd.getWeightDecay().convertToDouble();
    // With momentum 0 the runtime leaves the buffer alone; the op does not.
    if (!(lr >= 0) || !(momentum > 0) || !(dampening >= 0 && dampening <= 1) ||
        !(wd >= 0) || (sgd.getNesterov() && dampening != 0))
      return "";
    config = "amp_sgd_config_t config{" + hex(lr) + ", " + hex(momentum) +
             ", " + hex(dampening) + ", " + hex(wd) + ", " +
             (sgd.getNesterov() ? "1" : "0") + "};";
    function = "amp_sgd_apply";
  } else if (auto adam = dyn_cast<AdamwUpdateOp>(first)) {
    double lr = adam.getLr().convertToDouble();
    double b1 = adam.getBeta1().convertToDouble();
    double b2 = adam.getBeta2().convertToDouble();
    double eps = adam.getEps().convertToDouble();
    double wd = adam.getWeightDecay().convertToDouble();
    if (!(lr >= 0) || !(b1 >= 0 && b1 < 1) || !(b2 >= 0 && b2 < 1) ||
        !(eps > 0) || !(wd >= 0))
      return "";
    config = "amp_adamw_config_t config{" + hex(lr) + ", " + hex(b1) + ", " +
             hex(b2) + ", " + hex(eps) + ", " + hex(wd) + "};";
    function = "amp_adamw_apply";
  } else {
    return ""; // an update the runtime has no multi-tensor kernel for
  }
  std::string step = "nullptr";
  if (withStep) {
    Value count = cast<OptimizerUpdateOpInterface>(first).getStepOperand();
    if (!isF32(count) || !hasMemory(count))
      return "";
    step = pointerOf(count, false);
  }

  // Where each update stores its results; a tensor updated twice keeps the
  // program's order, so then none runs on the runtime.
  SmallVector<SmallVector<std::string>> stores;
  llvm::StringSet<> written;
  for (Operation *update : updates) {
    SmallVector<Operation *> guards = getGuardSelects(update);
    SmallVector<std::string> &to = stores.emplace_back();
    for (unsigned r = 0; r < update->getNumResults(); ++r) {
      to.push_back(pointerOf(guards.empty() ? update->getResult(r)
                                            : guards[r]->getResult(0),
                             true));
      if (!written.insert(to.back()).second)
        return "";
    }
  }

  // The lists: the parameter, the gradient, then the state in result order.
  rest.clear();
  unsigned states = first->getNumResults() - 1;
  SmallVector<SmallVector<std::string>> lists(2 + states);
  SmallVector<std::string> sizes;
  for (size_t u = 0; u < updates.size(); ++u) {
    Operation *update = updates[u];
    auto optimizer = cast<OptimizerUpdateOpInterface>(update);
    ArrayRef<std::string> to = stores[u];
    bool inPlace = true;
    for (unsigned r = 0; r < update->getNumResults(); ++r)
      inPlace &=
          to[r] == pointerOf(optimizer.getReplacedOperand(r).get(), true);
    if (!inPlace || !llvm::all_of(update->getOperands(), isF32) ||
        !llvm::all_of(update->getOperands(), hasMemory)) {
      rest.push_back(update);
      continue;
    }
    for (auto [r, pointer] : llvm::enumerate(to))
      lists[r == 0 ? 0 : r + 1].push_back(pointer);
    lists[1].push_back(pointerOf(optimizer.getGradOperand(), true));
    sizes.push_back(std::to_string(countOf(update->getResult(0))));
  }
  size_t n = sizes.size();
  if (n == 0)
    return "";

  std::string text = "    " + config + "\n";
  SmallVector<StringRef, 4> kNames{"params", "grads"};
  if (isa<AdamwUpdateOp>(first))
    kNames.append({"exp_avgs", "exp_avg_sqs"});
  else if (states)
    kNames.push_back("momentum_buffers");
  for (auto [i, list] : llvm::enumerate(lists))
    text += "    float *const " + kNames[i].str() + "[] = {" +
            llvm::join(list, ", ") + "};\n";
  text += "    const size_t sizes[] = {" + llvm::join(sizes, ", ") + "};\n";
  auto listOf = [&](StringRef name) {
    return "amp_tensor_list_t{" + std::to_string(n) + ", " + name.str() +
           ", sizes}";
  };
  text += "    AMP_STEP_CHECK(" + function + "(stream, &config, " +
          listOf("params") + ", " + listOf("grads") + ", ";
  if (isa<SgdUpdateOp>(first))
    text += "amp_tensor_list_t{0, nullptr, nullptr}, ";
  for (unsigned s = 0; s < states; ++s)
    text += listOf(kNames[2 + s]) + ", ";
  text += step + ", " + foundInf + ", amp_copy_list_t{AMP_F32, nullptr}));\n";
  return text;
}

LogicalResult Emitter::emitUpdates(ArrayRef<Operation *> updates) {
  SmallVector<Operation *> rest;
  std::string call = runtimeUpdateCall(updates, rest);
  // The updates of one kernel touch disjoint memory: any order will do.
  if (!call.empty()) {
    size_t n = updates.size() - rest.size();
    body << "  // " << kernelName({updates.front()})
         << ": the runtime's multi-tensor update over " << n
         << (n == 1 ? " tensor" : " tensors")
         << (getGuardSelects(updates.front()).empty()
                 ? "\n"
                 : ", skipped when found_inf is set\n");
    for (Operation *update : updates)
      if (!llvm::is_contained(rest, update))
        body << "  //   " << describe(update) << "\n";
    body << "  {\n" << call << "  }\n";
  }
  size_t first = call.empty() ? 0 : 1;
  for (auto [i, update] : llvm::enumerate(rest))
    if (failed(emitSingle(update, getGuardSelects(update),
                          first + i ? "_" + std::to_string(first + i) : "")))
      return failure();
  return success();
}

LogicalResult Emitter::emitSingle(Operation *op, ArrayRef<Operation *> guards,
                                  StringRef suffix) {
  std::string kernel = kernelName({op}) + suffix.str();
  KernelParams params;
  auto in = [&](unsigned i) { return params.add(op->getOperand(i), false); };
  auto out = [&](unsigned i) { return params.add(op->getResult(i), true); };
  auto ld = [&](unsigned i, StringRef index) {
    return loadExpr(elementOf(op->getOperand(i)), in(i), index);
  };
  // A guarded result is stored through its select: the new value where
  // the step is kept, the old one (read before the store) where skipped.
  auto st = [&](unsigned r, StringRef index, StringRef value) {
    if (guards.empty())
      return storeStmt(elementOf(op->getResult(r)), out(r), index, value);
    auto select = cast<SelectOp>(guards[r]);
    std::string keep = loadExpr(elementOf(select.getCondition()),
                                params.add(select.getCondition(), false), "0");
    std::string old = loadExpr(elementOf(select.getOnFalse()),
                               params.add(select.getOnFalse(), false), index);
    return storeStmt(elementOf(select.getResult()),
                     params.add(select.getResult(), true), index,
                     "(" + keep + " ? " + value.str() + " : " + old + ")");
  };
  Type type = op->getNumResults() ? elementOf(op->getResult(0)) : Type();
  auto runtimeComment = [&]() {
    body << "  // " << kernel << ":\n  //   " << describe(op) << "\n";
  };

  // Loss scaling and attention: runtime calls.
  if (auto unscale = dyn_cast<UnscaleOp>(op)) {
    runtimeComment();
    size_t grads = unscale.getGrads().size();
    body << "  {\n";
    std::string found = pointerOf(op->getResult(grads), true);
    body << "    AMP_STEP_CHECK(ampstep::launch(stream, \"" << kernel
         << "_zero\", 1, ampstep::Fill{" << found << ", 0.0f}));\n";
    body << "    float *data[" << grads << "];\n    size_t sizes[" << grads
         << "];\n";
    for (size_t g = 0; g < grads; ++g) {
      std::string from = pointerOf(op->getOperand(g + 1), false);
      std::string to = pointerOf(op->getResult(g), true);
      body << "    data[" << g << "] = " << to << ";\n    sizes[" << g
           << "] = " << countOf(op->getResult(g)) << ";\n";
      // The plan puts a result either where its operand is (in place) or
      // where no live value is; only the second needs the copy.
      if (to != pointerOf(op->getOperand(g + 1), true))
        body << "    AMP_STEP_CHECK(ampstep::launch(stream, \"" << kernel
             << "_copy\", " << countOf(op->getResult(g)) << ", ampstep::Copy{"
             << from << ", data[" << g << "]}));\n";
    }
    body << "    AMP_STEP_CHECK(amp_unscale(stream, amp_tensor_list_t{" << grads
         << ", data, sizes}, " << pointerOf(op->getOperand(0), false) << ", "
         << found << "));\n  }\n";
    return success();
  }
  if (auto update = dyn_cast<ScalerUpdateOp>(op)) {
    runtimeComment();
    body << "  {\n    amp_scaler_config_t config{"
         << llvm::format("%a", update.getGrowthFactor().convertToDouble())
         << ", "
         << llvm::format("%a", update.getBackoffFactor().convertToDouble())
         << ", " << update.getGrowthInterval() << ", " << update.getHysteresis()
         << ", "
         << llvm::format("%a", update.getMinScale()
                                   ? update.getMinScale()->convertToDouble()
                                   : 0.0)
         << ", "
         << llvm::format("%a", update.getMaxScale()
                                   ? update.getMaxScale()->convertToDouble()
                                   : 0.0)
         << "};\n";
    for (unsigned r = 0; r < 3; ++r) {
      std::string from = pointerOf(op->getOperand(r), false);
      std::string to = pointerOf(op->getResult(r), true);
      if (to != pointerOf(op->getOperand(r), true))
        body << "    AMP_STEP_CHECK(ampstep::launch(stream, \"" << kernel
             << "_copy\", 1, ampstep::Copy{" << from << ", " << to << "}));\n";
    }
    body << "    AMP_STEP_CHECK(amp_scaler_update(stream, &config, "
         << pointerOf(op->getResult(0), true) << ", "
         << pointerOf(op->getResult(1), true) << ", "
         << pointerOf(op->getResult(2), true) << ", "
         << pointerOf(op->getOperand(3), false) << "));\n  }\n";
    return success();
  }
  if (auto attention = dyn_cast<AttentionOp>(op)) {
    runtimeComment();
    auto q = tensorOf(attention.getQuery());
    Type element = q.getElementType();
    body << "  {\n    amp_attention_t a{"
         << (element.isF16()    ? "AMP_F16"
             : element.isBF16() ? "AMP_BF16"
                                : "AMP_F32")
         << ", " << q.getDimSize(0) * q.getDimSize(1) << ", " << q.getDimSize(2)
         << ", " << tensorOf(attention.getKey()).getDimSize(2) << ", "
         << q.getDimSize(3) << ", "
         << llvm::format("%a", attention.getScaleOrDefault()) << ", "
         << attention.getCausal() << "};\n"
         << "    AMP_STEP_CHECK(amp_attention_forward(stream, &a, "
         << pointerOf(op->getOperand(0), false) << ", "
         << pointerOf(op->getOperand(1), false) << ", "
         << pointerOf(op->getOperand(2), false) << ", "
         << pointerOf(op->getResult(0), true) << ", nullptr));\n  }\n";
    return success();
  }

  // Generated kernels: one index per output element, row or line.
  SmallVector<Operation *> listed{op};
  llvm::append_range(listed, guards);
  beginFunctor(kernel, listed);
  std::string count;
  std::string t = type && isa<FloatType>(type) ? registerType(type) : "float";
  auto c = [&](double v) { return literal(v, t); };
  LogicalResult result =
      TypeSwitch<Operation *, LogicalResult>(op)
          .Case<SumOp, MeanOp, MaxOp>([&](auto reduce) {
            Value x = op->getOperand(0);
            ArrayRef<int64_t> shape = tensorOf(x).getShape();
            SmallVector<int64_t> strides = computeStrides(shape);
            llvm::SmallDenseSet<int64_t> reduced(reduce.getDims().begin(),
                                                 reduce.getDims().end());
            bool isMax = isa<MaxOp>(op);
            Type acc = elementOf(x);
            if constexpr (!std::is_same_v<decltype(reduce), MaxOp>)
              acc = reduce.getAccumulatorType();
            std::string at = acc.isF64() ? "double" : "float";
            bool narrow = acc.isF16() || acc.isBF16();
            // Offset of the output's first input from the kept coordinates.
            SmallVector<int64_t> kept, keptStrides, red, redStrides;
            for (size_t d = 0; d < shape.size(); ++d) {
              (reduced.count(d) ? red : kept).push_back(shape[d]);
              (reduced.count(d) ? redStrides : keptStrides)
                  .push_back(strides[d]);
            }
            SmallVector<int64_t> keptOut = computeStrides(kept);
            std::string base;
            for (size_t d = 0; d < kept.size(); ++d)
              base +=
                  "    base += " +
                  scaled(coordinateOf("i", keptOut[d], kept[d], product(kept)),
                         keptStrides[d]) +
                  ";\n";
            int64_t inner = product(red);
            SmallVector<int64_t> redOut = computeStrides(red);
            std::string load = "    const int64_t at = base";
            for (size_t d = 0; d < red.size(); ++d)
              load += " + " +
                      scaled(coordinateOf("r", redOut[d], red[d], product(red)),
                             redStrides[d]);
            load +=
                ";\n    return static_cast<" + at + ">(" + ld(0, "at") + ");\n";
            std::string combine =
                isMax    ? "ampstep::nanMax(acc, v)"
                : narrow ? roundExpr(acc, "acc + " + roundExpr(acc, "v"))
                         : "acc + v";
            std::string finish;
            if (isa<MeanOp>(op))
              finish += "    acc = acc / static_cast<" + at + ">(" +
                        std::to_string(inner) + ");\n";
            finish += "    " + st(0, "i", roundExpr(type, "acc")) + "\n";
            defineReduction(at, isMax ? literal(-INFINITY, at) : literal(0, at),
                            base, load, combine, finish, inner);
            count = std::to_string(countOf(op->getResult(0)));
            return success();
          })
          .Case([&](TransposeOp transpose) {
            ArrayRef<int64_t> inShape = tensorOf(op->getOperand(0)).getShape();
            SmallVector<int64_t> inStrides = computeStrides(inShape);
            ArrayRef<int64_t> outShape = tensorOf(op->getResult(0)).getShape();
            SmallVector<int64_t> outStrides = computeStrides(outShape);
            fn << "    int64_t at = 0;\n";
            for (auto [d, from] : llvm::enumerate(transpose.getPermutation()))
              fn << "    at += "
                 << scaled(coordinateOf("i", outStrides[d], outShape[d],
                                        product(outShape)),
                           inStrides[from])
                 << ";\n";
            fn << "    " << out(0) << "[i] = " << in(0) << "[at];\n";
            count = std::to_string(countOf(op->getResult(0)));
            return success();
          })
          .Case([&](SliceOp slice) {
            ArrayRef<int64_t> inShape = tensorOf(op->getOperand(0)).getShape();
            SmallVector<int64_t> inStrides = computeStrides(inShape);
            ArrayRef<int64_t> outShape = tensorOf(op->getResult(0)).getShape();
            SmallVector<int64_t> outStrides = computeStrides(outShape);
            fn << "    int64_t at = 0;\n";
            for (size_t d = 0; d < outShape.size(); ++d)
              fn << "    at += "
                 << scaled(coordinateOf("i", outStrides[d], outShape[d],
                                        product(outShape)) +
                               " + " + std::to_string(slice.getStart()[d]),
                           inStrides[d])
                 << ";\n";
            fn << "    " << out(0) << "[i] = " << in(0) << "[at];\n";
            count = std::to_string(countOf(op->getResult(0)));
            return success();
          })
          .Case([&](ConcatOp concat) {
            ArrayRef<int64_t> outShape = tensorOf(op->getResult(0)).getShape();
            int64_t dim = concat.getDim();
            int64_t inner = product(outShape.drop_front(dim + 1));
            int64_t total = product(outShape);
            fn << "    const int64_t o = i / " << outShape[dim] * inner
               << ", j = " << coordinateOf("i", inner, outShape[dim], total)
               << ", r = "
               << (inner == 1 ? "0" : "i % " + std::to_string(inner)) << ";\n";
            int64_t start = 0;
            for (unsigned p = 0; p < op->getNumOperands(); ++p) {
              int64_t width = tensorOf(op->getOperand(p)).getDimSize(dim);
              fn << "    " << (p ? "else " : "") << "if (j < " << start + width
                 << ") " << out(0) << "[i] = " << in(p) << "[(o * " << width
                 << " + j - " << start << ") * " << inner << " + r];\n";
              start += width;
            }
            count = std::to_string(countOf(op->getResult(0)));
            return success();
          })
          .Case([&](EmbeddingOp) {
            auto table = tensorOf(op->getOperand(0));
            int64_t rows = table.getDimSize(0), width = table.getDimSize(1);
            fn << "    const int64_t id = "
               << ld(1, "i / " + std::to_string(width)) << ";\n    " << out(0)
               << "[i] = id >= 0 && id < " << rows << " ? " << in(0) << "[id * "
               << width << " + i % " << width << "] : " << storageType(type)
               << "(0);\n";
            count = std::to_string(countOf(op->getResult(0)));
            return success();
          })
          .Case([&](EmbeddingGradOp) {
            int64_t width = tensorOf(op->getResult(0)).getDimSize(1);
            int64_t ids = countOf(op->getOperand(0));
            fn << "    const int64_t row = i / " << width << ", col = i % "
               << width << ";\n    " << t << " acc = " << c(0) << ";\n"
               << "    for (int64_t n = 0; n < " << ids << "; ++n)\n"
               << "      if (" << ld(0, "n") << " == row)\n"
               << "        acc = acc + static_cast<" << t << ">("
               << ld(1, "n * " + std::to_string(width) + " + col") << ");\n"
               << "    " << st(0, "i", roundExpr(type, "acc")) << "\n";
            count = std::to_string(countOf(op->getResult(0)));
            return success();
          })
          .Case<SoftmaxOp, LogSoftmaxOp>([&](auto softmax) {
            ArrayRef<int64_t> shape = tensorOf(op->getOperand(0)).getShape();
            auto [n, at] = lineAlong(shape, softmax.getDim());
            bool log = isa<LogSoftmaxOp>(op);
            fn << "    " << t << " m = " << c(-INFINITY) << ";\n"
               << "    for (int64_t j = 0; j < " << n << "; ++j) m = "
               << "ampstep::nanMax(m, static_cast<" << t << ">(" << ld(0, at)
               << "));\n    " << t << " s = " << c(0) << ";\n"
               << "    for (int64_t j = 0; j < " << n << "; ++j) s = s + "
               << math("exp", t) << "(static_cast<" << t << ">(" << ld(0, at)
               << ") - m);\n";
            if (log)
              fn << "    const " << t << " ls = " << math("log", t) << "(s);\n";
            fn << "    for (int64_t j = 0; j < " << n << "; ++j) {\n"
               << "      const " << t << " x = static_cast<" << t << ">("
               << ld(0, at) << ") - m;\n      "
               << st(0, at,
                     roundExpr(type,
                               log ? "x - ls" : math("exp", t) + "(x) / s"))
               << "\n    }\n";
            count = std::to_string(product(shape) / n);
            return success();
          })
          .Case<SoftmaxGradOp, LogSoftmaxGradOp>([&](auto grad) {
            ArrayRef<int64_t> shape = tensorOf(op->getOperand(0)).getShape();
            auto [n, at] = lineAlong(shape, grad.getDim());
            bool log = isa<LogSoftmaxGradOp>(op);
            std::string y = "static_cast<" + t + ">(" + ld(0, at) + ")";
            std::string g = "static_cast<" + t + ">(" + ld(1, at) + ")";
            fn << "    " << t << " s = " << c(0) << ";\n"
               << "    for (int64_t j = 0; j < " << n << "; ++j) s = s + "
               << (log ? g : g + " * " + y) << ";\n"
               << "    for (int64_t j = 0; j < " << n << "; ++j)\n      "
               << st(0, at,
                     roundExpr(type, log ? g + " - " + math("exp", t) + "(" +
                                               y + ") * s"
                                         : y + " * (" + g + " - s)"))
               << "\n";
            count = std::to_string(product(shape) / n);
            return success();
          })
          .Case<LayerNormOp, RmsNormOp>([&](auto norm) -> LogicalResult {
            Value x = op->getOperand(0);
            int64_t n = product(
                tensorOf(x).getShape().drop_front(norm.getNormalizedAxis()));
            bool centered = isa<LayerNormOp>(op);
            std::string ct = "float";
            for (Value v : op->getOperands())
              if (elementOf(v).isF64())
                ct = "double";
            auto cc = [&](double v) { return literal(v, ct); };
            auto xs = [&](StringRef j) {
              return "static_cast<" + ct + ">(" +
                     ld(0, ("i * " + std::to_string(n) + " + " + j).str()) +
                     ")";
            };
            std::string weight, bias;
            unsigned next = 1;
            if (norm.getWeight())
              weight = "static_cast<" + ct + ">(" + ld(next++, "j") + ")";
            if constexpr (std::is_same_v<decltype(norm), LayerNormOp>)
              if (norm.getBias())
                bias = "static_cast<" + ct + ">(" + ld(next++, "j") + ")";
            std::string eps = cc(norm.getEpsilon().convertToDouble());
            if (centered) {
              fn << "    " << ct << " sum = " << cc(0) << ";\n"
                 << "    for (int64_t j = 0; j < " << n << "; ++j) sum = sum + "
                 << xs("j") << ";\n    const " << ct << " mean = sum / "
                 << cc(n) << ";\n    " << ct << " sq = " << cc(0) << ";\n"
                 << "    for (int64_t j = 0; j < " << n << "; ++j) { const "
                 << ct << " d = " << xs("j") << " - mean; sq = sq + d * d; }\n"
                 << "    const " << ct << " den = " << math("sqrt", ct)
                 << "(sq / " << cc(n) << " + " << eps << ");\n";
            } else {
              fn << "    " << ct << " sq = " << cc(0) << ";\n"
                 << "    for (int64_t j = 0; j < " << n << "; ++j) sq = sq + "
                 << xs("j") << " * " << xs("j") << ";\n"
                 << "    const " << ct << " den = " << math("sqrt", ct)
                 << "(sq / " << cc(n) << " + " << eps << ");\n";
            }
            fn << "    for (int64_t j = 0; j < " << n << "; ++j) {\n"
               << "      " << ct << " y = (" << xs("j")
               << (centered ? " - mean" : "") << ") / den;\n";
            if (!weight.empty())
              fn << "      y = y * " << weight << ";\n";
            if (!bias.empty())
              fn << "      y = y + " << bias << ";\n";
            fn << "      "
               << st(0, "i * " + std::to_string(n) + " + j",
                     roundExpr(type, "y"))
               << "\n    }\n";
            count = std::to_string(countOf(x) / std::max<int64_t>(n, 1));
            return success();
          })
          .Case<LayerNormGradOp, RmsNormGradOp>([&](auto grad) {
            Value x = op->getOperand(0);
            int64_t n = product(
                tensorOf(x).getShape().drop_front(grad.getNormalizedAxis()));
            bool centered = isa<LayerNormGradOp>(op);
            std::string row = "i * " + std::to_string(n) + " + ";
            auto xs = [&](StringRef j) {
              return "static_cast<" + t + ">(" + ld(0, row + j.str()) + ")";
            };
            auto gs = [&](StringRef j) {
              return "static_cast<" + t + ">(" + ld(1, row + j.str()) + ")";
            };
            fn << "    " << t << " mean = " << c(0) << ";\n";
            if (centered)
              fn << "    for (int64_t j = 0; j < " << n
                 << "; ++j) mean = mean + " << xs("j") << ";\n"
                 << "    mean = mean / " << c(n) << ";\n";
            fn << "    " << t << " sq = " << c(0) << ";\n"
               << "    for (int64_t j = 0; j < " << n << "; ++j) { const " << t
               << " d = " << xs("j") << " - mean; sq = sq + d * d; }\n"
               << "    const " << t << " r = " << math("sqrt", t) << "(sq / "
               << c(n) << " + " << c(grad.getEpsilon().convertToDouble())
               << ");\n    " << t << " gm = " << c(0) << ", gd = " << c(0)
               << ";\n    for (int64_t j = 0; j < " << n << "; ++j) {\n"
               << "      const " << t << " h = (" << xs("j")
               << " - mean) / r;\n"
               << "      gm = gm + " << gs("j") << ";\n      gd = gd + "
               << gs("j") << " * h;\n    }\n    gm = gm / " << c(n)
               << ";\n    gd = gd / " << c(n) << ";\n"
               << "    for (int64_t j = 0; j < " << n << "; ++j) {\n"
               << "      const " << t << " h = (" << xs("j")
               << " - mean) / r;\n"
               << "      " << t << " dx = " << gs("j") << " - h * gd;\n";
            if (centered)
              fn << "      dx = dx - gm;\n";
            fn << "      " << st(0, row + "j", roundExpr(type, "dx / r"))
               << "\n    }\n";
            count = std::to_string(countOf(x) / std::max<int64_t>(n, 1));
            return success();
          })
          .Case<CrossEntropyOp, CrossEntropyGradOp>([&](auto loss)
                                                        -> LogicalResult {
            Value logits = op->getOperand(0);
            Type lt = elementOf(logits);
            std::string ct = registerType(lt);
            auto cc = [&](double v) { return literal(v, ct); };
            int64_t classes = tensorOf(logits).getShape().back();
            int64_t rows = countOf(op->getOperand(1));
            bool mean = loss.getReduction() == LossReduction::mean;
            bool isGrad = isa<CrossEntropyGradOp>(op);
            std::string partials;
            if (!isGrad) {
              auto at = op->getAttrOfType<IntegerAttr>(kScratchAttr);
              if (!at)
                return op->emitError() << "amp-to-cuda: this op has no "
                                          "scratch memory; run "
                                          "--amp-plan-buffers first";
              partials =
                  params.addRaw(ct, "reinterpret_cast<" + ct + " *>(arena + " +
                                        std::to_string(at.getInt()) + ")");
            }
            auto x = [&](StringRef index) {
              return "static_cast<" + ct + ">(" + ld(0, index) + ")";
            };
            std::string xr = "row * " + std::to_string(classes) + " + cidx";
            // Per row: max, sum of exp(x - max); labels out of range give
            // NaN, which the inf/NaN check of the step then sees.
            std::string stats =
                "      const int64_t label = " + ld(1, "row") + ";\n" +
                "      " + ct + " mx = " + cc(-INFINITY) + ";\n" +
                "      for (int64_t cidx = 0; cidx < " +
                std::to_string(classes) +
                "; ++cidx) mx = ampstep::nanMax(mx, " + x(xr) + ");\n      " +
                ct + " se = " + cc(0) + ";\n" +
                "      for (int64_t cidx = 0; cidx < " +
                std::to_string(classes) + "; ++cidx) se = se + " +
                math("exp", ct) + "(" + x(xr) + " - mx);\n";
            // Rows whose label is ignore_index count for nothing; the
            // runtime has checked the others before the step ran.
            std::optional<int64_t> ignored = loss.getIgnoreIndex();
            std::string outside =
                "(label < 0 || label >= " + std::to_string(classes) + ")";
            std::string skipped;
            if (ignored) {
              skipped = "(label == " + std::to_string(*ignored) + ")";
              outside = "(!" + skipped + " && " + outside + ")";
            }
            if (!isGrad) {
              // Per row into scratch, then the rows in order.
              fn << "    const int64_t row = i;\n"
                 << stats << "      " << partials << "[row] = "
                 << (ignored ? skipped + " ? " + cc(0) + " : " : "") << outside
                 << " ? " << cc(NAN) << " : (mx + " << math("log", ct)
                 << "(se)) - "
                 << x("row * " + std::to_string(classes) + " + label") << ";\n";
              count = std::to_string(rows);
              return success();
            }
            if (mean && ignored)
              return op->emitError()
                     << "amp-to-cuda: a cross_entropy_grad with ignore_index "
                        "and reduction = mean is not supported; write it with "
                        "reduction = sum and the loss gradient divided by the "
                        "count of rows, as amp-autodiff does";
            fn << "    const int64_t row = i;\n    " << ct << " scale = "
               << "static_cast<" << ct << ">(" << ld(2, "0") << ");\n";
            if (mean)
              fn << "    scale = scale / " << cc(rows) << ";\n";
            fn << stats << "    for (int64_t cidx = 0; cidx < " << classes
               << "; ++cidx) {\n      " << ct << " p = " << math("exp", ct)
               << "(" << x(xr) << " - mx) / se;\n"
               << "      if " << outside << " p = " << cc(NAN) << ";\n"
               << "      if (cidx == label) p = p - " << cc(1) << ";\n      "
               << st(0, xr,
                     roundExpr(type, ignored ? skipped + " ? " + cc(0) +
                                                   " : p * scale"
                                             : std::string("p * scale")))
               << "\n    }\n";
            count = std::to_string(rows);
            return success();
          })
          .Case<SgdUpdateOp, SgdMomentumUpdateOp>([&](auto sgd) {
            auto d = [](double v) { return literal(v, "double"); };
            double momentum = 0, dampening = 0;
            bool nesterov = false;
            if constexpr (std::is_same_v<decltype(sgd), SgdMomentumUpdateOp>) {
              momentum = sgd.getMomentum().convertToDouble();
              dampening = sgd.getDampening().convertToDouble();
              nesterov = sgd.getNesterov();
            }
            bool hasBuffer = isa<SgdMomentumUpdateOp>(op);
            std::string param = ld(0, "i"), grad = ld(1, "i");
            std::string first = hasBuffer ? ld(3, "0") + " == 0" : "false";
            fn << "    const amprt::SgdScalars<" << t
               << "> s = amprt::sgdScalars<" << t << ">("
               << d(sgd.getLr().convertToDouble()) << ", " << d(momentum)
               << ", " << d(dampening) << ", "
               << d(sgd.getWeightDecay().convertToDouble()) << ", "
               << (nesterov ? "true" : "false") << ");\n";
            if (hasBuffer)
              fn << "    " << t << " buf = " << ld(2, "i") << ";\n";
            fn << "    const " << t << " p = amprt::sgdElement<" << t << ">(s, "
               << param << ", " << grad << ", "
               << (hasBuffer ? "&buf" : "nullptr") << ", " << first << ");\n";
            if (hasBuffer)
              fn << "    " << st(1, "i", roundExpr(type, "buf")) << "\n";
            fn << "    " << st(0, "i", roundExpr(type, "p")) << "\n";
            count = std::to_string(countOf(op->getResult(0)));
            return success();
          })
          .Case([&](AdamwUpdateOp adam) {
            auto d = [](double v) { return literal(v, "double"); };
            // The scalars once per launch (setup()): the bias corrections
            // in f64 from the step count, as torch.optim computes them on
            // the host.
            sharedMembers = "  amprt::AdamwScalars<" + t + "> scalars{};\n";
            setup << "    scalars = amprt::adamwScalars<" << t << ">("
                  << d(adam.getLr().convertToDouble()) << ", "
                  << d(adam.getBeta1().convertToDouble()) << ", "
                  << d(adam.getBeta2().convertToDouble()) << ", "
                  << d(adam.getEps().convertToDouble()) << ", "
                  << d(adam.getWeightDecay().convertToDouble())
                  << ", static_cast<double>(" << ld(4, "0") << "));\n";
            fn << "    " << t << " p = " << ld(0, "i") << ";\n"
               << "    const " << t << " g = " << ld(1, "i") << ";\n"
               << "    " << t << " m = " << ld(2, "i") << ";\n"
               << "    " << t << " v = " << ld(3, "i") << ";\n"
               << "    amprt::adamwElement<" << t << ">(scalars, p, g, m, v);\n"
               << "    " << st(0, "i", roundExpr(type, "p")) << "\n"
               << "    " << st(1, "i", roundExpr(type, "m")) << "\n"
               << "    " << st(2, "i", roundExpr(type, "v")) << "\n";
            count = std::to_string(countOf(op->getResult(0)));
            return success();
          })
          .Case([&](MseLossOp loss) {
            int64_t n = countOf(op->getOperand(0));
            std::string load = "    const " + t + " d = static_cast<" + t +
                               ">(" + ld(0, "r") + ") - static_cast<" + t +
                               ">(" + ld(1, "r") + ");\n    return d * d;\n";
            std::string finish;
            if (loss.getReduction() == LossReduction::mean)
              finish += "    acc = acc / " + c(n) + ";\n";
            finish += "    " + st(0, "0", roundExpr(type, "acc")) + "\n";
            defineReduction(t, c(0), "", load, "acc + v", finish, n);
            count = "1";
            return success();
          })
          .Default([&](Operation *other) {
            return other->emitError() << "'" << other->getName()
                                      << "' is not supported by the backend";
          });
  if (failed(result))
    return failure();
  std::string onDevice = guards.empty() ? runtimeRowCall(op) : "";
  if (!onDevice.empty())
    body << "#if defined(__CUDACC__)\n  // " << kernel
         << ": the runtime's warp-per-row kernel\n  AMP_STEP_CHECK(" << onDevice
         << ");\n#else\n";
  endFunctor(kernel, params, count, /*hostOnly=*/!onDevice.empty());
  if (!onDevice.empty())
    body << "#endif\n";
  if (auto loss = dyn_cast<CrossEntropyOp>(op))
    emitRowSum(loss, kernel);
  return success();
}

std::string Emitter::runtimeRowCall(Operation *op) {
  auto dtypeOf = [&](Value v) -> std::string {
    Type type = elementOf(v);
    return type.isF16()    ? "AMP_F16"
           : type.isBF16() ? "AMP_BF16"
           : type.isF32()  ? "AMP_F32"
                           : "";
  };
  auto isF32 = [&](Value v) { return !v || elementOf(v).isF32(); };
  auto in = [&](Value v) { return v ? pointerOf(v, false) : "nullptr"; };
  // [rows, cols] with the normalised (trailing) dimensions as the columns.
  auto rowsOf = [&](Value x, int64_t firstColumn) -> std::string {
    std::string dtype = dtypeOf(x);
    ArrayRef<int64_t> shape = tensorOf(x).getShape();
    int64_t cols = product(shape.drop_front(firstColumn));
    if (dtype.empty() || cols == 0)
      return "";
    return "amp_rows_t{" + dtype + ", " +
           std::to_string(product(shape) / cols) + ", " + std::to_string(cols) +
           "}";
  };
  auto eps = [](FloatAttr attr) {
    return literal(attr.getValueAsDouble(), "float");
  };
  std::string out =
      op->getNumResults() ? pointerOf(op->getResult(0), true) : "";
  return TypeSwitch<Operation *, std::string>(op)
      .Case<SoftmaxOp, LogSoftmaxOp>([&](auto softmax) -> std::string {
        Value x = softmax.getInput();
        if (static_cast<int64_t>(softmax.getDim()) !=
                tensorOf(x).getRank() - 1 ||
            elementOf(x) != elementOf(softmax.getResult()))
          return "";
        std::string rows = rowsOf(x, softmax.getDim());
        return rows.empty() ? ""
                            : "amp_softmax_forward(stream, " + rows + ", " +
                                  in(x) + ", " + out + ", " +
                                  (isa<LogSoftmaxOp>(op) ? "1" : "0") + ")";
      })
      .Case([&](LayerNormOp norm) -> std::string {
        std::string rows = rowsOf(norm.getInput(), norm.getNormalizedAxis());
        if (rows.empty() || !isF32(norm.getWeight()) || !isF32(norm.getBias()))
          return "";
        return "amp_layer_norm_forward(stream, " + rows + ", " +
               in(norm.getInput()) + ", " + in(norm.getWeight()) + ", " +
               in(norm.getBias()) + ", " + eps(norm.getEpsilonAttr()) + ", " +
               out + ", nullptr, nullptr)";
      })
      .Case([&](RmsNormOp norm) -> std::string {
        std::string rows = rowsOf(norm.getInput(), norm.getNormalizedAxis());
        if (rows.empty() || !isF32(norm.getWeight()))
          return "";
        return "amp_rms_norm_forward(stream, " + rows + ", " +
               in(norm.getInput()) + ", " + in(norm.getWeight()) + ", " +
               eps(norm.getEpsilonAttr()) + ", " + out + ", nullptr)";
      })
      .Case<LayerNormGradOp, RmsNormGradOp>([&](auto grad) -> std::string {
        std::string rows = rowsOf(grad.getInput(), grad.getNormalizedAxis());
        if (rows.empty())
          return "";
        // Without a weight, dy is the gradient g of the normalised value.
        bool centered = isa<LayerNormGradOp>(op);
        return std::string(centered ? "amp_layer_norm_backward"
                                    : "amp_rms_norm_backward") +
               "(stream, " + rows + ", " + in(grad.getInput()) + ", " +
               in(grad.getGrad()) + ", nullptr, " + eps(grad.getEpsilonAttr()) +
               ", " + out + (centered ? ", nullptr, nullptr)" : ", nullptr)");
      })
      .Case([&](CrossEntropyOp loss) -> std::string {
        Value logits = loss.getLogits();
        std::string rows = rowsOf(logits, tensorOf(logits).getRank() - 1);
        auto scratch = op->getAttrOfType<IntegerAttr>(kScratchAttr);
        if (rows.empty() || !scratch ||
            !elementOf(loss.getLabels()).isInteger(64) || loss.getIgnoreIndex())
          return "";
        // The row losses into scratch; the second kernel sums them.
        return "amp_cross_entropy(stream, " + rows + ", " + in(logits) + ", " +
               in(loss.getLabels()) + ", reinterpret_cast<float *>(arena + " +
               std::to_string(scratch.getInt()) +
               "), nullptr, nullptr, AMP_LOSS_SUM)";
      })
      .Case([&](CrossEntropyGradOp grad) -> std::string {
        Value logits = grad.getLogits();
        std::string rows = rowsOf(logits, tensorOf(logits).getRank() - 1);
        if (rows.empty() || !elementOf(grad.getLabels()).isInteger(64) ||
            grad.getIgnoreIndex() || !isF32(grad.getGrad()) ||
            elementOf(grad.getResult()) != elementOf(logits))
          return "";
        return "amp_cross_entropy(stream, " + rows + ", " + in(logits) + ", " +
               in(grad.getLabels()) + ", nullptr, " + out + ", " +
               in(grad.getGrad()) + ", " +
               (grad.getReduction() == LossReduction::mean ? "AMP_LOSS_MEAN"
                                                           : "AMP_LOSS_SUM") +
               ")";
      })
      .Default([](Operation *) { return std::string(); });
}

void Emitter::emitRowSum(CrossEntropyOp op, StringRef rowKernel) {
  std::string kernel = (rowKernel + "_sum").str();
  Type logits = elementOf(op.getLogits());
  std::string ct = registerType(logits);
  int64_t rows = countOf(op.getLabels());
  KernelParams params;
  std::string partials = params.addRaw(
      "const " + ct,
      "reinterpret_cast<const " + ct + " *>(arena + " +
          std::to_string(
              op->getAttrOfType<IntegerAttr>(kScratchAttr).getInt()) +
          ")");
  std::string out = params.add(op.getResult(), /*writes=*/true);
  IntegerAttr ignored = op.getIgnoreIndexAttr();
  std::string labels;
  if (ignored)
    labels = params.add(op.getLabels(), /*writes=*/false);
  beginFunctor(kernel, {op});
  std::string finish;
  if (op.getReduction() == LossReduction::mean && ignored) {
    // The mean over the rows that count (at least one), as the
    // interpreter divides.
    finish += "    int64_t counted = 0;\n    for (int64_t r = 0; r < " +
              std::to_string(rows) + "; ++r)\n      counted += " +
              loadExpr(elementOf(op.getLabels()), labels, "r") +
              " != " + std::to_string(ignored.getInt()) + ";\n" +
              "    acc = acc / static_cast<" + ct +
              ">(counted > 0 ? counted : 1);\n";
  } else if (op.getReduction() == LossReduction::mean) {
    finish += "    acc = acc / " + literal(rows, ct) + ";\n";
  }
  finish += "    " +
            storeStmt(elementOf(op.getResult()), out, "0",
                      roundExpr(elementOf(op.getResult()), "acc")) +
            "\n";
  defineReduction(ct, literal(0, ct), "", "    return " + partials + "[r];\n",
                  "acc + v", finish, rows);
  endFunctor(kernel, params, "1");
}

LogicalResult Emitter::emitReturn() {
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  SmallVector<unsigned> threaded = getThreadedArguments(func);
  body << "  // The new parameters and state, where not already in place.\n";
  for (auto [k, argIndex] : llvm::enumerate(threaded)) {
    Value value = ret.getOperand(k);
    std::string from = pointerOf(value, false);
    std::string to = pointerOf(func.getArgument(argIndex), true);
    if (from == "static_cast<const " + to.substr(12))
      continue; // written in place
    body << "  if (" << from << " != " << to
         << ")\n    AMP_STEP_CHECK(ampstep::launch(stream, \"copy_" << argIndex
         << "\", " << countOf(value) << ", ampstep::Copy{" << from << ", " << to
         << "}));\n";
  }
  Value loss = ret.getOperand(threaded.size());
  bool scaled = ret.getNumOperands() == threaded.size() + 2;
  body << "  // The loss, found_inf and the counters.\n";
  body << "  AMP_STEP_CHECK(ampstep::launch(stream, \"results\", 1, "
          "ampstep::Results{"
       << pointerOf(loss, false) << ", "
       << (scaled ? pointerOf(ret.getOperand(threaded.size() + 1), false)
                  : std::string("nullptr"))
       << ", loss, found_inf, counters}));\n";
  return success();
}

/// The op whose memory `value` is (through views).
static Operation *memoryOwner(Value value) {
  Operation *def = value.getDefiningOp();
  while (def && isView(def))
    def = def->getOperand(0).getDefiningOp();
  return def;
}

/// Checks that a kernel starting with a matmul is one emitGemm prints: the
/// matmul alone, or with the bias add (unless the matmul has a bias
/// operand) and relu its amp.epilogue names, as --amp-fuse folds them.
static LogicalResult verifyGemmKernel(ArrayRef<Operation *> ops) {
  auto matmul = cast<MatmulOp>(ops.front());
  auto epilogue = matmul->getAttrOfType<EpilogueAttr>(kEpilogueAttr);
  bool hasBias = static_cast<bool>(matmul.getBias());
  size_t reluAt = hasBias ? 1 : 2;
  size_t expected = !epilogue                               ? 1
                    : epilogue.getValue() == Epilogue::bias ? reluAt
                                                            : reluAt + 1;
  bool ok = ops.size() == expected && (epilogue || !hasBias);
  if (ok && expected >= 2 && !hasBias) {
    auto add = dyn_cast<AddOp>(ops[1]);
    Value bias;
    if (add && matmul.getResult().hasOneUse() &&
        (add.getLhs() == matmul.getResult() ||
         add.getRhs() == matmul.getResult()))
      bias = add.getLhs() == matmul.getResult() ? add.getRhs() : add.getLhs();
    auto type = matmul.getType();
    ok = bias && add.getType() == type && type.getElementType().isF32() &&
         tensorOf(bias).getRank() == 1 &&
         tensorOf(bias).getDimSize(0) == type.getShape().back() &&
         elementOf(bias).isF32();
  }
  if (ok && expected == reluAt + 1) {
    auto relu = dyn_cast<ReluOp>(ops[reluAt]);
    Value biased = ops[reluAt - 1]->getResult(0);
    ok = relu && biased.hasOneUse() && relu.getInput() == biased &&
         relu.getType() == matmul.getType();
  }
  if (ok)
    return success();
  if (!epilogue)
    return matmul.emitError()
           << "amp-to-cuda: this matmul "
           << (hasBias ? "has a bias operand"
                       : "shares its kernel with other ops")
           << " but has no amp.epilogue; run --amp-fuse again";
  return matmul.emitError()
         << "amp-to-cuda: the kernel of this matmul is not the matmul"
         << (hasBias ? "" : " and the bias add")
         << (expected == reluAt + 1 ? " and relu" : "") << " its amp.epilogue "
         << epilogue << " names; run --amp-fuse again";
}

LogicalResult Emitter::verifyPlan() {
  // amp.arena_size is there (emit checked) and non-negative (the dialect).
  int64_t arenaSize = func->getAttrOfType<IntegerAttr>(kArenaSizeAttr).getInt();
  auto bad = [](Operation *op, const Twine &what) {
    return op->emitError() << "amp-to-cuda: " << what
                           << "; run --amp-plan-buffers again";
  };
  // Kernels run in the order of their numbers: each reads values of its
  // own kernel or of earlier ones.
  for (Operation &op : func.getBody().front()) {
    std::optional<int64_t> kernel = getKernel(&op);
    if (!kernel)
      continue;
    for (Value operand : op.getOperands()) {
      Operation *owner = memoryOwner(operand);
      std::optional<int64_t> from = owner ? getKernel(owner) : std::nullopt;
      if (from && *from > *kernel)
        return op.emitError() << "amp-to-cuda: this op (kernel " << *kernel
                              << ") reads a value of kernel " << *from
                              << ", which runs after it; run --amp-fuse again";
    }
  }
  auto fits = [&](int64_t at, int64_t bytes) {
    return at >= 0 && at <= arenaSize && bytes <= arenaSize - at;
  };
  for (Operation &op : func.getBody().front()) {
    if (isa<func::ReturnOp>(op) || isView(&op) || op.getNumResults() == 0)
      continue;
    auto places = op.getAttrOfType<ArrayAttr>(kPlaceAttr);
    if (!places || places.size() != op.getNumResults())
      return bad(&op,
                 "this op has no place for each result (" + kPlaceAttr + ")");
    for (OpResult result : op.getResults()) {
      // The dialect checked that every place is a PlaceAttr.
      PlaceAttr place = placeOf(result);
      std::string which = "result #" + std::to_string(result.getResultNumber());
      if (place.getKind() == PlaceKind::fused) {
        std::optional<int64_t> kernel = getKernel(&op);
        for (Operation *user : result.getUsers())
          if (isa<func::ReturnOp>(user) || !kernel || getKernel(user) != kernel)
            return bad(&op, which + " is fused into its kernel but read "
                                    "outside it");
        continue;
      }
      int64_t number = place.getNumber().value_or(0);
      if (place.getKind() == PlaceKind::arg) {
        if (number >= static_cast<int64_t>(func.getNumArguments()) ||
            func.getArgument(number).getType() != result.getType())
          return bad(&op, which + " is placed in argument " +
                              std::to_string(number) +
                              ", which is not an argument of its type");
        continue;
      }
      if (place.getKind() != PlaceKind::arena ||
          !fits(number, getByteSize(result.getType()))) {
        std::string text;
        llvm::raw_string_ostream(text) << place;
        return bad(&op, which + " has no place inside the " +
                            std::to_string(arenaSize) + "-byte arena (" + text +
                            ")");
      }
    }
    if (Attribute scratch = op.getAttr(kScratchAttr)) {
      auto offset = dyn_cast<IntegerAttr>(scratch);
      if (!offset || !fits(offset.getInt(), getScratchBytes(&op)))
        return bad(&op, "its scratch memory (" + kScratchAttr +
                            ") is not inside the arena");
    }
  }
  return success();
}

LogicalResult Emitter::emit() {
  if (failed(backend::checkCompilable(func)))
    return failure();
  Block &block = func.getBody().front();
  SmallVector<unsigned> threaded = getThreadedArguments(func);
  if (threaded.empty())
    return func.emitError()
           << "amp-to-cuda: @" << func.getSymName()
           << " is not a training step (its results must be its amp.param "
              "and amp.state arguments, in order, then the loss and, with "
              "loss scaling, found_inf)";
  auto ret = cast<func::ReturnOp>(block.getTerminator());
  Value loss = ret.getOperand(threaded.size());
  auto lossType = tensorOf(loss);
  if (lossType.getRank() != 0 || !lossType.getElementType().isF32())
    return func.emitError() << "amp-to-cuda: the loss must be an f32 scalar; "
                               "it is "
                            << lossType;
  if (!func->getAttr(kArenaSizeAttr))
    return func.emitError()
           << "amp-to-cuda: @" << func.getSymName()
           << " has no buffer plan; run --amp-fuse and --amp-plan-buffers "
              "first";

  // Kernels in the order they run.
  std::map<int64_t, SmallVector<Operation *>> kernels;
  for (Operation &op : block)
    if (std::optional<int64_t> kernel = getKernel(&op))
      kernels[*kernel].push_back(&op);
    else if (!isView(&op) && !isa<func::ReturnOp>(op))
      return op.emitError() << "amp-to-cuda: this op has no kernel; run "
                               "--amp-fuse first";
  if (failed(verifyPlan()))
    return failure();
  for (auto &[number, ops] : kernels)
    if (isa<MatmulOp>(ops.front()) && failed(verifyGemmKernel(ops)))
      return failure();
  FailureOr<SmallVector<IndexCheck>> indexChecks = getIndexChecks(func);
  if (failed(indexChecks))
    return failure();
  for (auto &[number, ops] : kernels) {
    kernelCount = number;
    if (failed(emitKernel(ops)))
      return failure();
  }
  if (failed(emitReturn()))
    return failure();

  // The file.
  os << "// " << name << ": the training step @" << func.getSymName()
     << ", generated by amp-translate --amp-to-cuda.\n"
     << "// Builds with nvcc (cuda target) or a host C++ compiler (host "
        "target);\n// kernel bodies are AMP_HOST_DEVICE. Do not edit: "
        "regenerate.\n//\n"
     << "// " << kernels.size() << " kernels; arena "
     << func->getAttrOfType<IntegerAttr>(kArenaSizeAttr).getInt()
     << " bytes.\n\n#include \"amp_runtime/step_kernels.h\"\n\n"
     << "namespace {\n\n"
     << constantsText << defsText << "} // namespace\n\n"
     << "static amp_status_t " << name
     << "_run(amp_stream_t *stream, void *const *tensors, void *arenaBase,\n"
     << "    float *loss, float *found_inf, double *counters) {\n"
     << "  char *arena = static_cast<char *>(arenaBase);\n"
     << "  (void)arena;\n"
     << bodyText << "  return nullptr;\n}\n\n";

  // The description table.
  os << "static const amp_step_tensor_t " << name << "_tensors[] = {\n";
  int64_t scaleSlot = -1;
  // Each tensor is called by its argument's `amp.name`; an argument without
  // one gets the first free name of its kind: param0, state0, input0, ...
  unsigned params = 0, states = 0, inputs = 0;
  llvm::StringSet<> used;
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    used.insert(getArgumentName(func, i));
  auto fallbackName = [&](StringRef kind, unsigned &counter) {
    std::string candidate;
    do
      candidate = (kind + Twine(counter++)).str();
    while (!used.insert(candidate).second);
    return candidate;
  };
  for (unsigned i = 0; i < func.getNumArguments(); ++i) {
    auto type = cast<RankedTensorType>(func.getArgumentTypes()[i]);
    bool isParam =
        static_cast<bool>(func.getArgAttr(i, AmpDialect::kParamAttrName));
    bool isState =
        static_cast<bool>(func.getArgAttr(i, AmpDialect::kStateAttrName));
    if (func.getArgAttr(i, AmpDialect::kLossScaleAttrName))
      scaleSlot = i;
    double initial = 0;
    if (auto value =
            func.getArgAttrOfType<FloatAttr>(i, AmpDialect::kStateAttrName))
      initial = value.getValueAsDouble();
    Type element = type.getElementType();
    std::string tensorName = getArgumentName(func, i).str();
    if (tensorName.empty())
      tensorName = isParam   ? fallbackName("param", params)
                   : isState ? fallbackName("state", states)
                             : fallbackName("input", inputs);
    os << "  {\"" << cStringBody(tensorName) << "\", "
       << (isParam   ? "AMP_STEP_PARAM"
           : isState ? "AMP_STEP_STATE"
                     : "AMP_STEP_INPUT")
       << ", AMP_ELEMENT_"
       << (element.isF32()         ? "F32"
           : element.isF16()       ? "F16"
           : element.isBF16()      ? "BF16"
           : element.isF64()       ? "F64"
           : element.isInteger(1)  ? "I1"
           : element.isInteger(32) ? "I32"
                                   : "I64")
       << ", " << type.getRank() << ", {";
    for (auto [d, dim] : llvm::enumerate(type.getShape()))
      os << (d ? ", " : "") << dim;
    // Parameters start as PyTorch starts their layers (getParamInit).
    int64_t fanIn = 1;
    if (isParam) {
      ParamInit init = getParamInit(func, i);
      fanIn = init.fanIn;
      initial = init.initial;
    }
    os << "}, " << fanIn << ", " << llvm::format("%a", initial) << "},\n";
  }
  if (func.getNumArguments() == 0)
    os << "  {}\n";
  os << "};\n\n";

  // The ranges of ids and labels, checked by the runtime before a run.
  os << "static const amp_step_index_check_t " << name
     << "_index_checks[] = {\n";
  for (const IndexCheck &check : *indexChecks) {
    std::string reader =
        "read by " + check.reader->getName().getStringRef().str();
    if (std::string at = sourcePosition(check.reader->getLoc()); !at.empty())
      reader += " at " + at;
    os << "  {" << check.argument << ", " << check.bound << ", "
       << (check.ignored ? 1 : 0) << ", " << check.ignored.value_or(0) << ", \""
       << cStringBody(reader) << "\"},\n";
  }
  if (indexChecks->empty())
    os << "  {}\n";
  os << "};\n\n"
     << "static const amp_step_description_t " << name << "_description = {\n"
     << "  AMP_STEP_ABI_VERSION, \"" << name << "\",\n"
     << "#if defined(__CUDACC__)\n  AMP_DEVICE_CUDA,\n#else\n"
     << "  AMP_DEVICE_HOST,\n#endif\n"
     << "  " << func.getNumArguments() << ", " << name << "_tensors, "
     << scaleSlot << ", "
     << func->getAttrOfType<IntegerAttr>(kArenaSizeAttr).getInt() << ", "
     << name << "_run, " << indexChecks->size() << ", " << name
     << "_index_checks};\n\n"
     << "extern \"C\" __attribute__((visibility(\"default\"))) const "
        "amp_step_description_t *\n"
     << name << "_describe(void) { return &" << name << "_description; }\n";
  return success();
}

} // namespace

LogicalResult mlir::amp::translateToCuda(ModuleOp module, raw_ostream &os,
                                         StringRef functionName,
                                         StringRef name) {
  func::FuncOp func;
  if (!functionName.empty()) {
    func = module.lookupSymbol<func::FuncOp>(functionName);
    if (!func)
      return module.emitError() << "amp-to-cuda: no function @" << functionName;
  } else {
    SmallVector<func::FuncOp> planned;
    for (auto candidate : module.getOps<func::FuncOp>())
      if (!candidate.isExternal() && candidate->getAttr(kArenaSizeAttr))
        planned.push_back(candidate);
    if (planned.size() > 1) {
      InFlightDiagnostic diag = module.emitError()
                                << "amp-to-cuda: several planned functions (";
      llvm::interleaveComma(planned, diag, [&](func::FuncOp f) {
        diag << "@" << f.getSymName();
      });
      return diag << "); name one with --amp-function";
    }
    if (!planned.empty())
      func = planned.front();
    if (!func)
      return module.emitError()
             << "amp-to-cuda: no function with a buffer plan; run "
                "--amp-fuse and --amp-plan-buffers first";
  }
  std::string stepName = name.empty() ? func.getSymName().str() : name.str();
  for (char &c : stepName)
    if (!std::isalnum(static_cast<unsigned char>(c)))
      c = '_';
  if (stepName.empty() || std::isdigit(static_cast<unsigned char>(stepName[0])))
    stepName = "step_" + stepName; // a C identifier
  return Emitter(func, stepName, os).emit();
}
