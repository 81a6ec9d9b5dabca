//===- ArgumentNames.h - the model's names of arguments ---------*- C++ -*-===//
//
// A function argument's name is its `amp.name` attribute. The parser keeps
// no SSA names, so the tools record them as attributes right after parsing
// (nameArgumentsFromSource); from then on the names travel with the IR,
// through printing and parsing, into the compiled step's tensor table.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_TRANSFORMS_ARGUMENTNAMES_H
#define AMP_DIALECT_AMP_TRANSFORMS_ARGUMENTNAMES_H

#include "mlir/IR/Operation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

#include <string>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace mlir::amp {

/// The `amp.name` of argument `index` of `function`, or "" without one.
StringRef getArgumentName(FunctionOpInterface function, unsigned index);

/// How reports and messages refer to an argument: "argument #2 'x'", or
/// "argument #2" when it has no name.
std::string describeArgument(FunctionOpInterface function, unsigned index);

/// Gives every argument of the functions under `root` that has no `amp.name`
/// the SSA name its location points at (`%w1` at `file:3:20` gives "w1").
/// The text comes from the buffer of that name in `sources` when there is
/// one, else from the file. An argument keeps no name when its location is
/// not a file position, the file cannot be read, or no SSA name is written
/// there. A name another argument of the function holds already is an
/// error at the argument (`%x {amp.name = "w"}, %w` would leave `%w`
/// unnamed), unless that argument is located at the same place: one made
/// from it, as a step's state is from its parameter, stays unnamed.
LogicalResult nameArgumentsFromSource(Operation *root,
                                      const llvm::SourceMgr *sources = nullptr);

/// The values that `function`'s body defines, by the SSA names the source
/// gives them: each op's first result under the name written before the
/// op's name on the line its location points at (`%logits = amp.add ...`
/// gives "logits"), read as nameArgumentsFromSource reads argument names.
/// Ops whose location is no file position, or whose results are not named
/// on that line, are left out; a name written twice (in two regions) keeps
/// its first op.
llvm::StringMap<Value>
getValuesBySourceName(FunctionOpInterface function,
                      const llvm::SourceMgr *sources = nullptr);

/// The values that `function`'s body defines, by the module paths of the
/// ops' locations (a NameLoc, as the torch importer writes
/// `loc("blocks.0.mlp"(...))`): each path, and each path that encloses it
/// ("blocks.0", "blocks"), names the first result of the last op (in
/// program order) located inside that module, which is the module's
/// output. Ops of the function's body only, not of nested regions.
llvm::StringMap<Value> getValuesByModulePath(FunctionOpInterface function);

/// The model's name of each op under `root` with results, for naming what
/// the generated code keeps of them: its location's name where that is a
/// NameLoc (the torch importer's module path, "h.0.ln_1"), else, for an
/// op with one result, the SSA name the source writes before it
/// (`%logits = amp.add ...` gives "logits"; %0 is no name), read as
/// getValuesBySourceName reads it. Ops made from a model's op (its
/// gradient, its cast) carry its location, and so its name. Ops without
/// a name are left out.
llvm::DenseMap<Operation *, std::string>
getSourceNames(Operation *root, const llvm::SourceMgr *sources = nullptr);

} // namespace mlir::amp

#endif // AMP_DIALECT_AMP_TRANSFORMS_ARGUMENTNAMES_H
