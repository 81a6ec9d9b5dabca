//===- ElementwiseKernels.cpp - fused elementwise kernels -----------------===//
//
// A group of fusible elementwise ops is one functor run once per element
// of the group's last result: each operand is loaded once, each op's value
// is one register (its expression from ScalarKernelOpInterface), and the
// values read outside the kernel are stored. Reductions and row kernels
// compute the groups --amp-fuse gives them the same way, at the index they
// load or store (emitElementwiseAt). Every op rounds its result to its
// type, as the interpreter does, so the host build reproduces the
// interpreter's results bit for bit.
//
//===----------------------------------------------------------------------===//

#include "StepEmitter.h"

#include "amp/Dialect/Amp/IR/AmpOps.h"
#include "amp/Dialect/Amp/Transforms/Backend.h"

#include "amp_runtime/launch_grid.h"
#include "amp_runtime/random.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/StringExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::amp;
using namespace mlir::amp::backend;
using namespace mlir::amp::cuda;

/// The functor of one fused group, as the ops' models see it.
class cuda::ElementwiseKernel {
public:
  /// Prints the computations at `index` of `shape` to `out` (the
  /// functor's body, or a method of it).
  ElementwiseKernel(StepEmitter &emitter, Functor &functor,
                    ArrayRef<int64_t> shape, raw_ostream &out,
                    StringRef index = "i", bool storeValues = true)
      : emitter(emitter), functor(functor), shape(shape),
        strides(computeStrides(shape)), haveCoord(shape.size()), out(out),
        index(index), storeValues(storeValues) {}

  StepEmitter &getEmitter() { return emitter; }
  KernelParams &getParams() { return functor.getParams(); }

  /// Makes `reg` the register of `value` (a value the caller computed).
  void bind(Value value, std::string reg) { registers[value] = std::move(reg); }

  /// The register holding `value` at the kernel's index: an earlier op's,
  /// or the operand loaded (once) from memory.
  std::string operand(Value value) {
    auto found = registers.find(value);
    if (found != registers.end())
      return found->second;
    std::string member = getParams().add(value, /*writes=*/false);
    std::string reg = "x" + std::to_string(registers.size());
    std::string at = indexOf(value); // may print the coordinates first
    out << "const " << registerType(elementOf(value)) << " " << reg << " = "
        << loadExpr(elementOf(value), member, at) << ";\n";
    registers[value] = reg;
    return reg;
  }

  /// Coordinate `d` of the kernel's index, printed once where first needed.
  std::string coord(size_t d) {
    std::string name = "c" + std::to_string(d);
    if (!haveCoord.test(d)) {
      haveCoord.set(d);
      out << "const int64_t " << name << " = "
          << coordinateOf(index, strides[d], shape[d], product(shape)) << ";\n";
    }
    return name;
  }

  /// The index in `value` (of a shape that broadcasts to the kernel's) of
  /// the kernel's index.
  std::string indexOf(Value value) {
    ArrayRef<int64_t> own = tensorOf(value).getShape();
    if (own == shape)
      return index;
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
  }

  /// Computes `op` into a register; stores it where the plan keeps it.
  LogicalResult compute(Operation *op) {
    auto scalar = dyn_cast<ScalarKernelOpInterface>(op);
    if (!scalar)
      return op->emitError() << "the backend has no kernel for this op";
    FailureOr<std::string> expr = scalar.getScalarExpr(*this);
    if (failed(expr))
      return failure();
    Value result = op->getResult(0);
    Type type = elementOf(result);
    functor.addWork(cast<FlopCountOpInterface>(op).getElementCost(),
                    product(shape));
    std::string reg = "v" + std::to_string(registers.size());
    out << "const " << registerType(type) << " " << reg << " = " << *expr
        << ";\n";
    registers[result] = reg;
    // Values read outside the kernel reach memory.
    if (storeValues && emitter.reachesMemory(result)) {
      std::string member = getParams().add(result, /*writes=*/true);
      out << storeHeldStmt(type, member, index, reg) << "\n";
    }
    return success();
  }

private:
  StepEmitter &emitter;
  Functor &functor;
  ArrayRef<int64_t> shape;
  SmallVector<int64_t> strides;
  llvm::SmallBitVector haveCoord;
  raw_ostream &out;
  std::string index;
  bool storeValues;
  llvm::DenseMap<Value, std::string> registers;
};

