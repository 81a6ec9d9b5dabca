//===- CSource.cpp - printing C++ for the generated step -----------------===//

#include "CSource.h"

#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "clang/Format/Format.h"
#include "clang/Tooling/Core/Replacement.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Format.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <optional>

using namespace mlir;
using namespace mlir::amp;

RankedTensorType cuda::tensorOf(Value value) {
  return cast<RankedTensorType>(value.getType());
}
Type cuda::elementOf(Value value) { return tensorOf(value).getElementType(); }
int64_t cuda::countOf(Value value) { return tensorOf(value).getNumElements(); }
int64_t cuda::product(ArrayRef<int64_t> shape) {
  return ShapedType::getNumElements(shape);
}

std::string cuda::coordinateOf(StringRef index, int64_t stride, int64_t extent,
                               int64_t bound) {
  std::string text = index.str();
  if (stride != 1)
    text += " / " + std::to_string(stride);
  if (stride * extent < bound)
    text += " % " + std::to_string(extent);
  return text;
}

std::string cuda::scaled(StringRef expr, int64_t factor) {
  if (factor == 1)
    return expr.str();
  bool name =
      llvm::all_of(expr, [](char c) { return llvm::isAlnum(c) || c == '_'; });
  return ((name ? expr.str() : "(" + expr + ")") + " * " +
          std::to_string(factor))
      .str();
}

std::pair<int64_t, std::string> cuda::lineAlong(ArrayRef<int64_t> shape,
                                                int64_t dim) {
  int64_t n = shape[dim], inner = product(shape.drop_front(dim + 1));
  std::string in = std::to_string(inner);
  if (inner == 1)
    return {n, "i * " + std::to_string(n) + " + j"};
  return {n, "(i / " + in + " * " + std::to_string(n) + " + j) * " + in +
                 " + i % " + in};
}

std::string cuda::storageType(Type type) {
  if (type.isF32())
    return "float";
  if (type.isF64())
    return "double";
  if (type.isF16())
    return "ampstep::f16_t";
  if (type.isBF16())
    return "ampstep::bf16_t";
  if (type.isInteger(1) || type.isFloat8E4M3FN() || type.isFloat8E5M2())
    return "uint8_t"; // FP8: the bit patterns, which only runtime calls read
  if (type.isInteger(32))
    return "int32_t";
  return "int64_t";
}

std::string cuda::registerType(Type type) {
  if (type.isF64())
    return "double";
  if (isa<FloatType>(type))
    return "float";
  if (type.isInteger(1))
    return "bool";
  return "int64_t";
}

std::string cuda::loadExpr(Type type, StringRef pointer, StringRef index) {
  if (type.isF16())
    return ("ampstep::ldF16(" + pointer + ", " + index + ")").str();
  if (type.isBF16())
    return ("ampstep::ldBF16(" + pointer + ", " + index + ")").str();
  if (type.isInteger(1))
    return ("(" + pointer + "[" + index + "] != 0)").str();
  if (type.isInteger(32))
    return ("static_cast<int64_t>(" + pointer + "[" + index + "])").str();
  return (pointer + "[" + index + "]").str();
}

/// The argument of `value` when it is one call `callee(argument)` as a whole,
/// or nothing.
static std::optional<StringRef> soleArgument(StringRef value,
                                             StringRef callee) {
  if (!value.starts_with(callee) || !value.ends_with(")") ||
      value.size() <= callee.size() || value[callee.size()] != '(')
    return std::nullopt;
  int depth = 0;
  for (size_t at = callee.size(); at < value.size(); ++at) {
    depth += value[at] == '(' ? 1 : value[at] == ')' ? -1 : 0;
    if (depth == 0 && at != value.size() - 1)
      return std::nullopt;
  }
  return value.slice(callee.size() + 1, value.size() - 1);
}

std::string cuda::storeStmt(Type type, StringRef pointer, StringRef index,
                            StringRef value) {
  if (type.isF16() || type.isBF16()) {
    // A store rounds as rndF16/rndBF16 do (from f32 or f64): a rounded
    // value is stored unrounded, converted once.
    StringRef half = type.isF16() ? "F16" : "BF16";
    if (std::optional<StringRef> inner =
            soleArgument(value, ("ampstep::rnd" + half).str()))
      value = *inner;
    return ("ampstep::st" + half + "(" + pointer + ", " + index + ", " + value +
            ");")
        .str();
  }
  std::string cast = "static_cast<" + storageType(type) + ">";
  // A value cast to the storage type already is stored as it is.
  if (soleArgument(value, cast))
    return (pointer + "[" + index + "] = " + value + ";").str();
  return (pointer + "[" + index + "] = " + cast + "(" + value + ");").str();
}

std::string cuda::storeHeldStmt(Type type, StringRef pointer, StringRef index,
                                StringRef value) {
  if (type.isBF16())
    return ("ampstep::stHeldBF16(" + pointer + ", " + index + ", " + value +
            ");")
        .str();
  return storeStmt(type, pointer, index, value);
}

std::string cuda::roundExpr(Type type, StringRef value) {
  if (type.isF16())
    return ("ampstep::rndF16(" + value + ")").str();
  if (type.isBF16())
    return ("ampstep::rndBF16(" + value + ")").str();
  if (type.isF32())
    return ("static_cast<float>(" + value + ")").str();
  if (type.isF64())
    return ("static_cast<double>(" + value + ")").str();
  if (type.isInteger(1))
    return ("(" + value + " != 0)").str();
  return ("static_cast<int64_t>(" + value + ")").str();
}

