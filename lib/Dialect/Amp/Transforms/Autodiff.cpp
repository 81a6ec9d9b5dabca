//===- Autodiff.cpp - --amp-autodiff --------------------------------------===//
//
// Reverse-mode differentiation of a scalar loss with respect to the
// parameters. The function is cloned into @<name>_grad; the backward ops are
// appended in reverse program order, asking each op for its VJP.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/IR/AmpOps.h"
#include "amp/Dialect/Amp/Transforms/ArgumentNames.h"
#include "amp/Dialect/Amp/Transforms/Buffers.h"
#include "amp/Dialect/Amp/Transforms/GradientFunction.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"
#include "amp/Dialect/Amp/Transforms/VJP.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPAUTODIFF
#define GEN_PASS_DEF_AMPEXPANDGRADS
#include "amp/Dialect/Amp/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

static bool isScalarFloat(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getRank() == 0 &&
         isa<FloatType>(tensor.getElementType());
}

static bool isFloatTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && isa<FloatType>(tensor.getElementType());
}

/// Whether `func` has a parameter argument.
static bool hasParameters(func::FuncOp func) {
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    if (func.getArgAttr(i, AmpDialect::kParamAttrName))
      return true;
  return false;
}

/// Builds @<name>_grad next to `func`.
/// Whether `value` is a constant of zeros.
static bool isZeros(Value value) {
  auto constant = value.getDefiningOp<ConstantOp>();
  if (!constant)
    return false;
  auto splat = dyn_cast<SplatElementsAttr>(constant.getValue());
  return splat && isa<FloatType>(splat.getElementType()) &&
         splat.getSplatValue<APFloat>().isZero();
}

/// The sum of two gradients that are zero-padded pieces of one tensor's (a
/// slice's vector-Jacobian product pads with zeros: a fused QKV
/// projection's gradient is the concat of those of q, k and v) as one
/// concat of their pieces, where along the same dimension no part of the
/// tensor has a non-zero piece in both; null otherwise.
static Value mergePadded(OpBuilder &builder, Value a, Value b) {
  auto left = a.getDefiningOp<ConcatOp>();
  auto right = b.getDefiningOp<ConcatOp>();
  if (!left || !right || left.getType() != right.getType() ||
      left.getDim() != right.getDim())
    return {};
  int64_t dim = left.getDim();
  struct Piece {
    int64_t begin, end;
    Value value;
  };
  auto piecesOf = [&](ConcatOp concat) {
    SmallVector<Piece> pieces;
    int64_t at = 0;
    for (Value operand : concat->getOperands()) {
      int64_t size = cast<RankedTensorType>(operand.getType()).getDimSize(dim);
      pieces.push_back({at, at + size, isZeros(operand) ? Value() : operand});
      at += size;
    }
    return pieces;
  };
  SmallVector<Piece> sides[2] = {piecesOf(left), piecesOf(right)};
  auto pieceAt = [](ArrayRef<Piece> pieces, int64_t at) {
    return *llvm::find_if(pieces, [&](const Piece &p) { return p.end > at; });
  };
  auto zeroOver = [](ArrayRef<Piece> pieces, int64_t begin, int64_t end) {
    return llvm::all_of(pieces, [&](const Piece &p) {
      return !p.value || p.end <= begin || p.begin >= end;
    });
  };
  // From the start: a non-zero piece of one side where the other is zero
  // over it, else zeros up to the nearer end of the two pieces there.
  RankedTensorType type = left.getType();
  int64_t total = type.getDimSize(dim);
  SmallVector<Value> merged;
  int64_t zerosFrom = -1;
  auto flushZeros = [&](int64_t end) {
    if (zerosFrom < 0)
      return;
    SmallVector<int64_t> shape(type.getShape());
    shape[dim] = end - zerosFrom;
    auto zeros = RankedTensorType::get(shape, type.getElementType());
    merged.push_back(builder.create<ConstantOp>(
        left.getLoc(),
        DenseElementsAttr::get(
            zeros,
            builder.getFloatAttr(type.getElementType(), 0.0).getValue())));
    zerosFrom = -1;
  };
  for (int64_t at = 0; at < total;) {
    Piece here[2] = {pieceAt(sides[0], at), pieceAt(sides[1], at)};
    if (here[0].value && here[1].value)
      return {};
    if (!here[0].value && !here[1].value) {
      if (zerosFrom < 0)
        zerosFrom = at;
      at = std::min(here[0].end, here[1].end);
      continue;
    }
    int s = here[0].value ? 0 : 1;
    if (here[s].begin != at || !zeroOver(sides[1 - s], at, here[s].end))
      return {};
    flushZeros(at);
    merged.push_back(here[s].value);
    at = here[s].end;
  }
  flushZeros(total);
  return builder.create<ConcatOp>(left.getLoc(), type, merged,
                                  builder.getI64IntegerAttr(dim));
}

