//===- BufferPlan.cpp - --amp-plan-buffers --------------------------------===//
//
// Places every value of a fused step that reaches memory: in the arena, by
// liveness, or over the argument it replaces.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/IR/AmpOps.h"
#include "amp/Dialect/Amp/Transforms/Backend.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/ToolOutputFile.h"

#include <map>
#include <set>

namespace mlir::amp {
#define GEN_PASS_DEF_AMPPLANBUFFERS
#include "amp/Dialect/Amp/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;
using namespace mlir::amp::backend;

namespace {

int64_t getNumElements(Value value) {
  return cast<RankedTensorType>(value.getType()).getNumElements();
}

int64_t alignUp(int64_t value) {
  return (value + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment;
}

/// A value that needs arena memory, or a kernel's scratch memory (no value,
/// `scratchBytes` set): its live range in kernel positions, and where the
/// planner put it.
struct Interval {
  Value value;
  int64_t first, last;
  std::optional<int64_t> offset = std::nullopt;
  std::optional<int64_t> scratchBytes = std::nullopt;

  int64_t bytes(int64_t floatBytes16) const {
    return scratchBytes ? *scratchBytes
                        : getByteSize(value.getType(), floatBytes16);
  }
  int64_t size(int64_t floatBytes16) const {
    return alignUp(bytes(floatBytes16));
  }
};

/// Greedy placement, largest first, each at the lowest aligned offset that
/// overlaps no placed interval live at the same time. Packs tightly, but
/// costs O(n^2) where most values live long (training graphs: forward
/// activations live until their backward use). Returns the arena size.
int64_t placeBySize(std::vector<Interval> &intervals, int64_t floatBytes16) {
  std::vector<size_t> order(intervals.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  auto sizeOf = [&](size_t i) { return intervals[i].size(floatBytes16); };
  llvm::stable_sort(order,
                    [&](size_t a, size_t b) { return sizeOf(a) > sizeOf(b); });
  std::vector<size_t> placed;
  int64_t total = 0;
  for (size_t i : order) {
    Interval &interval = intervals[i];
    int64_t size = sizeOf(i);
    // Occupied ranges of the placed intervals live at the same time.
    SmallVector<std::pair<int64_t, int64_t>> busy;
    for (size_t j : placed)
      if (intervals[j].first <= interval.last &&
          interval.first <= intervals[j].last)
        busy.push_back(
            {*intervals[j].offset, *intervals[j].offset + sizeOf(j)});
    llvm::sort(busy);
    int64_t offset = 0;
    for (auto [begin, end] : busy) {
      if (offset + size <= begin)
        break;
      offset = std::max(offset, end);
    }
    interval.offset = offset;
    total = std::max(total, offset + size);
    placed.push_back(i);
  }
  return total;
}

/// Linear-scan placement in program order with best-fit reuse: at each
/// kernel position the intervals that ended before it return their bytes
/// to a free list (neighbours coalesced); each interval starting there
/// takes the smallest free block that holds it, or grows the arena (at its
/// free tail when there is one). O(n log n) in the number of intervals.
/// Returns the arena size.
int64_t placeInOrder(std::vector<Interval> &intervals, int64_t floatBytes16) {
  auto sizeOf = [&](const Interval &interval) {
    return interval.size(floatBytes16);
  };
  std::vector<size_t> byStart(intervals.size()), byEnd(intervals.size());
  for (size_t i = 0; i < intervals.size(); ++i)
    byStart[i] = byEnd[i] = i;
  // Larger first among equal starts: they are the hardest to fit later.
  llvm::stable_sort(byStart, [&](size_t a, size_t b) {
    if (intervals[a].first != intervals[b].first)
      return intervals[a].first < intervals[b].first;
    return sizeOf(intervals[a]) > sizeOf(intervals[b]);
  });
  llvm::stable_sort(byEnd, [&](size_t a, size_t b) {
    return intervals[a].last < intervals[b].last;
  });

  std::map<int64_t, int64_t> freeByOffset;          // offset -> size
  std::set<std::pair<int64_t, int64_t>> freeBySize; // (size, offset)
  int64_t total = 0;
  auto removeFree = [&](std::map<int64_t, int64_t>::iterator it) {
    freeBySize.erase({it->second, it->first});
    return freeByOffset.erase(it);
  };
  auto release = [&](int64_t offset, int64_t size) {
    auto next = freeByOffset.lower_bound(offset);
    if (next != freeByOffset.end() && offset + size == next->first) {
      size += next->second;
      next = removeFree(next);
    }
    if (next != freeByOffset.begin()) {
      auto previous = std::prev(next);
      if (previous->first + previous->second == offset) {
        offset = previous->first;
        size += previous->second;
        removeFree(previous);
      }
    }
    freeByOffset[offset] = size;
    freeBySize.insert({size, offset});
  };

  size_t ended = 0;
  for (size_t i : byStart) {
    Interval &interval = intervals[i];
    for (;
         ended < byEnd.size() && intervals[byEnd[ended]].last < interval.first;
         ++ended) {
      const Interval &done = intervals[byEnd[ended]];
      if (done.offset)
        release(*done.offset, sizeOf(done));
    }
    int64_t size = sizeOf(interval);
    auto fit = freeBySize.lower_bound({size, INT64_MIN});
    if (fit != freeBySize.end()) {
      auto [blockSize, offset] = *fit;
      removeFree(freeByOffset.find(offset));
      if (blockSize > size)
        release(offset + size, blockSize - size);
      interval.offset = offset;
    } else if (!freeByOffset.empty() &&
               std::prev(freeByOffset.end())->first +
                       std::prev(freeByOffset.end())->second ==
                   total) {
      // Grow the free block at the arena's end.
      auto tail = std::prev(freeByOffset.end());
      interval.offset = tail->first;
      removeFree(tail);
      total = *interval.offset + size;
    } else {
      interval.offset = total;
      total += size;
    }
  }
  return total;
}

/// Every use of the memory of `value`, through views.
void usesThroughViews(Value value, SmallVectorImpl<OpOperand *> &uses) {
  for (OpOperand &use : value.getUses()) {
    if (isView(use.getOwner()))
      usesThroughViews(use.getOwner()->getResult(0), uses);
    else
      uses.push_back(&use);
  }
}

/// The new values of `func`'s threaded arguments that can be written over
/// the argument they replace (value -> argument): no kernel after the one
/// that writes the value reads the argument, and that kernel reads element
/// i of it only to write element i. `positionOf` gives the position of
/// the kernel of an op (the return after them all).
llvm::DenseMap<Value, unsigned>
findInPlaceUpdates(func::FuncOp func,
                   function_ref<int64_t(Operation *)> positionOf) {
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  llvm::DenseMap<Value, unsigned> pinned;
  for (auto [k, argIndex] : llvm::enumerate(getThreadedArguments(func))) {
    Value value = ret.getOperand(k);
    Operation *def = value.getDefiningOp();
    if (!def || isView(def) || pinned.count(value))
      continue;
    int64_t at = positionOf(def);
    SmallVector<OpOperand *> uses;
    usesThroughViews(func.getArgument(argIndex), uses);
    // Read by the kernel that writes the value: safe when each op that
    // reads it there reads element i only to write element i.
    auto readsInPlace = [&](OpOperand &inner) {
      Operation *user = inner.getOwner();
      return user->hasTrait<OpTrait::amp::InPlaceUpdate>() ||
             (isFusibleElementwise(user) &&
              user->getResult(0).getType() == inner.get().getType() &&
              getNumElements(inner.get()) == getNumElements(value));
    };
    bool safe = llvm::all_of(uses, [&](OpOperand *use) {
      int64_t position = positionOf(use->getOwner());
      if (position < at)
        return true;
      auto kernel = dyn_cast<FusionOp>(use->getOwner());
      return position == at && kernel &&
             llvm::all_of(kernel.getBlock()
                              .getArgument(use->getOperandNumber())
                              .getUses(),
                          readsInPlace);
    });
    if (safe)
      pinned[value] = argIndex;
  }
  return pinned;
}

struct PlanBuffersPass
    : amp::SuggestingOptions<
          mlir::amp::impl::AmpPlanBuffersBase<PlanBuffersPass>> {
  using SuggestingOptions::SuggestingOptions;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (failed(checkCompilable(func)))
      return signalPassFailure();
    Block &body = func.getBody().front();
    Builder builder(&getContext());
    MLIRContext *ctx = &getContext();

    // The kernels, numbered in the order they run.
    llvm::DenseMap<Operation *, int64_t> kernelNumbers;
    for (Operation &op : body) {
      if (isa<func::ReturnOp>(op) || isView(&op))
        continue;
      if (!isa<FusionOp>(op)) {
        op.emitError() << "amp-plan-buffers: this op is in no kernel; run "
                          "--amp-fuse first";
        return signalPassFailure();
      }
      kernelNumbers[&op] = kernelNumbers.size();
    }
    const int64_t end = kernelNumbers.size(); // the return: after them all

    // Position of the kernel that reads through `user`.
    auto positionOf = [&](Operation *user) -> int64_t {
      if (isa<func::ReturnOp>(user))
        return end;
      return kernelNumbers.lookup(user);
    };
    llvm::DenseMap<Value, unsigned> pinned =
        findInPlaceUpdates(func, positionOf);

    // Live ranges of the values that need arena memory. A result of an op
    // that works in place (TiedOperandOpInterface: an unscaled gradient,
    // a reduced one) takes the slot of the operand it is written over,
    // when nothing else reads that.
    std::vector<Interval> intervals;
    SmallVector<std::pair<Operation *, size_t>> scratch; // op, interval
    llvm::DenseMap<Value, size_t> intervalOf;
    llvm::DenseMap<Value, Value> sharesSlotOf;
    auto reusableSlot = [&](FusionOp kernel, unsigned result) -> Value {
      auto yielded = dyn_cast<OpResult>(kernel.getYield().getValues()[result]);
      if (!yielded)
        return {};
      auto tied = dyn_cast<TiedOperandOpInterface>(yielded.getOwner());
      Value operand =
          tied ? tied.getTiedOperand(yielded.getResultNumber()) : Value();
      auto input = dyn_cast_or_null<BlockArgument>(operand);
      if (!input || !input.hasOneUse())
        return {};
      Value grad = getOutsideValue(input);
      while (grad.getDefiningOp() && isView(grad.getDefiningOp()))
        grad = grad.getDefiningOp()->getOperand(0); // the memory's owner
      // A value that took its operand's slot (a reduced gradient, which
      // is then unscaled) passes the slot on.
      Value owner = grad;
      while (Value earlier = sharesSlotOf.lookup(owner))
        owner = earlier;
      if (!intervalOf.count(owner) ||
          getByteSize(grad.getType()) !=
              getByteSize(kernel->getResult(result).getType()))
        return {};
      SmallVector<OpOperand *> uses;
      usesThroughViews(grad, uses);
      bool onlyHere = llvm::all_of(
          uses, [&](OpOperand *use) { return use->getOwner() == kernel; });
      return onlyHere && uses.size() == 1 ? owner : Value();
    };
    for (Operation &op : body) {
      if (isa<func::ReturnOp>(op))
        continue;
      if (isView(&op)) {
        op.setAttr(kPlaceAttr,
                   builder.getArrayAttr(PlaceAttr::get(ctx, PlaceKind::view)));
        continue;
      }
      auto kernel = cast<FusionOp>(op);
      int64_t at = positionOf(kernel);
      SmallVector<Attribute> places;
      for (OpResult result : kernel->getResults()) {
        auto found = pinned.find(result);
        if (found != pinned.end()) {
          places.push_back(PlaceAttr::get(ctx, PlaceKind::arg, found->second));
          continue;
        }
        SmallVector<OpOperand *> uses;
        usesThroughViews(result, uses);
        int64_t last = at;
        for (OpOperand *use : uses)
          last = std::max(last, positionOf(use->getOwner()));
        if (Value slot = reusableSlot(kernel, result.getResultNumber())) {
          Interval &shared = intervals[intervalOf.lookup(slot)];
          shared.last = std::max(shared.last, last);
          sharesSlotOf[result] = slot;
        } else {
          intervalOf[result] = intervals.size();
          intervals.push_back({result, at, last});
        }
        places.push_back(Attribute()); // filled in below
      }
      op.setAttr(kPlaceAttr, builder.getArrayAttr(places));
      for (Operation &inner : kernel.getKernelOps())
        if (int64_t bytes = getScratchBytes(&inner)) {
          scratch.push_back({&inner, intervals.size()});
          intervals.push_back({Value(), at, at, std::nullopt, bytes});
        }
    }

    // Every offset and total below is at most the sum of all sizes: check
    // once that it fits (with 16-bit floats as f32, the larger figure).
    if (failed(checkTotalFits(func, intervals)))
      return signalPassFailure();

    if (failed(placeIntervals(func, intervals, scratch, sharesSlotOf)))
      return signalPassFailure();
  }

  /// Gives each interval its offset, by size or in order, and records the
  /// places of the kernels' results and scratch, the arena's size and the
  /// memory figures (and the report, where asked for).
  LogicalResult
  placeIntervals(func::FuncOp func, std::vector<Interval> &intervals,
                 ArrayRef<std::pair<Operation *, size_t>> scratch,
                 const llvm::DenseMap<Value, Value> &sharesSlotOf) {
    Block &body = func.getBody().front();
    Builder builder(&getContext());
    MLIRContext *ctx = &getContext();
    // By size while that is affordable (10-15% smaller arenas on the
    // examples), in program order beyond, so that planning stays
    // O(n log n) on graphs of 100k ops. The f32 figures first: the offsets
    // of the real plan are kept.
    auto place = [&](int64_t floatBytes16) {
      return static_cast<int64_t>(intervals.size()) <= bySizeLimit
                 ? placeBySize(intervals, floatBytes16)
                 : placeInOrder(intervals, floatBytes16);
    };
    int64_t arenaF32 = place(4);
    int64_t arena = place(2);
    llvm::DenseMap<Value, int64_t> offsets;
    for (const Interval &interval : intervals)
      if (interval.value)
        offsets[interval.value] = *interval.offset;
    for (auto [op, index] : scratch)
      op->setAttr(kScratchAttr,
                  builder.getI64IntegerAttr(*intervals[index].offset));
    for (auto [value, slot] : sharesSlotOf)
      offsets[value] = offsets.lookup(slot);
    for (Operation &op : body) {
      auto places = op.getAttrOfType<ArrayAttr>(kPlaceAttr);
      if (!places)
        continue;
      SmallVector<Attribute> filled(places.begin(), places.end());
      for (auto [i, result] : llvm::enumerate(op.getResults()))
        if (!filled[i])
          filled[i] =
              PlaceAttr::get(ctx, PlaceKind::arena, offsets.lookup(result));
      op.setAttr(kPlaceAttr, builder.getArrayAttr(filled));
    }

    int64_t arguments = 0, argumentsF32 = 0;
    for (Type type : func.getArgumentTypes()) {
      arguments += getByteSize(type);
      argumentsF32 += getByteSize(type, 4);
    }
    func->setAttr(kArenaSizeAttr, builder.getI64IntegerAttr(arena));
    func->setAttr(kMemoryAttr,
                  MemoryAttr::get(ctx, arena, arguments, arena + arguments,
                                  arenaF32 + argumentsF32));

    if (report.empty())
      return success();
    return writeReport(func, arena, arguments, arenaF32 + argumentsF32);
  }

  /// Checks that the arguments and every interval, aligned, fit together
  /// in int64 bytes: then no offset, arena size or peak can overflow.
  static LogicalResult checkTotalFits(func::FuncOp func,
                                      ArrayRef<Interval> intervals) {
    int64_t total = 0;
    auto add = [&](int64_t bytes) {
      return !llvm::AddOverflow(bytes, kArenaAlignment - 1, bytes) &&
             !llvm::AddOverflow(total, bytes, total);
    };
    bool fits = true;
    for (Type type : func.getArgumentTypes())
      fits = fits && add(getByteSize(type, 4));
    for (const Interval &interval : intervals)
      fits = fits && add(interval.bytes(4));
    if (fits)
      return success();
    return func.emitError()
           << "amp-plan-buffers: the memory of @" << func.getSymName()
           << " (its arguments and every value placed) does "
              "not fit in 64-bit byte counts";
  }

  LogicalResult writeReport(func::FuncOp func, int64_t arena, int64_t arguments,
                            int64_t peakF32) {
    llvm::json::Object object{{"function", func.getSymName()},
                              {"arena_bytes", arena},
                              {"argument_bytes", arguments},
                              {"peak_bytes", arena + arguments},
                              {"peak_bytes_f32", peakF32}};
    // ZeRO stage 1 (amp.shard_of): what the arguments would take unsharded
    // (each part whole and f32, each weight with a master part f32 and
    // its own master), and what the sharding saves.
    int64_t replicas = 0, saved = 0;
    for (unsigned i = 0; i < func.getNumArguments(); ++i) {
      auto part = func.getArgAttrOfType<DenseI64ArrayAttr>(
          i, AmpDialect::kShardOfAttrName);
      if (!part)
        continue;
      replicas = part[1];
      Type param = func.getArgumentTypes()[part[0]];
      int64_t whole = getByteSize(param, 4);
      saved += part[2] ? whole - getByteSize(param) -
                             getByteSize(func.getArgumentTypes()[i])
                       : whole - getByteSize(func.getArgumentTypes()[i]);
    }
    if (replicas) {
      object["zero_replicas"] = replicas;
      object["unsharded_argument_bytes"] = arguments + saved;
      object["sharding_saved_bytes"] = saved;
    }
    std::string error;
    auto file = openOutputFile(report, &error);
    if (!file)
      return emitOptionError(func.getContext())
             << "amp-plan-buffers: cannot write the report: " << error;
    file->os() << llvm::formatv("{0:2}", llvm::json::Value(std::move(object)))
               << "\n";
    file->keep();
    return success();
  }
};

} // namespace