LogicalResult StepEmitter::emitElementwise(ArrayRef<Operation *> ops) {
  ArrayRef<int64_t> shape = tensorOf(ops.back()->getResult(0)).getShape();
  Functor functor(*this, kernelName(ops), ops);
  ElementwiseKernel kernel(*this, functor, shape, functor.body());
  for (Operation *op : ops)
    if (failed(kernel.compute(op)))
      return failure();
  functor.launch(product(shape));
  return success();
}

LogicalResult StepEmitter::emitCasts(ArrayRef<Operation *> casts) {
  // The tensors laid end to end: index i falls in tensor t, where
  // starts[t] <= i < starts[t + 1] (amprt::lastStartAtOrBelow), its
  // element i - starts[t] rounded and stored as a kernel of the one cast
  // would.
  std::string name = kernelName({casts.front()}) + "s";
  Type from = elementOf(casts.front()->getOperand(0));
  Type to = elementOf(casts.front()->getResult(0));
  SmallVector<std::string> inputs, outputs, starts{"0"};
  SmallVector<std::pair<Value, bool>> touched;
  int64_t total = 0;
  for (Operation *cast : casts) {
    inputs.push_back(pointerOf(cast->getOperand(0), false));
    outputs.push_back(pointerOf(cast->getResult(0), true));
    total += countOf(cast->getResult(0));
    starts.push_back(std::to_string(total));
    touched.push_back({cast->getOperand(0), false});
    touched.push_back({cast->getResult(0), true});
  }
  raw_indented_ostream &d = defs();
  d << "// " << name << ": " << casts.size() << " casts in one launch\n";
  for (Operation *cast : casts)
    d << commentLines("  " + describe(cast), 0);
  d << "struct " << name << " {\n";
  d.indent() << "ampstep::In<" << storageType(from) << "> from[" << casts.size()
             << "];\n"
             << "ampstep::Out<" << storageType(to) << "> to[" << casts.size()
             << "];\n"
             << "int64_t starts[" << casts.size() + 1 << "];\n"
             << "AMP_HOST_DEVICE void operator()(int64_t i) const {\n";
  d.indent() << "const int64_t t = amprt::lastStartAtOrBelow(starts, "
             << casts.size() << ", i);\n"
             << "const int64_t j = i - starts[t];\n"
             << storeHeldStmt(to, "to[t]", "j",
                              roundExpr(to, loadExpr(from, "from[t]", "j")))
             << "\n";
  d.unindent() << "}\n";
  d.unindent() << "};\n\n";
  step() << "AMP_STEP_CHECK(ampstep::launch(stream, \"" << name << "\", "
         << total << ", " << name << "{{" << llvm::join(inputs, ", ") << "}, {"
         << llvm::join(outputs, ", ") << "}, {" << llvm::join(starts, ", ")
         << "}}));\n";

  KernelCost cost;
  cost.name = name;
  cost.functor = name;
  cost.strategy = "elementwise";
  amprt::Grid grid = amprt::elementGrid(total);
  cost.blocks = grid.blocks;
  cost.threads = grid.threads;
  recordLaunch(std::move(cost), touched);
  return success();
}

FailureOr<std::string>
StepEmitter::emitElementwiseAt(Functor &functor, ArrayRef<Operation *> ops,
                               StringRef index, raw_ostream &out,
                               ArrayRef<std::pair<Value, std::string>> known,
                               bool storeValues) {
  Value last = ops.back()->getResult(0);
  ElementwiseKernel kernel(*this, functor, tensorOf(last).getShape(), out,
                           index, storeValues);
  for (const auto &[value, reg] : known)
    kernel.bind(value, reg);
  for (Operation *op : ops)
    if (failed(kernel.compute(op)))
      return failure();
  return kernel.operand(last);
}