/// Names each part of the loss that `func` returns after it (its results
/// after the first) with `amp.name`: the name it already has, else the SSA
/// name the source gives the returned value (`%ce = ...` gives "ce"), else
/// "loss_part<k>".
static void nameLossParts(func::FuncOp func) {
  if (func.getNumResults() < 2)
    return;
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  llvm::DenseMap<Value, StringRef> sourceNames;
  llvm::StringMap<Value> byName = getValuesBySourceName(func);
  for (const auto &entry : byName)
    sourceNames.try_emplace(entry.getValue(), entry.getKey());
  for (unsigned k = 1, e = func.getNumResults(); k < e; ++k) {
    if (func.getResultAttr(k, AmpDialect::kNameAttrName))
      continue;
    Value part = ret.getOperand(k);
    StringRef name = sourceNames.lookup(part);
    if (auto arg = dyn_cast<BlockArgument>(part))
      name = getArgumentName(func, arg.getArgNumber());
    // A name another result holds (one value returned twice): this one
    // by its position, made unique where a given name is that too.
    auto taken = [&](StringRef text) {
      for (unsigned j = 1; j < e; ++j)
        if (auto other = func.getResultAttrOfType<StringAttr>(
                j, AmpDialect::kNameAttrName);
            j != k && other && other.getValue() == text)
          return true;
      return false;
    };
    std::string text = name.str();
    for (unsigned n = 0; text.empty() || taken(text); ++n)
      text = "loss_part" + std::to_string(k) +
             (n ? "_" + std::to_string(n) : std::string());
    func.setResultAttr(k, AmpDialect::kNameAttrName,
                       StringAttr::get(func.getContext(), text));
  }
}

/// Checks that no two training dropouts of `func` draw the same mask: the
/// same generator state and stream would drop the same elements (of equal
/// shapes), which no model means. Reported at the second.
static LogicalResult checkDropoutStreams(func::FuncOp func) {
  DenseMap<std::pair<Value, int64_t>, DropoutOp> drawn;
  WalkResult walk = func.walk([&](DropoutOp dropout) {
    if (!dropout.getTraining())
      return WalkResult::advance();
    auto [it, inserted] =
        drawn.try_emplace({dropout.getRng(), dropout.getStream()}, dropout);
    if (inserted)
      return WalkResult::advance();
    InFlightDiagnostic diag =
        dropout.emitOpError()
        << "draws stream " << dropout.getStream()
        << " of a generator that an earlier dropout draws too, and would "
           "drop the same elements; amp-autodiff needs each training "
           "dropout on its own stream";
    diag.attachNote(it->second.getLoc()) << "the earlier dropout";
    return WalkResult::interrupt();
  });
  return failure(walk.wasInterrupted());
}

