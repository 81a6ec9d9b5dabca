//===- NameArguments.cpp - --amp-name-arguments ---------------------------===//
//
// Records each function argument's SSA name from the source as `amp.name`.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/Transforms/ArgumentNames.h"

#include "amp/Dialect/Amp/IR/AmpDialect.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
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
/// The source texts that locations point into, each read once.
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
    StringRef line = lineAt(loc);
    if (line.empty() || loc.getColumn() > line.size())
      return "";
    return ssaName(line.drop_front(loc.getColumn() - 1));
  }

  /// The first result name of the op whose name `loc` points at, written
  /// before it on its line (`%logits = amp.add` gives "logits"), or "".
  StringRef resultNameBefore(FileLineColLoc loc) {
    StringRef line = lineAt(loc);
    if (line.empty() || loc.getColumn() > line.size() + 1)
      return "";
    StringRef results = line.take_front(loc.getColumn() - 1).rtrim();
    if (!results.consume_back("="))
      return "";
    return ssaName(results.trim());
  }

private:
  /// The line `loc` is on, without its line break, or "".
  StringRef lineAt(FileLineColLoc loc) {
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
    return text.drop_front(at).take_until([](char c) { return c == '\n'; });
  }

  /// The SSA name `text` starts with (`%w1 ...` gives "w1"), or "".
  static StringRef ssaName(StringRef text) {
    if (!text.consume_front("%"))
      return "";
    // MLIR's suffix-id: digits, or a letter or one of $._- followed by
    // letters, digits and $._-.
    return text.take_while([](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '$' ||
             c == '.' || c == '_' || c == '-';
    });
  }

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

LogicalResult amp::nameArgumentsFromSource(Operation *root,
                                           const llvm::SourceMgr *sources) {
  SourceTexts texts(sources);
  bool clashed = false;
  root->walk([&](FunctionOpInterface function) {
    if (function.isExternal())
      return;
    unsigned count = function.getNumArguments();
    // Each name given, by the argument that holds it.
    llvm::StringMap<unsigned> holders;
    bool missing = false;
    for (unsigned i = 0; i < count; ++i) {
      StringRef name = getArgumentName(function, i);
      missing |= name.empty();
      if (!name.empty())
        holders.try_emplace(name, i);
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
      if (name.empty())
        continue;
      auto [holder, inserted] = holders.try_emplace(name, i);
      if (!inserted) {
        // An argument made from the one that holds the name and located
        // at it (a step's state at its parameter) stays unnamed; another
        // argument would be left unnamed in silence.
        if (function.getArgument(holder->second).getLoc() == loc)
          continue;
        mlir::emitError(loc)
            << "argument #" << i << " is written %" << name << ", but '" << name
            << "' is the " << AmpDialect::kNameAttrName << " of argument #"
            << holder->second << "; give one of them another name";
        clashed = true;
        continue;
      }
      NamedAttrList attrs(dicts[i]);
      attrs.set(AmpDialect::kNameAttrName, StringAttr::get(context, name));
      dicts[i] = attrs.getDictionary(context);
      changed = true;
    }
    if (changed)
      function.setAllArgAttrs(dicts);
  });
  return failure(clashed);
}

llvm::StringMap<Value>
amp::getValuesBySourceName(FunctionOpInterface function,
                           const llvm::SourceMgr *sources) {
  SourceTexts texts(sources);
  llvm::StringMap<Value> values;
  function->walk([&](Operation *op) {
    if (op == function.getOperation() || op->getNumResults() == 0)
      return;
    if (auto loc = dyn_cast<FileLineColLoc>(op->getLoc()))
      if (StringRef name = texts.resultNameBefore(loc); !name.empty())
        values.try_emplace(name, op->getResult(0));
  });
  return values;
}

/// The location an op of a model was written at: an inlined op's
/// callee's place, not the call's.
static Location writtenAt(Location loc) {
  while (auto call = dyn_cast<CallSiteLoc>(loc))
    loc = call.getCallee();
  return loc;
}

llvm::StringMap<Value>
amp::getValuesByModulePath(FunctionOpInterface function) {
  llvm::StringMap<Value> values;
  if (function.isExternal())
    return values;
  for (Block &block : function.getFunctionBody())
    for (Operation &op : block) {
      auto named = dyn_cast<NameLoc>(writtenAt(op.getLoc()));
      if (!named || op.getNumResults() == 0)
        continue;
      // The path and each enclosing one; later ops overwrite earlier.
      StringRef path = named.getName().getValue();
      while (!path.empty()) {
        values[path] = op.getResult(0);
        size_t dot = path.rfind('.');
        path = dot == StringRef::npos ? StringRef() : path.take_front(dot);
      }
    }
  return values;
}

llvm::DenseMap<Operation *, std::string>
amp::getSourceNames(Operation *root, const llvm::SourceMgr *sources) {
  SourceTexts texts(sources);
  llvm::DenseMap<Operation *, std::string> names;
  root->walk([&](Operation *op) {
    if (op->getNumResults() == 0)
      return;
    Location loc = writtenAt(op->getLoc());
    std::string name;
    if (auto named = dyn_cast<NameLoc>(loc))
      name = named.getName().str();
    else if (auto file = dyn_cast<FileLineColLoc>(loc);
             file && op->getNumResults() == 1)
      name = texts.resultNameBefore(file).str(); // the value's own name
    // %0, %1: the parser's numbering, not a name.
    if (!name.empty() && !llvm::all_of(name, llvm::isDigit))
      names[op] = std::move(name);
  });
  return names;
}

namespace {
struct AmpNameArgumentsPass
    : amp::impl::AmpNameArgumentsBase<AmpNameArgumentsPass> {
  void runOnOperation() override {
    if (failed(nameArgumentsFromSource(getOperation())))
      signalPassFailure();
  }
};
} // namespace
