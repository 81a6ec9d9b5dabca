//===- AmpAttrs.cpp - amp dialect attributes ------------------------------===//

#include "amp/Dialect/Amp/IR/AmpAttrs.h"

#include "amp/Dialect/Amp/IR/AmpDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

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
// LossScalingAttr
//===----------------------------------------------------------------------===//

/// The settings' names, as #amp.loss_scaling and amp.scaler_update write
/// them (the options write them with `-`).
static constexpr llvm::StringLiteral kInitScale = "init_scale",
                                     kGrowthFactor = "growth_factor",
                                     kBackoffFactor = "backoff_factor",
                                     kGrowthInterval = "growth_interval",
                                     kHysteresis = "hysteresis",
                                     kMinScale = "min_scale",
                                     kMaxScale = "max_scale";

/// The largest count an f32 tracker holds exactly (beyond it, adding one
/// changes nothing).
static constexpr int64_t kMaxExactF32Count = int64_t(1) << 24;

// The check #amp.loss_scaling, amp.scaler_update and the --amp-loss-scaling
// options share.
std::string amp::checkScalerSettings(const ScalerSettings &settings,
                                     bool optionNames) {
  auto name = [&](StringRef entry) {
    std::string text = entry.str();
    if (optionNames)
      std::replace(text.begin(), text.end(), '_', '-');
    return text;
  };
  std::string message;
  llvm::raw_string_ostream os(message);
  auto num = [](double value) { return llvm::formatv("{0:e}", value).str(); };
  // What the scale's f32 tensor stores: rounded as IEEE rounds (a cast of
  // a double beyond f32's range is undefined in C++).
  auto asF32 = [](double value) {
    APFloat rounded(value);
    bool losesInfo = false;
    rounded.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven,
                    &losesInfo);
    return static_cast<double>(rounded.convertToFloat());
  };
  auto positiveF32 = [&](double value) {
    return asF32(value) > 0 && std::isfinite(asF32(value));
  };
  // The factors multiply the scale in f32: checked as they are rounded
  // to it (1e300 is inf there, 1e-300 is 0).
  auto inF32 = [&](double value) {
    return asF32(value) == value || std::isnan(value)
               ? std::string()
               : " (" + num(asF32(value)) +
                     " in f32, the type the scale is kept in)";
  };
  if (settings.initScale && !positiveF32(*settings.initScale))
    os << name(kInitScale)
       << " must be positive and finite in f32, the type the scale is kept "
          "in, got "
       << num(*settings.initScale);
  else if (!(asF32(settings.growthFactor) > 1) ||
           !std::isfinite(asF32(settings.growthFactor)))
    os << name(kGrowthFactor) << " must be greater than 1, got "
       << num(settings.growthFactor) << inF32(settings.growthFactor);
  else if (!(asF32(settings.backoffFactor) > 0 &&
             asF32(settings.backoffFactor) < 1))
    os << name(kBackoffFactor) << " must lie in (0, 1), got "
       << num(settings.backoffFactor) << inF32(settings.backoffFactor);
  else if (settings.growthInterval <= 0)
    os << name(kGrowthInterval) << " must be positive, got "
       << settings.growthInterval;
  else if (settings.growthInterval > kMaxExactF32Count)
    os << name(kGrowthInterval) << " " << settings.growthInterval
       << " exceeds 2^24, the largest count the f32 growth tracker holds "
          "exactly";
  else if (settings.hysteresis <= 0)
    os << name(kHysteresis) << " must be positive, got " << settings.hysteresis;
  else if (settings.hysteresis > kMaxExactF32Count)
    os << name(kHysteresis) << " " << settings.hysteresis
       << " exceeds 2^24, the largest count the f32 hysteresis tracker holds "
          "exactly";
  else if (settings.minScale && !positiveF32(*settings.minScale))
    os << name(kMinScale) << " must be positive and finite in f32, got "
       << num(*settings.minScale);
  else if (settings.maxScale && !positiveF32(*settings.maxScale))
    os << name(kMaxScale) << " must be positive and finite in f32, got "
       << num(*settings.maxScale);
  else if (settings.minScale && settings.maxScale &&
           asF32(*settings.minScale) > asF32(*settings.maxScale))
    os << name(kMinScale) << " " << num(*settings.minScale) << " exceeds "
       << name(kMaxScale) << " " << num(*settings.maxScale);
  else if (settings.initScale && settings.maxScale &&
           asF32(*settings.initScale) > asF32(*settings.maxScale))
    os << name(kInitScale) << " " << num(*settings.initScale) << " exceeds "
       << name(kMaxScale) << " " << num(*settings.maxScale)
       << ": the first step would run above the clamp";
  else if (settings.initScale && settings.minScale &&
           asF32(*settings.initScale) < asF32(*settings.minScale))
    os << name(kInitScale) << " " << num(*settings.initScale) << " is below "
       << name(kMinScale) << " " << num(*settings.minScale)
       << ": the first step would run below the clamp";
  return message;
}