/// Why amp-autodiff cannot differentiate `func` into @`name`, if it
/// cannot: its results, its blocks, the name taken, its dropouts.
static LogicalResult checkModel(func::FuncOp func, SymbolTable &symbols,
                                StringRef name) {
  ArrayRef<Type> results = func.getResultTypes();
  // The loss, then any parts of it to report (its terms, an accuracy):
  // only the first is differentiated.
  if (results.empty() || !llvm::all_of(results, isScalarFloat)) {
    auto bad = llvm::find_if_not(results, isScalarFloat);
    InFlightDiagnostic diag = emitError(func.getLoc())
                              << "amp-autodiff: @" << func.getSymName()
                              << " must return its loss, a 0-d floating-point "
                                 "tensor, then any parts of it as 0-d "
                                 "floating-point tensors; it returns ";
    if (results.empty())
      return diag << "nothing";
    return diag << *bad << " as result #" << (bad - results.begin());
  }
  if (!llvm::hasSingleElement(func.getBody()))
    return func.emitError("amp-autodiff handles single-block functions only");
  if (symbols.lookup(name))
    return emitError(func.getLoc())
           << "amp-autodiff: @" << name << " already exists";
  if (failed(checkDropoutStreams(func)))
    return failure();
  return success();
}

/// Marks `op`'s float results active where it reads an active value: the
/// values that depend on what is differentiated.
static void markActive(Operation *op, llvm::DenseSet<Value> &active) {
  if (llvm::any_of(op->getOperands(),
                   [&](Value v) { return active.contains(v); }))
    for (Value result : op->getResults())
      if (isFloatTensor(result.getType()))
        active.insert(result);
}

/// The backward `call`'s callee names (amp.custom_vjp), checked against
/// the callee's signature; null where it names none; failure (reported)
/// where the callee has no body or the backward is missing or does not
/// fit.
static FailureOr<func::FuncOp> getCustomVJP(func::CallOp call,
                                            StringRef subject) {
  auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
      call, call.getCalleeAttr());
  if (!callee || callee.isExternal())
    return call.emitOpError()
           << "calls @" << call.getCallee()
           << ", which has no body; amp-autodiff cannot differentiate "
           << subject << " through it";
  auto name =
      callee->getAttrOfType<FlatSymbolRefAttr>(AmpDialect::kCustomVJPAttrName);
  if (!name)
    return func::FuncOp();
  auto backward =
      SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(callee, name);
  if (!backward || backward.isExternal())
    return callee.emitError()
           << "amp-autodiff: the backward of @" << callee.getSymName() << ", @"
           << name.getValue() << ", is "
           << (backward ? "a declaration without a body" : "not a function");
  // Its arguments, its results, then the gradients of its float results;
  // one gradient per float argument back.
  SmallVector<Type> takes(callee.getArgumentTypes());
  llvm::append_range(takes, callee.getResultTypes());
  SmallVector<Type> gives;
  for (Type type : callee.getResultTypes())
    if (isFloatTensor(type))
      takes.push_back(type);
  for (Type type : callee.getArgumentTypes())
    if (isFloatTensor(type))
      gives.push_back(type);
  if (backward.getArgumentTypes() != ArrayRef<Type>(takes) ||
      backward.getResultTypes() != ArrayRef<Type>(gives))
    return backward.emitError()
           << "amp-autodiff: @" << backward.getSymName()
           << ", the backward of @" << callee.getSymName() << ", has type "
           << formatTypes(backward.getArgumentTypes()) << " -> "
           << formatTypes(backward.getResultTypes())
           << "; it must take the arguments, the results and the float "
              "results' gradients, "
           << formatTypes(takes) << ", and return the float arguments' "
           << formatTypes(gives);
  return backward;
}

