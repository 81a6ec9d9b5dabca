//===- AmpAttrs.cpp - amp dialect attributes ------------------------------===//

#include "amp/Dialect/Amp/IR/AmpAttrs.h"

#include "amp/Dialect/Amp/IR/AmpDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::amp;

#define GET_ATTRDEF_CLASSES
#include "amp/Dialect/Amp/IR/AmpAttrs.cpp.inc"

void AmpDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "amp/Dialect/Amp/IR/AmpAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// PlaceAttr
//===----------------------------------------------------------------------===//

LogicalResult PlaceAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                PlaceKind kind, std::optional<int64_t> number) {
  bool numbered = kind == PlaceKind::arena || kind == PlaceKind::arg;
  if (numbered && !number)
    return emitError() << "a place in the "
                       << (kind == PlaceKind::arena ? "arena needs its offset"
                                                    : "arguments needs the "
                                                      "argument's index");
  if (!numbered && number)
    return emitError() << "a '" << stringifyPlaceKind(kind)
                       << "' place has no number";
  if (numbered && *number < 0)
    return emitError() << "the "
                       << (kind == PlaceKind::arena ? "arena offset"
                                                    : "argument index")
                       << " of a place is non-negative, got " << *number;
  return success();
}

/// `<` kind (integer)? `>`; the verifier says which kinds take a number.
Attribute PlaceAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseLess() || parser.parseKeyword(&keyword))
    return {};
  std::optional<PlaceKind> kind = symbolizePlaceKind(keyword);
  if (!kind) {
    parser.emitError(loc) << "a place is arena, arg, view or fused, got '"
                          << keyword << "'";
    return {};
  }
  int64_t value = 0;
  std::optional<int64_t> number;
  OptionalParseResult parsed = parser.parseOptionalInteger(value);
  if (parsed.has_value()) {
    if (failed(*parsed))
      return {};
    number = value;
  }
  if (parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(loc); }, parser.getContext(),
                    *kind, number);
}

void PlaceAttr::print(AsmPrinter &printer) const {
  printer << "<" << stringifyPlaceKind(getKind());
  if (std::optional<int64_t> number = getNumber())
    printer << " " << *number;
  printer << ">";
}

//===----------------------------------------------------------------------===//
// MemoryAttr
//===----------------------------------------------------------------------===//

LogicalResult MemoryAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 int64_t arena, int64_t arguments, int64_t peak,
                                 int64_t peakF32) {
  std::pair<StringRef, int64_t> counts[] = {{"arena", arena},
                                            {"arguments", arguments},
                                            {"peak", peak},
                                            {"peak_f32", peakF32}};
  for (auto [name, bytes] : counts)
    if (bytes < 0)
      return emitError() << "the '" << name
                         << "' of #amp.memory is a non-negative byte count, "
                            "got "
                         << bytes;
  return success();
}
