//===- NameArguments.cpp - --amp-name-arguments ---------------------------===//
//
// Records each function argument's SSA name from the source as `amp.name`.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/Transforms/ArgumentNames.h"

#include "amp/Dialect/Amp/IR/AmpDialect.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <cctype>

namespace mlir::amp {
#define GEN_PASS_DEF_AMPNAMEARGUMENTS
#include "amp/Dialect/Amp/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

StringRef amp::getArgumentName(FunctionOpInterface function, unsigned index) {
  auto name =
      function.getArgAttrOfType<StringAttr>(index, AmpDialect::kNameAttrName);
  return name ? name.getValue() : StringRef();
}

std::string amp::describeArgument(FunctionOpInterface function,
                                  unsigned index) {
  std::string text = "argument #" + std::to_string(index);
  StringRef name = getArgumentName(function, index);
  if (!name.empty())
    text += " '" + name.str() + "'";
  return text;
}

namespace {
/// The source texts that argument locations point into, each read once.
class SourceTexts {
public:
  explicit SourceTexts(const llvm::SourceMgr *sources) {
    if (!sources)
      return;
    for (unsigned i = 1, e = sources->getNumBuffers(); i <= e; ++i) {
      const llvm::MemoryBuffer *buffer = sources->getMemoryBuffer(i);
      texts.try_emplace(buffer->getBufferIdentifier(), buffer->getBuffer());
    }
  }

  /// The SSA name written at `loc` (`%w1` gives "w1"), or "".
  StringRef ssaNameAt(FileLineColLoc loc) {
    StringRef text = textOf(loc.getFilename().getValue());
    if (text.empty() || loc.getLine() == 0 || loc.getColumn() == 0)
      return "";
    size_t at = 0;
    for (unsigned line = 1; line < loc.getLine(); ++line) {
      at = text.find('\n', at);
      if (at == StringRef::npos)
        return "";
      ++at;
    }
    at += loc.getColumn() - 1;
    if (at >= text.size() || text[at] != '%')
      return "";
    // MLIR's suffix-id: digits, or a letter or one of $._- followed by
    // letters, digits and $._-.
    auto isIdChar = [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '$' ||
             c == '.' || c == '_' || c == '-';
    };
    size_t end = at + 1;
    while (end < text.size() && isIdChar(text[end]))
      ++end;
    return text.slice(at + 1, end);
  }

private:
  StringRef textOf(StringRef filename) {
    if (auto it = texts.find(filename); it != texts.end())
      return it->second;
    // Standard input has no file to read again.
    std::unique_ptr<llvm::MemoryBuffer> &file = files[filename];
    if (!file && filename != "<stdin>") {
      auto read = llvm::MemoryBuffer::getFile(filename, /*IsText=*/true);
      if (read)
        file = std::move(*read);
    }
    StringRef text = file ? file->getBuffer() : StringRef();
    texts.try_emplace(filename, text);
    return text;
  }

  llvm::StringMap<StringRef> texts;
  llvm::StringMap<std::unique_ptr<llvm::MemoryBuffer>> files;
};
} // namespace

void amp::nameArgumentsFromSource(Operation *root,
                                  const llvm::SourceMgr *sources) {
  SourceTexts texts(sources);
  root->walk([&](FunctionOpInterface function) {
    if (function.isExternal())
      return;
    unsigned count = function.getNumArguments();
    llvm::StringSet<> taken;
    bool missing = false;
    for (unsigned i = 0; i < count; ++i) {
      StringRef name = getArgumentName(function, i);
      missing |= name.empty();
      if (!name.empty())
        taken.insert(name);
    }
    if (!missing)
      return;
    // All argument attributes at once: one setArgAttr per argument would
    // rebuild the whole list each time.
    SmallVector<DictionaryAttr> dicts;
    function.getAllArgAttrs(dicts);
    bool changed = false;
    MLIRContext *context = function->getContext();
    for (unsigned i = 0; i < count; ++i) {
      if (!getArgumentName(function, i).empty())
        continue;
      auto loc = dyn_cast<FileLineColLoc>(function.getArgument(i).getLoc());
      if (!loc)
        continue;
      StringRef name = texts.ssaNameAt(loc);
      if (name.empty() || !taken.insert(name).second)
        continue;
      NamedAttrList attrs(dicts[i]);
      attrs.set(AmpDialect::kNameAttrName, StringAttr::get(context, name));
      dicts[i] = attrs.getDictionary(context);
      changed = true;
    }
    if (changed)
      function.setAllArgAttrs(dicts);
  });
}

namespace {
struct AmpNameArgumentsPass
    : amp::impl::AmpNameArgumentsBase<AmpNameArgumentsPass> {
  void runOnOperation() override { nameArgumentsFromSource(getOperation()); }
};
} // namespace