/// Builds the vector-Jacobian products of `forward`'s ops in reverse, from
/// the gradients in `grads` (the seed's), for the ops that read an `active`
/// value, summing each value's contributions into `grads`. `subject` names
/// what is differentiated in errors ("@f").
static LogicalResult propagate(StringRef subject, ArrayRef<Operation *> forward,
                               OpBuilder &builder,
                               llvm::DenseSet<Value> &active,
                               llvm::DenseMap<Value, Value> &grads) {
  auto accumulate = [&](Value value, Value contribution) {
    auto [it, inserted] = grads.try_emplace(value, contribution);
    if (inserted)
      return;
    if (Value merged = mergePadded(builder, it->second, contribution))
      it->second = merged;
    else
      it->second = builder.create<AddOp>(contribution.getLoc(), it->second,
                                         contribution);
  };

  for (Operation *op : llvm::reverse(forward)) {
    SmallVector<Value> resultGrads;
    bool any = false;
    for (Value result : op->getResults()) {
      Value g = grads.lookup(result);
      resultGrads.push_back(g);
      any |= static_cast<bool>(g);
    }
    bool feedsParams = llvm::any_of(
        op->getOperands(), [&](Value v) { return active.contains(v); });
    if (!any || !feedsParams)
      continue;
    // `op` replaced by the ops written just before it (`previous` was
    // before them), whose results `values` are its results': those ops are
    // differentiated instead.
    auto differentiateInstead = [&](Operation *previous, Block *block,
                                    ArrayRef<Value> values) {
      SmallVector<Operation *> written;
      for (Operation *step = previous ? previous->getNextNode()
                                      : &block->front();
           step != op; step = step->getNextNode())
        written.push_back(step);
      for (Operation *step : written)
        markActive(step, active);
      for (auto [result, value] : llvm::zip(op->getResults(), values)) {
        if (result.use_empty())
          continue;
        result.replaceAllUsesWith(value);
        if (Value g = grads.lookup(result)) {
          grads.erase(result);
          accumulate(value, g);
        }
      }
      op->erase();
      return propagate(subject, written, builder, active, grads);
    };
    if (auto call = dyn_cast<func::CallOp>(op)) {
      FailureOr<func::FuncOp> backward = getCustomVJP(call, subject);
      if (failed(backward))
        return failure();
      if (*backward) {
        // The function's own backward, from its arguments, its results and
        // their gradients (zeros for a result nothing read).
        SmallVector<Value> operands(call.getOperands());
        operands.append(call.getResults().begin(), call.getResults().end());
        for (auto [result, g] : llvm::zip(call.getResults(), resultGrads)) {
          if (!isFloatTensor(result.getType()))
            continue;
          auto type = cast<RankedTensorType>(result.getType());
          if (!g)
            g = builder.create<ConstantOp>(
                call.getLoc(),
                DenseElementsAttr::get(
                    type, builder.getFloatAttr(type.getElementType(), 0.0)
                              .getValue()));
          else if (g.getType() != type)
            g = builder.create<CastOp>(call.getLoc(), type, g);
          operands.push_back(g);
        }
        auto vjp =
            builder.create<func::CallOp>(call.getLoc(), *backward, operands);
        auto next = vjp.getResults().begin();
        for (Value operand : call.getOperands()) {
          if (!isFloatTensor(operand.getType()))
            continue;
          Value g = *next++;
          if (active.contains(operand))
            accumulate(operand, g);
        }
        continue;
      }
      // Any other function through its body, written in place of the
      // call (a custom backward differentiated again, for a second order).
      auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
          call, call.getCalleeAttr());
      // Each body written out may call another: a chain this long is a
      // function that calls itself.
      static thread_local unsigned inlined = 0;
      constexpr unsigned kMaxInlined = 64;
      if (inlined == kMaxInlined)
        return call.emitOpError()
               << "calls @" << call.getCallee() << " through more than "
               << kMaxInlined
               << " nested calls without amp.custom_vjp (a function that "
                  "calls itself?); amp-autodiff writes each call's body out "
                  "to differentiate "
               << subject;
      struct Depth {
        unsigned &count;
        ~Depth() { --count; }
      } depth{++inlined};
      Operation *previous = call->getPrevNode();
      IRMapping mapping;
      Block &body = callee.getBody().front();
      mapping.map(body.getArguments(), call.getOperands());
      OpBuilder inliner(call);
      for (Operation &inner : body.without_terminator())
        inliner.clone(inner, mapping);
      SmallVector<Value> values;
      for (Value returned : body.getTerminator()->getOperands())
        values.push_back(mapping.lookupOrDefault(returned));
      if (failed(differentiateInstead(previous, call->getBlock(), values)))
        return failure();
      continue;
    }
    auto differentiable = dyn_cast<DifferentiableOpInterface>(op);
    if (!differentiable) {
      // A gradient op without a closed-form VJP is written as
      // differentiable steps in its place, which are differentiated
      // instead.
      Operation *previous = op->getPrevNode();
      Block *block = op->getBlock();
      if (std::optional<SmallVector<Value, 3>> steps =
              writeDifferentiableSteps(op)) {
        if (failed(differentiateInstead(previous, block, *steps)))
          return failure();
        continue;
      }
      return op->emitOpError()
             << "has no vector-Jacobian product; amp-autodiff cannot "
                "differentiate "
             << subject << " through it";
    }
    SmallVector<Value> operandGrads;
    if (failed(differentiable.buildVJP(builder, resultGrads, operandGrads)))
      return failure();
    for (auto [operand, g] : llvm::zip(op->getOperands(), operandGrads))
      if (g && active.contains(operand))
        accumulate(operand, g);
  }
  return success();
}