//===----------------------------------------------------------------------===//
// The ops' expressions
//===----------------------------------------------------------------------===//

namespace {

/// The register type of `op`'s result.
std::string resultRegister(Operation *op) {
  return registerType(elementOf(op->getResult(0)));
}

/// `formula` computed in the register type and rounded to the result type.
std::string rounded(Operation *op, StringRef formula) {
  return roundExpr(elementOf(op->getResult(0)), formula);
}

FailureOr<std::string> scalarExpr(ConstantOp op, ElementwiseKernel &kernel) {
  Type type = elementOf(op.getResult());
  auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
  if (!dense)
    return op->emitError() << "the backend compiles dense constants only";
  if (dense.isSplat()) {
    double v =
        isa<FloatType>(type)
            ? dense.getSplatValue<APFloat>().convertToDouble()
            : static_cast<double>(dense.getSplatValue<APInt>().getSExtValue());
    return literal(v, registerType(type));
  }
  // An array of the library; each element read where the kernel's index
  // falls in the constant's (broadcast) shape.
  std::string data = kernel.getEmitter().constantArray(op, dense);
  std::string member =
      kernel.getParams().addRaw("table", "const " + storageType(type),
                                "ampstep::constantData(" + data + ")");
  return loadExpr(type, member, kernel.indexOf(op.getResult()));
}

FailureOr<std::string> scalarExpr(IotaOp op, ElementwiseKernel &kernel) {
  return rounded(op, "static_cast<double>(" + kernel.coord(op.getDim()) + ")");
}

FailureOr<std::string> scalarExpr(CastOp op, ElementwiseKernel &kernel) {
  std::string x = kernel.operand(op.getInput());
  Type type = elementOf(op.getResult());
  if (type.isF32() && elementOf(op.getInput()).isF64())
    return "static_cast<float>(" + x + ")";
  return roundExpr(type, x);
}

FailureOr<std::string> scalarExpr(BroadcastToOp op, ElementwiseKernel &kernel) {
  return kernel.operand(op->getOperand(0));
}

FailureOr<std::string> scalarExpr(CompareOp op, ElementwiseKernel &kernel) {
  static const char *const symbols[] = {"==", "!=", "<", "<=", ">", ">="};
  return "(" + kernel.operand(op.getLhs()) + " " +
         symbols[static_cast<int>(op.getPredicate())] + " " +
         kernel.operand(op.getRhs()) + ")";
}

FailureOr<std::string> scalarExpr(SelectOp op, ElementwiseKernel &kernel) {
  return "(" + kernel.operand(op.getCondition()) + " ? " +
         kernel.operand(op.getOnTrue()) + " : " +
         kernel.operand(op.getOnFalse()) + ")";
}

FailureOr<std::string> scalarExpr(ReluGradOp op, ElementwiseKernel &kernel) {
  std::string x = kernel.operand(op->getOperand(0));
  std::string g = kernel.operand(op->getOperand(1));
  return "(" + x + " > 0 ? " + g + " : " + resultRegister(op) + "(0))";
}

FailureOr<std::string> scalarExpr(GeluGradOp op, ElementwiseKernel &kernel) {
  std::string x = kernel.operand(op->getOperand(0));
  std::string g = kernel.operand(op->getOperand(1));
  StringRef derivative = op.getApproximate() == GeluApproximation::tanh
                             ? "amprt::geluTanhGrad"
                             : "amprt::geluErfGrad";
  return rounded(op, g + " * " + derivative.str() + "(" + x + ")");
}

/// random.h's dropout at the op's own index, the generator state read
/// from memory (both words, whatever the kernel's index).
FailureOr<std::string> scalarExpr(DropoutOp op, ElementwiseKernel &kernel) {
  std::string x = kernel.operand(op.getInput());
  if (!op.getTraining())
    return x;
  double p = op.getP().convertToDouble();
  std::string rng = kernel.getParams().add(op.getRng(), /*writes=*/false);
  Type word = elementOf(op.getRng());
  std::string t = resultRegister(op);
  return rounded(op, "amprt::dropout<" + t + ">(" + x + ", " +
                         loadExpr(word, rng, "0") + ", " +
                         loadExpr(word, rng, "1") + ", " +
                         std::to_string(op.getStream()) + ", " +
                         kernel.indexOf(op.getResult()) + ", " +
                         std::to_string(amprt::dropoutThreshold(p)) + "u, " +
                         literal(1.0 / (1.0 - p), t) + ")");
}

/// [seed, pass + 1], with the unsigned wrap-around of 2^64.
FailureOr<std::string> scalarExpr(RngAdvanceOp op, ElementwiseKernel &kernel) {
  std::string x = kernel.operand(op.getRng());
  return "(" + kernel.indexOf(op.getResult()) +
         " == 1 ? static_cast<int64_t>(static_cast<uint64_t>(" + x +
         ") + 1u) : " + x + ")";
}

/// A binary op: `lhs <symbol> rhs`, or a call `function(lhs, rhs)`.
template <typename Op>
FailureOr<std::string> binary(Op op, ElementwiseKernel &kernel, StringRef infix,
                              StringRef function = "") {
  std::string a = kernel.operand(op.getLhs());
  std::string b = kernel.operand(op.getRhs());
  if (!function.empty())
    return rounded(op, function.str() + "(" + a + ", " + b + ")");
  return rounded(op, a + " " + infix.str() + " " + b);
}

FailureOr<std::string> scalarExpr(AddOp op, ElementwiseKernel &kernel) {
  return binary(op, kernel, "+");
}
FailureOr<std::string> scalarExpr(SubOp op, ElementwiseKernel &kernel) {
  return binary(op, kernel, "-");
}
FailureOr<std::string> scalarExpr(MulOp op, ElementwiseKernel &kernel) {
  return binary(op, kernel, "*");
}
FailureOr<std::string> scalarExpr(DivOp op, ElementwiseKernel &kernel) {
  return binary(op, kernel, "/");
}
FailureOr<std::string> scalarExpr(MaximumOp op, ElementwiseKernel &kernel) {
  return binary(op, kernel, "", "ampstep::nanMax");
}
FailureOr<std::string> scalarExpr(MinimumOp op, ElementwiseKernel &kernel) {
  return binary(op, kernel, "", "ampstep::nanMin");
}

/// A unary op whose value is `formula(x, t)` for its operand's register x
/// and its register type t.
template <typename Op, typename Formula>
FailureOr<std::string> unary(Op op, ElementwiseKernel &kernel,
                             Formula &&formula) {
  std::string x = kernel.operand(op->getOperand(0));
  return rounded(op, formula(x, resultRegister(op)));
}

/// `function(x)` from the C library, by register type.
template <typename Op>
FailureOr<std::string> libm(Op op, ElementwiseKernel &kernel,
                            StringRef function) {
  return unary(op, kernel, [&](const std::string &x, const std::string &t) {
    return math(function, t) + "(" + x + ")";
  });
}

FailureOr<std::string> scalarExpr(NegOp op, ElementwiseKernel &kernel) {
  return unary(op, kernel, [](const std::string &x, const std::string &) {
    return "-" + x;
  });
}
FailureOr<std::string> scalarExpr(StopGradientOp op,
                                  ElementwiseKernel &kernel) {
  return unary(op, kernel,
               [](const std::string &x, const std::string &) { return x; });
}
FailureOr<std::string> scalarExpr(AbsOp op, ElementwiseKernel &kernel) {
  return libm(op, kernel, "fabs");
}
// exp and tanh are scalar_math.h's, as the interpreter's: the same bits
// on every target, and loops over them vectorize on the host.
FailureOr<std::string> scalarExpr(ExpOp op, ElementwiseKernel &kernel) {
  return unary(op, kernel, [](const std::string &x, const std::string &) {
    return "amprt::math::exp(" + x + ")";
  });
}
FailureOr<std::string> scalarExpr(LogOp op, ElementwiseKernel &kernel) {
  return libm(op, kernel, "log");
}
FailureOr<std::string> scalarExpr(SqrtOp op, ElementwiseKernel &kernel) {
  return libm(op, kernel, "sqrt");
}
FailureOr<std::string> scalarExpr(TanhOp op, ElementwiseKernel &kernel) {
  return unary(op, kernel, [](const std::string &x, const std::string &) {
    return "amprt::math::tanh(" + x + ")";
  });
}
FailureOr<std::string> scalarExpr(RsqrtOp op, ElementwiseKernel &kernel) {
  return unary(op, kernel, [](const std::string &x, const std::string &) {
    return "amprt::rsqrt(" + x + ")";
  });
}
FailureOr<std::string> scalarExpr(SigmoidOp op, ElementwiseKernel &kernel) {
  return unary(op, kernel, [](const std::string &x, const std::string &) {
    return "amprt::sigmoid(" + x + ")";
  });
}
FailureOr<std::string> scalarExpr(SoftplusOp op, ElementwiseKernel &kernel) {
  return unary(op, kernel, [](const std::string &x, const std::string &) {
    return "amprt::softplus(" + x + ")";
  });
}
FailureOr<std::string> scalarExpr(ReluOp op, ElementwiseKernel &kernel) {
  return unary(op, kernel, [](const std::string &x, const std::string &) {
    return "amprt::relu(" + x + ")";
  });
}
FailureOr<std::string> scalarExpr(GeluOp op, ElementwiseKernel &kernel) {
  bool tanh = op.getApproximate() == GeluApproximation::tanh;
  return unary(op, kernel, [&](const std::string &x, const std::string &) {
    return (tanh ? "amprt::geluTanh(" : "amprt::geluErf(") + x + ")";
  });
}
FailureOr<std::string> scalarExpr(PowOp op, ElementwiseKernel &kernel) {
  double exponent = op.getExponent().convertToDouble();
  return unary(op, kernel, [&](const std::string &x, const std::string &t) {
    return math("pow", t) + "(" + x + ", " + literal(exponent, t) + ")";
  });
}

//===----------------------------------------------------------------------===//
// The ops' work per element
//===----------------------------------------------------------------------===//

// As XLA counts: an arithmetic op, a comparison or a choice is a FLOP, a
// function of the C library (or of scalar_math.h built on one) a
// transcendental; moving or converting a value is no work. Composite
// formulas are counted in their expressions above and in scalar_math.h.

/// An op of one FLOP per element.
template <typename Op>
struct ScalarModel
    : ScalarKernelOpInterface::ExternalModel<ScalarModel<Op>, Op> {
  FailureOr<std::string> getScalarExpr(Operation *op,
                                       ElementwiseKernel &kernel) const {
    return scalarExpr(cast<Op>(op), kernel);
  }
};

template <typename... Ops> void attach(MLIRContext &context) {
  (Ops::template attachInterface<ScalarModel<Ops>>(context), ...);
}

} // namespace

void cuda::attachElementwiseModels(MLIRContext &context) {
  attach<ConstantOp, IotaOp, CastOp, BroadcastToOp, CompareOp, SelectOp,
         DropoutOp, RngAdvanceOp, ReluGradOp, GeluGradOp, AddOp, SubOp, MulOp,
         DivOp, MaximumOp, MinimumOp, NegOp, AbsOp, StopGradientOp, ExpOp,
         LogOp, SqrtOp, TanhOp, RsqrtOp, SigmoidOp, SoftplusOp, ReluOp, GeluOp,
         PowOp>(context);
}