/// `value` as a double, whatever semantics it was built with.
static double toDouble(APFloat value) {
  bool losesInfo = false;
  value.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven,
                &losesInfo);
  return value.convertToDouble();
}

/// The settings the parameters of an #amp.loss_scaling hold; the absent
/// ones keep ScalerSettings' defaults.
static ScalerSettings getSettingsOf(const APFloat &initScale,
                                    std::optional<APFloat> growthFactor,
                                    std::optional<APFloat> backoffFactor,
                                    std::optional<int64_t> growthInterval,
                                    std::optional<int64_t> hysteresis,
                                    std::optional<APFloat> minScale,
                                    std::optional<APFloat> maxScale) {
  ScalerSettings settings;
  settings.initScale = toDouble(initScale);
  if (growthFactor)
    settings.growthFactor = toDouble(*growthFactor);
  if (backoffFactor)
    settings.backoffFactor = toDouble(*backoffFactor);
  if (growthInterval)
    settings.growthInterval = *growthInterval;
  if (hysteresis)
    settings.hysteresis = *hysteresis;
  if (minScale)
    settings.minScale = toDouble(*minScale);
  if (maxScale)
    settings.maxScale = toDouble(*maxScale);
  return settings;
}

LossScalingAttr LossScalingAttr::getStatic(MLIRContext *context,
                                           double initScale) {
  return get(context, LossScalingMode::Static, APFloat(initScale), std::nullopt,
             std::nullopt, std::nullopt, std::nullopt, std::nullopt,
             std::nullopt);
}

LossScalingAttr LossScalingAttr::getDynamic(MLIRContext *context,
                                            const ScalerSettings &settings) {
  assert(settings.initScale && "a dynamic scaler starts at a given scale");
  auto clamp = [](std::optional<double> value) -> std::optional<APFloat> {
    if (!value)
      return std::nullopt;
    return APFloat(*value);
  };
  return get(context, LossScalingMode::Dynamic, APFloat(*settings.initScale),
             APFloat(settings.growthFactor), APFloat(settings.backoffFactor),
             settings.growthInterval, settings.hysteresis,
             clamp(settings.minScale), clamp(settings.maxScale));
}

ScalerSettings LossScalingAttr::getSettings() const {
  return getSettingsOf(getInitScale(), getGrowthFactor(), getBackoffFactor(),
                       getGrowthInterval(), getHysteresis(), getMinScale(),
                       getMaxScale());
}

LogicalResult LossScalingAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, LossScalingMode mode,
    APFloat initScale, std::optional<APFloat> growthFactor,
    std::optional<APFloat> backoffFactor, std::optional<int64_t> growthInterval,
    std::optional<int64_t> hysteresis, std::optional<APFloat> minScale,
    std::optional<APFloat> maxScale) {
  // A static scale never changes: it has nothing to grow, back off or
  // clamp. A dynamic one needs all but the clamps.
  struct Setting {
    StringRef name;
    bool present, required;
  };
  Setting dynamicOnly[] = {{kGrowthFactor, growthFactor.has_value(), true},
                           {kBackoffFactor, backoffFactor.has_value(), true},
                           {kGrowthInterval, growthInterval.has_value(), true},
                           {kHysteresis, hysteresis.has_value(), true},
                           {kMinScale, minScale.has_value(), false},
                           {kMaxScale, maxScale.has_value(), false}};
  for (const Setting &setting : dynamicOnly) {
    if (mode == LossScalingMode::Static && setting.present)
      return emitError() << "#amp.loss_scaling<static> takes " << kInitScale
                         << " only, got '" << setting.name << "'";
    if (mode == LossScalingMode::Dynamic && setting.required &&
        !setting.present)
      return emitError() << "#amp.loss_scaling lacks '" << setting.name
                         << "' (dynamic scaling needs it)";
  }
  std::string problem = checkScalerSettings(
      getSettingsOf(initScale, growthFactor, backoffFactor, growthInterval,
                    hysteresis, minScale, maxScale),
      /*optionNames=*/false);
  if (!problem.empty())
    return emitError() << "#amp.loss_scaling " << problem;
  return success();
}