/// Erases the backward ops built for values that needed no gradient; the
/// seed stays even when no parameter needed it: amp-loss-scaling replaces
/// it.
static void eraseDeadBackward(Block &body) {
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator())
    ops.push_back(&op);
  for (Operation *op : llvm::reverse(ops))
    if (op->use_empty() && isPure(op) &&
        !op->hasAttr(AmpDialect::kSeedAttrName))
      op->erase();
}

/// Delayed FP8 scaling (amp-autocast's fp8-scaling=delayed): each FP8 GEMM
/// marked amp.fp8_delayed reads its scales (x, w, the gradient) from buffer
/// `<p>.fp8_scale`. After the backward pass, the amaxes of its operands and
/// of the gradient its backward GEMMs read update that state, with
/// `<p>.fp8_amax_history` and `<p>.fp8_overflows`, before `end`: the
/// buffers' next values. Each amax is taken where its tensor is read.
static LogicalResult addFp8ScalingUpdates(func::FuncOp grad, Operation *end) {
  Block &body = grad.getBody().front();
  llvm::StringMap<BlockArgument> byName;
  for (BlockArgument arg : body.getArguments())
    if (StringRef name = getArgumentName(grad, arg.getArgNumber());
        !name.empty())
      byName[name] = arg;
  SmallVector<MatmulOp> gemms;
  grad.walk([&](MatmulOp matmul) {
    if (matmul->hasAttr(kFp8DelayedAttrName))
      gemms.push_back(matmul);
  });
  OpBuilder b(grad.getContext());
  constexpr StringLiteral kScaleSuffix = ".fp8_scale";
  llvm::DenseSet<Value> seen;
  for (MatmulOp gemm : gemms) {
    auto scales = dyn_cast<BlockArgument>(gemm.getScales());
    StringRef name = scales && scales.getOwner() == &body
                         ? getArgumentName(grad, scales.getArgNumber())
                         : StringRef();
    ArrayRef<int64_t> index = *gemm.getFp8ScaleIndex();
    if (!name.ends_with(kScaleSuffix) || !gemm.getGradFp8() ||
        index != ArrayRef<int64_t>{0, 1, 2})
      return gemm.emitOpError()
             << "has amp.fp8_delayed, so amp-autodiff updates its scales: "
                "they must be an argument named '<prefix>.fp8_scale' (a "
                "tensor<3xf32>), with fp8_scale_index [0, 1, 2] and a grad_fp8";
    if (!seen.insert(scales).second)
      return gemm.emitOpError()
             << "reads delayed-scaling state '" << name
             << "' that another FP8 GEMM reads too; each FP8 GEMM has its own";
    std::string prefix = name.drop_back(kScaleSuffix.size()).str();
    BlockArgument history = byName.lookup(prefix + ".fp8_amax_history");
    BlockArgument overflows = byName.lookup(prefix + ".fp8_overflows");
    auto historyType = history ? dyn_cast<RankedTensorType>(history.getType())
                               : RankedTensorType();
    if (!history || !overflows || overflows.getType() != scales.getType() ||
        !historyType || historyType.getRank() != 2 ||
        historyType.getDimSize(1) != 3)
      return gemm.emitOpError()
             << "has amp.fp8_delayed, and its function lacks the state beside '"
             << name << "': '" << prefix
             << ".fp8_amax_history' (tensor<Hx3xf32>) and '" << prefix
             << ".fp8_overflows' (tensor<3xf32>)";
    Location loc = gemm.getLoc();
    b.setInsertionPointAfter(gemm);
    Value lhsAmax = b.create<Fp8AmaxOp>(loc, gemm.getLhs());
    Value rhsAmax = b.create<Fp8AmaxOp>(loc, gemm.getRhs());
    // The gradient: the operand at scale 2 of the first backward GEMM.
    Value gradAmax;
    for (Operation &op : body) {
      auto backward = dyn_cast<MatmulOp>(&op);
      if (!backward || backward == gemm || backward.getScales() != scales)
        continue;
      ArrayRef<int64_t> positions = *backward.getFp8ScaleIndex();
      Value gradient = positions[0] == 2   ? backward.getLhs()
                       : positions[1] == 2 ? backward.getRhs()
                                           : Value();
      if (!gradient)
        continue;
      b.setInsertionPoint(backward);
      gradAmax = b.create<Fp8AmaxOp>(loc, gradient);
      break;
    }
    b.setInsertionPoint(end);
    if (!gradAmax) // no backward GEMM: an amax of 0 keeps its scale
      gradAmax = b.create<ConstantOp>(
          loc, DenseElementsAttr::get(RankedTensorType::get({}, b.getF32Type()),
                                      b.getF32FloatAttr(0.0f).getValue()));
    auto recipe = gemm->getAttrOfType<DictionaryAttr>(kFp8DelayedAttrName);
    bool mostRecent =
        recipe.getAs<StringAttr>("amax_compute").getValue() == "most_recent";
    b.create<Fp8ScalingUpdateOp>(
        loc, scales.getType(), history.getType(), overflows.getType(), scales,
        history, overflows, ValueRange{lhsAmax, rhsAmax, gradAmax},
        b.getArrayAttr({gemm.getLhsFp8Attr(), gemm.getRhsFp8Attr(),
                        gemm.getGradFp8Attr()}),
        recipe.getAs<FloatAttr>("margin"),
        mostRecent ? b.getUnitAttr() : UnitAttr());
  }
  return success();
}