std::string cuda::literal(double value, StringRef type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (std::isnan(value))
    os << "static_cast<" << type << ">(NAN)";
  else if (std::isinf(value))
    os << "static_cast<" << type << ">(" << (value < 0 ? "-" : "")
       << "INFINITY)";
  else
    os << "static_cast<" << type << ">(" << llvm::format("%a", value) << ")";
  return text;
}

std::string cuda::hexLiteral(double value) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%a", value);
  return text;
}

std::string cuda::designatedInit(StringRef type, StringRef name,
                                 ArrayRef<FieldInit> fields, bool isConst) {
  std::string text =
      (isConst ? "const " : "") + type.str() + " " + name.str() + "{";
  for (auto [i, field] : llvm::enumerate(fields))
    text += (i ? ", ." : ".") + field.first.str() + " = " + field.second;
  return text + "};";
}

StringRef cuda::runtimeDtype(Type type) {
  return type.isF16()    ? "AMP_F16"
         : type.isBF16() ? "AMP_BF16"
         : type.isF32()  ? "AMP_F32"
                         : "";
}

std::string cuda::math(StringRef name, StringRef type) {
  return type == "float" ? (name + "f").str() : name.str();
}

std::string cuda::cStringBody(StringRef text) {
  std::string body;
  for (char c : text) {
    if (c == '"' || c == '\\' || c == '?') // '?' against trigraphs
      body += '\\';
    if (std::isprint(static_cast<unsigned char>(c))) {
      body += c;
      continue;
    }
    char octal[5];
    std::snprintf(octal, sizeof octal, "\\%03o", static_cast<unsigned char>(c));
    body += octal;
  }
  return body;
}

std::string cuda::sourcePosition(Location loc) {
  std::string text;
  loc->walk([&](Location inner) {
    auto file = dyn_cast<FileLineColLoc>(inner);
    if (!file)
      return WalkResult::advance();
    text = (file.getFilename().getValue() + ":" + Twine(file.getLine()) + ":" +
            Twine(file.getColumn()))
               .str();
    return WalkResult::interrupt();
  });
  return text;
}

/// `text` broken greedily at the separators `separator` (kept at the end of
/// each line) into lines of at most `width` columns, each after the first
/// starting with `continuation`.
static std::string breakAt(StringRef text, StringRef separator, unsigned width,
                           StringRef continuation) {
  std::string out, line;
  auto flush = [&]() {
    out += (out.empty() ? "" : "\n" + continuation.str()) +
           StringRef(line).rtrim().str();
    line.clear();
  };
  unsigned limit = width;
  while (!text.empty()) {
    size_t at = text.find(separator);
    StringRef piece =
        at == StringRef::npos ? text : text.take_front(at + separator.size());
    text = text.drop_front(piece.size());
    if (!line.empty() &&
        line.size() + StringRef(piece).rtrim().size() > limit) {
      flush();
      limit = width - continuation.size();
      piece = piece.ltrim();
    }
    line += piece.str();
  }
  flush();
  return out;
}

FailureOr<std::string> cuda::formatSource(StringRef code, StringRef fileName) {
  clang::format::FormatStyle style = clang::format::getLLVMStyle();
  style.ColumnLimit = kLineWidth;
  clang::tooling::Replacements edits = clang::format::reformat(
      style, code, {clang::tooling::Range(0, code.size())}, fileName);
  llvm::Expected<std::string> formatted =
      clang::tooling::applyAllReplacements(code, edits);
  if (!formatted) {
    llvm::consumeError(formatted.takeError());
    return failure();
  }
  return std::move(*formatted);
}

std::string cuda::commentLines(StringRef text, unsigned indent) {
  size_t lead = text.find_first_not_of(' ');
  std::string continuation =
      "// " + std::string(lead == StringRef::npos ? 0 : lead, ' ') + "    ";
  return "// " + breakAt(text, " ", kLineWidth - indent - 3, continuation) +
         "\n";
}

SmallVector<std::pair<std::string, std::string>>
cuda::KernelParams::finalNames() const {
  SmallVector<std::pair<std::string, std::string>> result;
  unsigned in = 0, out = 0;
  for (auto &[value, placeholder] : names)
    result.push_back({placeholder, writable.count(value)
                                       ? "out" + std::to_string(out++)
                                       : "in" + std::to_string(in++)});
  llvm::StringMap<unsigned> roles;
  for (const RawMember &member : raw)
    result.push_back({member.placeholder,
                      member.role + std::to_string(roles[member.role]++)});
  return result;
}

std::string cuda::KernelParams::finalize(StringRef text) const {
  std::string result = text.str();
  for (auto &[placeholder, name] : finalNames()) {
    for (size_t at = result.find(placeholder); at != std::string::npos;
         at = result.find(placeholder, at + name.size()))
      result.replace(at, placeholder.size(), name);
  }
  return result;
}

void cuda::KernelParams::printMembers(llvm::raw_ostream &os) const {
  SmallVector<std::pair<std::string, std::string>> final = finalNames();
  size_t k = 0;
  // In<T> and Out<T> (step_kernels.h) are pointers, which a host build
  // that counts accesses replaces by counting ones.
  for (auto &[value, placeholder] : names)
    os << "ampstep::" << (writable.count(value) ? "Out<" : "In<")
       << storageType(elementOf(value)) << "> " << final[k++].second << ";\n";
  for (const RawMember &member : raw)
    os << member.type << " *" << final[k++].second << ";\n";
}