/// `<` and the keyword of one of an enum's cases: the case, or nullopt
/// after an error at the keyword that says which are valid (`expected`, as
/// "a place is arena, arg or view").
template <typename Enum>
static std::optional<Enum>
parseLessAndCase(AsmParser &parser, std::optional<Enum> (*symbolize)(StringRef),
                 StringRef expected) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseLess() || parser.parseKeyword(&keyword))
    return std::nullopt;
  std::optional<Enum> value = symbolize(keyword);
  if (!value)
    parser.emitError(loc) << expected << ", got '" << keyword << "'";
  return value;
}

/// `<` mode (`,` name `=` value)* `>`, the settings in any order, each
/// once; the verifier says which the mode takes.
Attribute LossScalingAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  std::optional<LossScalingMode> mode = parseLessAndCase(
      parser, symbolizeLossScalingMode, "a loss scaler is dynamic or static");
  if (!mode)
    return {};
  std::optional<APFloat> initScale, growthFactor, backoffFactor, minScale,
      maxScale;
  std::optional<int64_t> growthInterval, hysteresis;
  while (succeeded(parser.parseOptionalComma())) {
    SMLoc nameLoc = parser.getCurrentLocation();
    StringRef name;
    if (parser.parseKeyword(&name) || parser.parseEqual())
      return {};
    auto twice = [&] {
      return parser.emitError(nameLoc)
             << "#amp.loss_scaling gives '" << name << "' twice";
    };
    // Scales and factors are f64, as amp.scaler_update holds them.
    auto parseF64 = [&](std::optional<APFloat> &slot) -> ParseResult {
      if (slot)
        return twice();
      double value = 0;
      if (parser.parseFloat(value))
        return failure();
      slot = APFloat(value);
      return success();
    };
    auto parseI64 = [&](std::optional<int64_t> &slot) -> ParseResult {
      if (slot)
        return twice();
      // The parser reads `true` as the integer -1.
      SMLoc valueLoc = parser.getCurrentLocation();
      if (succeeded(parser.parseOptionalKeyword("true")) ||
          succeeded(parser.parseOptionalKeyword("false")))
        return parser.emitError(valueLoc)
               << "#amp.loss_scaling '" << name
               << "' takes an integer, not a boolean";
      int64_t value = 0;
      if (parser.parseInteger(value))
        return failure();
      slot = value;
      return success();
    };
    ParseResult parsed = failure();
    if (name == kInitScale)
      parsed = parseF64(initScale);
    else if (name == kGrowthFactor)
      parsed = parseF64(growthFactor);
    else if (name == kBackoffFactor)
      parsed = parseF64(backoffFactor);
    else if (name == kGrowthInterval)
      parsed = parseI64(growthInterval);
    else if (name == kHysteresis)
      parsed = parseI64(hysteresis);
    else if (name == kMinScale)
      parsed = parseF64(minScale);
    else if (name == kMaxScale)
      parsed = parseF64(maxScale);
    else
      parsed = parser.emitError(nameLoc)
               << "#amp.loss_scaling has no setting '" << name << "'; it takes "
               << kInitScale << ", " << kGrowthFactor << ", " << kBackoffFactor
               << ", " << kGrowthInterval << ", " << kHysteresis << ", "
               << kMinScale << " and " << kMaxScale;
    if (failed(parsed))
      return {};
  }
  if (parser.parseGreater())
    return {};
  if (!initScale) {
    parser.emitError(loc) << "#amp.loss_scaling lacks '" << kInitScale << "' ("
                          << stringifyLossScalingMode(*mode)
                          << " scaling needs it)";
    return {};
  }
  return getChecked([&] { return parser.emitError(loc); }, parser.getContext(),
                    *mode, *initScale, growthFactor, backoffFactor,
                    growthInterval, hysteresis, minScale, maxScale);
}

void LossScalingAttr::print(AsmPrinter &printer) const {
  auto printF64 = [&](StringRef name, std::optional<APFloat> value) {
    if (!value)
      return;
    printer << ", " << name << " = ";
    printer.printFloat(*value);
  };
  auto printI64 = [&](StringRef name, std::optional<int64_t> value) {
    if (value)
      printer << ", " << name << " = " << *value;
  };
  printer << "<" << stringifyLossScalingMode(getMode());
  printF64(kInitScale, getInitScale());
  printF64(kGrowthFactor, getGrowthFactor());
  printF64(kBackoffFactor, getBackoffFactor());
  printI64(kGrowthInterval, getGrowthInterval());
  printI64(kHysteresis, getHysteresis());
  printF64(kMinScale, getMinScale());
  printF64(kMaxScale, getMaxScale());
  printer << ">";
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
  std::optional<PlaceKind> kind = parseLessAndCase(
      parser, symbolizePlaceKind, "a place is arena, arg or view");
  if (!kind)
    return {};
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