static LogicalResult differentiate(func::FuncOp func, SymbolTable &symbols) {
  std::string name = (func.getSymName() + "_grad").str();
  if (failed(checkModel(func, symbols, name)))
    return failure();
  nameLossParts(func);

  SmallVector<unsigned> params;
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    if (func.getArgAttr(i, AmpDialect::kParamAttrName))
      params.push_back(i);

  OpBuilder builder(func);
  builder.setInsertionPointAfter(func);
  auto grad = cast<func::FuncOp>(builder.clone(*func));
  grad.setSymName(name);
  grad->setAttr(AmpDialect::kGradientOfAttrName,
                FlatSymbolRefAttr::get(func.getSymNameAttr()));
  Block &body = grad.getBody().front();
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  Value loss = ret.getOperand(0);
  SmallVector<Value> parts(ret.getOperands().drop_front());

  // Which values depend on a parameter: only those get gradients.
  llvm::DenseSet<Value> active;
  for (unsigned i : params)
    active.insert(body.getArgument(i));
  for (Operation &op : body.without_terminator())
    markActive(&op, active);

  builder.setInsertionPoint(ret);
  llvm::DenseMap<Value, Value> grads;
  auto seedType = cast<RankedTensorType>(loss.getType());
  auto seed = builder.create<ConstantOp>(
      ret.getLoc(),
      DenseElementsAttr::get(
          seedType,
          builder.getFloatAttr(seedType.getElementType(), 1.0).getValue()));
  seed->setAttr(AmpDialect::kSeedAttrName, builder.getUnitAttr());
  grads[loss] = seed;
  SmallVector<Operation *> forward;
  for (Operation &op : body.without_terminator())
    forward.push_back(&op);
  if (failed(propagate("@" + func.getSymName().str(), forward, builder, active,
                       grads)))
    return failure();

  SmallVector<Value> returned{loss};
  SmallVector<Type> returnedTypes{loss.getType()};
  for (unsigned i : params) {
    BlockArgument arg = body.getArgument(i);
    Value g = grads.lookup(arg);
    if (!g) {
      // The loss does not depend on this parameter.
      auto type = cast<RankedTensorType>(arg.getType());
      g = builder.create<ConstantOp>(
          ret.getLoc(),
          DenseElementsAttr::get(
              type,
              builder.getFloatAttr(type.getElementType(), 0.0).getValue()));
    }
    returned.push_back(g);
    returnedTypes.push_back(arg.getType());
  }
  for (Value part : parts) {
    returned.push_back(part);
    returnedTypes.push_back(part.getType());
  }
  // Then each buffer's next value, which the forward pass computed (or,
  // for delayed FP8 scaling, the update after the backward pass).
  if (failed(addFp8ScalingUpdates(grad, ret)))
    return failure();
  FailureOr<SmallVector<Value>> buffers =
      getBufferUpdates(grad, "amp-autodiff");
  if (failed(buffers))
    return failure();
  for (Value next : *buffers) {
    returned.push_back(next);
    returnedTypes.push_back(next.getType());
  }
  builder.create<func::ReturnOp>(ret.getLoc(), returned);
  ret.erase();
  grad.setFunctionType(
      builder.getFunctionType(grad.getArgumentTypes(), returnedTypes));
  // The parts keep their names; the loss and the gradients have none.
  SmallVector<DictionaryAttr> resultAttrs(returned.size(),
                                          builder.getDictionaryAttr({}));
  for (unsigned k = 0; k < parts.size(); ++k)
    resultAttrs[1 + params.size() + k] = func.getResultAttrDict(1 + k);
  grad.setAllResultAttrs(resultAttrs);

  eraseStopGradients(grad);
  eraseDeadBackward(body);
  return success();
}

