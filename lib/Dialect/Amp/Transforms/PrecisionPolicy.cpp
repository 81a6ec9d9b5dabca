//===- PrecisionPolicy.cpp - per-op overrides of autocast categories ------===//

#include "amp/Dialect/Amp/Transforms/PrecisionPolicy.h"

#include "amp/Dialect/Amp/IR/AmpInterfaces.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLParser.h"

using namespace mlir;
using namespace mlir::amp;

LogicalResult PrecisionPolicy::set(StringRef opName, PrecisionCategory category,
                                   StringRef source, Location loc) {
  std::optional<RegisteredOperationName> name =
      RegisteredOperationName::lookup(opName, loc.getContext());
  if (!name)
    return emitError(loc) << "unknown op '" << opName << "' in " << source;
  if (!name->hasInterface<PrecisionOpInterface>())
    return emitError(loc) << "op '" << opName
                          << "' has no precision category; autocast "
                             "places its casts itself";
  auto [it, inserted] =
      entries.try_emplace(opName, Entry{category, source.str()});
  if (!inserted && it->second.category != category)
    return emitError(loc) << "contradictory overrides for '" << opName
                          << "': " << it->second.source << " makes it "
                          << stringifyPrecisionCategory(it->second.category)
                          << ", " << source << " makes it "
                          << stringifyPrecisionCategory(category);
  return success();
}

std::optional<PrecisionCategory>
PrecisionPolicy::lookup(StringRef opName) const {
  auto it = entries.find(opName);
  if (it == entries.end())
    return std::nullopt;
  return it->second.category;
}

StringRef PrecisionPolicy::getSource(StringRef opName) const {
  auto it = entries.find(opName);
  return it == entries.end() ? StringRef() : StringRef(it->second.source);
}

void PrecisionPolicy::overrideWith(const PrecisionPolicy &other) {
  for (const auto &entry : other.entries)
    entries[entry.getKey()] = entry.getValue();
}

FailureOr<PrecisionPolicy>
PrecisionPolicy::parse(StringRef text, StringRef path, MLIRContext *context) {
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(text, path, /*RequiresNull=*/false),
      SMLoc());
  auto locOf = [&](SMLoc at) -> Location {
    auto [line, col] = sourceMgr.getLineAndColumn(at);
    return FileLineColLoc::get(context, path, line, col);
  };
  // YAML syntax errors become MLIR diagnostics at their position.
  struct SyntaxErrors {
    MLIRContext *context;
    bool seen = false;
  } syntax{context};
  sourceMgr.setDiagHandler(
      [](const llvm::SMDiagnostic &diag, void *cookie) {
        auto *state = static_cast<SyntaxErrors *>(cookie);
        Location loc =
            FileLineColLoc::get(state->context, diag.getFilename(),
                                diag.getLineNo(), diag.getColumnNo() + 1);
        emitError(loc) << "malformed policy file: " << diag.getMessage();
        state->seen = true;
      },
      &syntax);
  bool &syntaxError = syntax.seen;

  // Syntax first, over the whole file: the walk below would otherwise meet
  // a misplaced node before the parser reports the real mistake.
  {
    llvm::yaml::Stream syntaxCheck(text, sourceMgr, /*ShowColors=*/false);
    syntaxCheck.skip();
    if (syntaxError || syntaxCheck.failed())
      return failure();
  }
  llvm::yaml::Stream stream(text, sourceMgr, /*ShowColors=*/false);
  PrecisionPolicy policy;
  for (llvm::yaml::Document &document : stream) {
    llvm::yaml::Node *root = document.getRoot();
    if (syntaxError)
      return failure();
    if (!root || isa<llvm::yaml::NullNode>(root))
      continue; // an empty file is an empty policy
    auto *mapping = dyn_cast<llvm::yaml::MappingNode>(root);
    if (!mapping)
      return emitError(locOf(root->getSourceRange().Start))
             << "a policy is a mapping from op name to category "
                "(lower-precision, keep-fp32, promote or follow)";
    for (llvm::yaml::KeyValueNode &entry : *mapping) {
      auto *key = dyn_cast_or_null<llvm::yaml::ScalarNode>(entry.getKey());
      if (syntaxError)
        return failure();
      auto *value = dyn_cast_or_null<llvm::yaml::ScalarNode>(entry.getValue());
      if (syntaxError)
        return failure();
      if (!key || !value) {
        llvm::yaml::Node *at = key ? entry.getValue() : entry.getKey();
        return emitError(locOf(at ? at->getSourceRange().Start
                                  : mapping->getSourceRange().Start))
               << "policy entries are 'op-name: category' pairs of strings";
      }
      SmallString<32> keyStorage, valueStorage;
      StringRef opName = key->getValue(keyStorage);
      StringRef categoryName = value->getValue(valueStorage);
      std::optional<PrecisionCategory> category =
          symbolizePrecisionCategory(categoryName);
      if (!category)
        return emitError(locOf(value->getSourceRange().Start))
               << "unknown category '" << categoryName << "' for '" << opName
               << "'; expected lower-precision, keep-fp32, promote or "
                  "follow";
      if (failed(policy.set(opName, *category, "policy file",
                            locOf(key->getSourceRange().Start))))
        return failure();
    }
  }
  if (syntaxError)
    return failure();
  return policy;
}

FailureOr<PrecisionPolicy> PrecisionPolicy::parseFile(StringRef path,
                                                      MLIRContext *context) {
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> file = openInputFile(path, &error);
  if (!file)
    return emitError(UnknownLoc::get(context))
           << "cannot read policy file: " << error;
  return parse(file->getBuffer(), path, context);
}
