//===- OptionEnums.h - the passes' enumerated options -----------*- C++ -*-===//
//
// The values of the pass and tool options that name one of a few choices
// (compute-type, loss scaling's mode, optimizer), as enums with their
// spellings, and the llvm::cl parser that reads them: amp-autocast,
// --amp-train-step, amp-compile and the Python API (which passes the text
// through) accept the same spellings, aliases included, and refuse others
// with the same message at the option, before any pass runs.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_TRANSFORMS_OPTIONENUMS_H
#define AMP_DIALECT_AMP_TRANSFORMS_OPTIONENUMS_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <utility>

namespace mlir::amp {

/// What amp-autocast narrows the lower-precision ops to; `none` runs no
/// autocast (the graph keeps its precision).
/// `fp8` is bf16 with FP8 GEMMs (`fp8_f16`: f16 with them, and the loss
/// scaler f16 brings).
enum class ComputeType { f16, bf16, fp8, fp8_f16, none };

/// The compute type when none is given, of amp-autocast, --amp-train-step,
/// amp-compile and the Python API alike: f16, PyTorch's autocast default
/// on CUDA.
constexpr ComputeType kDefaultComputeType = ComputeType::f16;

/// amp-loss-scaling's mode: `automatic` (spelled auto) is dynamic where
/// the loss's gradient holds f16 values and none otherwise.
enum class LossScalingOption { automatic, dynamic, fixed, none };

/// amp-optimizer's update rule: adam is Adam with its decay coupled to the
/// gradient (torch.optim.Adam), adamw decoupled (torch.optim.AdamW).
enum class OptimizerKind { sgd, adam, adamw };

/// The optimizer when none is given, of --amp-optimizer, --amp-train-step,
/// amp-compile and the Python API alike: AdamW (PyTorch's default weight
/// decay of 0.01 with it), the optimizer of the transformer recipes.
constexpr OptimizerKind kDefaultOptimizer = OptimizerKind::adamw;

/// One spelling of an option's value: the first spelling of each value is
/// its name, the one printed.
template <typename Enum> struct OptionSpelling {
  StringRef spelling;
  Enum value;
};

/// What the option parser needs of an enum: its spellings, what a value
/// is called in an error, and the values an error lists.
template <typename Enum> struct OptionEnumInfo;

template <> struct OptionEnumInfo<ComputeType> {
  static constexpr OptionSpelling<ComputeType> spellings[] = {
      {"f16", ComputeType::f16},         {"fp16", ComputeType::f16},
      {"float16", ComputeType::f16},     {"half", ComputeType::f16},
      {"bf16", ComputeType::bf16},       {"bfloat16", ComputeType::bf16},
      {"fp8", ComputeType::fp8},         {"float8", ComputeType::fp8},
      {"fp8-f16", ComputeType::fp8_f16}, {"none", ComputeType::none},
      {"f32", ComputeType::none},        {"fp32", ComputeType::none},
      {"float32", ComputeType::none}};
  static constexpr StringLiteral what = "compute-type";
  static constexpr StringLiteral expected =
      "f16 (or fp16, float16, half), bf16 (or bfloat16), fp8 (or float8: "
      "bf16 with FP8 GEMMs), fp8-f16 (f16 with FP8 GEMMs) or none (or f32, "
      "fp32, float32: no casts)";
};

template <> struct OptionEnumInfo<LossScalingOption> {
  static constexpr OptionSpelling<LossScalingOption> spellings[] = {
      {"auto", LossScalingOption::automatic},
      {"dynamic", LossScalingOption::dynamic},
      {"static", LossScalingOption::fixed},
      {"none", LossScalingOption::none}};
  static constexpr StringLiteral what = "loss-scaling mode";
  static constexpr StringLiteral expected = "auto, dynamic, static or none";
};

template <> struct OptionEnumInfo<OptimizerKind> {
  static constexpr OptionSpelling<OptimizerKind> spellings[] = {
      {"sgd", OptimizerKind::sgd},
      {"adam", OptimizerKind::adam},
      {"adamw", OptimizerKind::adamw}};
  static constexpr StringLiteral what = "optimizer";
  static constexpr StringLiteral expected = "sgd, adam or adamw";
};

/// The name of `value`: its first spelling.
template <typename Enum> StringRef stringifyOption(Enum value) {
  for (const OptionSpelling<Enum> &entry : OptionEnumInfo<Enum>::spellings)
    if (entry.value == value)
      return entry.spelling;
  return "?";
}

/// The value `spelling` names, if any.
template <typename Enum> std::optional<Enum> parseOption(StringRef spelling) {
  for (const OptionSpelling<Enum> &entry : OptionEnumInfo<Enum>::spellings)
    if (entry.spelling == spelling)
      return entry.value;
  return std::nullopt;
}

/// The message for a value `spelling` that names none.
template <typename Enum> std::string unknownOptionMessage(StringRef spelling) {
  return ("unknown " + OptionEnumInfo<Enum>::what + " '" + spelling +
          "'; expected " + OptionEnumInfo<Enum>::expected)
      .str();
}

inline raw_ostream &operator<<(raw_ostream &os, ComputeType value) {
  return os << stringifyOption(value);
}
inline raw_ostream &operator<<(raw_ostream &os, LossScalingOption value) {
  return os << stringifyOption(value);
}
inline raw_ostream &operator<<(raw_ostream &os, OptimizerKind value) {
  return os << stringifyOption(value);
}

/// llvm::cl's parser for the enums above: the spellings of
/// OptionEnumInfo, and unknownOptionMessage for any other.
template <typename Enum>
class EnumOptionParser : public llvm::cl::basic_parser<Enum> {
public:
  using llvm::cl::basic_parser<Enum>::basic_parser;

  bool parse(llvm::cl::Option &option, StringRef, StringRef arg, Enum &value) {
    if (std::optional<Enum> parsed = parseOption<Enum>(arg)) {
      value = *parsed;
      return false;
    }
    return option.error(unknownOptionMessage<Enum>(arg));
  }

  StringRef getValueName() const override { return "name"; }

  void printOptionDiff(const llvm::cl::Option &option, Enum value,
                       const llvm::cl::OptionValue<Enum> &defaultValue,
                       size_t globalWidth) const {
    this->printOptionName(option, globalWidth);
    llvm::outs() << "= " << stringifyOption(value);
    if (defaultValue.hasValue())
      llvm::outs() << " (default: " << stringifyOption(defaultValue.getValue())
                   << ")";
    llvm::outs() << "\n";
  }
};

} // namespace mlir::amp

namespace llvm::cl {
template <>
class parser<mlir::amp::ComputeType>
    : public mlir::amp::EnumOptionParser<mlir::amp::ComputeType> {
public:
  using EnumOptionParser::EnumOptionParser;
};
template <>
class parser<mlir::amp::LossScalingOption>
    : public mlir::amp::EnumOptionParser<mlir::amp::LossScalingOption> {
public:
  using EnumOptionParser::EnumOptionParser;
};
template <>
class parser<mlir::amp::OptimizerKind>
    : public mlir::amp::EnumOptionParser<mlir::amp::OptimizerKind> {
public:
  using EnumOptionParser::EnumOptionParser;
};
} // namespace llvm::cl

#endif // AMP_DIALECT_AMP_TRANSFORMS_OPTIONENUMS_H