/// Writes `grad` as its region's ops, bound to its inputs, and their
/// vector-Jacobian products from a seed of 1 (expandGrads).
static LogicalResult expandGrad(GradOp grad) {
  OpBuilder builder(grad);
  Location loc = grad.getLoc();
  Block &block = grad.getBody().front();
  IRMapping mapping;
  for (auto [argument, input] :
       llvm::zip(block.getArguments(), grad.getInputs()))
    mapping.map(argument, input);
  SmallVector<Operation *> forward;
  for (Operation &op : block.without_terminator())
    forward.push_back(builder.clone(op, mapping));
  Value value = mapping.lookupOrDefault(grad.getYield().getValues()[0]);
  // The backward ops come after this one (null: from the block's start).
  Operation *forwardEnd = grad->getPrevNode();

  // The values that depend on an input through the region's ops.
  llvm::DenseSet<Value> active(grad.getInputs().begin(),
                               grad.getInputs().end());
  for (Operation *op : forward)
    markActive(op, active);
  // The seed is an f32 1 that amp-loss-scaling may replace by the loss
  // scale; each gradient is then divided by it in f32 (f64 for f64), as
  // PyTorch's recipe multiplies the inner gradient of the scaled loss by
  // 1 / scale before the penalty reads it.
  auto seedType = cast<RankedTensorType>(value.getType());
  auto f32 = RankedTensorType::get({}, builder.getF32Type());
  auto f64 = RankedTensorType::get({}, builder.getF64Type());
  auto scale = builder.create<ConstantOp>(
      loc,
      DenseElementsAttr::get(f32, builder.getF32FloatAttr(1.0f).getValue()));
  scale->setAttr(AmpDialect::kInnerSeedAttrName, builder.getUnitAttr());
  Value seed = scale;
  if (seedType != f32)
    seed = builder.create<CastOp>(loc, seedType, scale);
  llvm::DenseMap<Value, Value> grads;
  grads[value] = seed;
  if (failed(propagate("the region of an amp.grad", forward, builder, active,
                       grads)))
    return failure();
  // inv = f32(1 / f64(scale)), GradScaler's inverse.
  Value one = builder.create<ConstantOp>(
      loc,
      DenseElementsAttr::get(f64, builder.getF64FloatAttr(1.0).getValue()));
  Value inverse64 = builder.create<DivOp>(
      loc, one, builder.create<CastOp>(loc, f64, scale).getResult());
  Value inverse32 = builder.create<CastOp>(loc, f32, inverse64);
  SmallVector<Value> results{value};
  for (Value input : grad.getInputs()) {
    Value g = grads.lookup(input);
    if (g) {
      auto type = cast<RankedTensorType>(g.getType());
      bool wide = type.getElementType().isF64();
      Value operand = g;
      if (!wide && !type.getElementType().isF32())
        operand =
            builder.create<CastOp>(loc, type.clone(builder.getF32Type()), g);
      auto unscaled =
          builder.create<MulOp>(loc, operand, wide ? inverse64 : inverse32);
      unscaled->setAttr(AmpDialect::kInnerGradAttrName, builder.getUnitAttr());
      g = unscaled;
      if (g.getType() != input.getType())
        g = builder.create<CastOp>(loc, input.getType(), g);
    }
    if (!g) {
      // The value does not depend on this input.
      auto type = cast<RankedTensorType>(input.getType());
      g = builder.create<ConstantOp>(
          loc,
          DenseElementsAttr::get(
              type,
              builder.getFloatAttr(type.getElementType(), 0.0).getValue()));
    }
    results.push_back(g);
  }
  grad.replaceAllUsesWith(results);
  // The products of values that needed none (a captured value's), from
  // the last back.
  Operation *last = grad->getPrevNode();
  grad.erase();
  for (Operation *op = last; op && op != forwardEnd;) {
    Operation *previous = op->getPrevNode();
    if (op->use_empty() && isPure(op))
      op->erase();
    op = previous;
  }
  return success();
}

LogicalResult amp::expandGrads(Operation *root) {
  // Innermost first: a post-order walk reaches a region's amp.grad before
  // the one that holds it.
  SmallVector<GradOp> grads;
  root->walk([&](GradOp grad) { grads.push_back(grad); });
  for (GradOp grad : grads)
    if (failed(expandGrad(grad)))
      return failure();
  return success();
}

FailureOr<SmallVector<func::FuncOp>>
amp::findModelFunctions(ModuleOp module, StringRef functionName,
                        StringRef pass) {
  SmallVector<func::FuncOp> targets;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    if (!functionName.empty()
            ? func.getSymName() == functionName
            : hasParameters(func) &&
                  !func->hasAttr(AmpDialect::kGradientOfAttrName) &&
                  !func->hasAttr(AmpDialect::kEvaluationOfAttrName))
      targets.push_back(func);
  }
  if (targets.empty()) {
    // At the module's location, without printing the module.
    emitError(module.getLoc())
        << pass << ": "
        << (functionName.empty()
                ? std::string("no function has an argument marked amp.param")
                : "no function named @" + functionName.str());
    return failure();
  }
  return targets;
}

namespace {
struct AmpAutodiffPass
    : amp::SuggestingOptions<amp::impl::AmpAutodiffBase<AmpAutodiffPass>> {
  using SuggestingOptions::SuggestingOptions;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // @f_grad keeps the names of @f's arguments.
    if (failed(nameArgumentsFromSource(module)))
      return signalPassFailure();
    // Gradients taken inside the model are its ops from here on.
    if (failed(expandGrads(module)))
      return signalPassFailure();
    SymbolTable symbols(module);
    FailureOr<SmallVector<func::FuncOp>> targets =
        findModelFunctions(module, functionName, "amp-autodiff");
    if (failed(targets))
      return signalPassFailure();
    for (func::FuncOp func : *targets) {
      if (!hasParameters(func)) {
        emitError(func.getLoc()) << "amp-autodiff: @" << func.getSymName()
                                 << " has no argument marked amp.param";
        return signalPassFailure();
      }
      if (failed(differentiate(func, symbols)))
        return signalPassFailure();
    }
  }
};
} // namespace

namespace {
struct AmpExpandGradsPass : amp::impl::AmpExpandGradsBase<AmpExpandGradsPass> {
  void runOnOperation() override {
    if (failed(expandGrads(getOperation())))
      signalPassFailure();
  }
};
} // namespace
