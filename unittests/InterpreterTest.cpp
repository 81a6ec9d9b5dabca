//===- InterpreterTest.cpp - semantics of every op in the interpreter -----===//
//
// Every op the reference interpreter executes, run through the public API
// (parse a module, Interpreter::run) and compared against an independent
// oracle: figures worked out by hand (the arithmetic is in the comments) or
// a plain formula evaluated in f64 inside the test. Rounding to f16/bf16 in
// the oracle goes through LLVM's APFloat, an IEEE implementation that shares
// nothing with the interpreter's own rounding (amprt / roundToKind). Nothing
// here calls the interpreter's kernels directly.
//
// The numerics contract under test (Interpreter.h): f16/bf16/f32 ops compute
// in f32 and f64 ops in f64; each result is rounded once to its result type
// (to nearest, ties to even); matmul/sum/mean accumulate in their
// accumulator type in ascending index order, products rounded to that type,
// and accumulators narrower than f32 round after every addition.
//
//===----------------------------------------------------------------------===//

#include "amp/Interpreter/Interpreter.h"
#include "amp/InitAll.h"
#include "amp/Interpreter/RandomInputs.h"
#include "amp/Interpreter/Tensor.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/APFloat.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

using namespace mlir;
using namespace mlir::amp::interp;

namespace {

using Shape = std::vector<int64_t>;
using Data = std::vector<double>;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

//===----------------------------------------------------------------------===//
// Oracle helpers: rounding through APFloat, ulps, formatting
//===----------------------------------------------------------------------===//

/// `value` rounded once to `semantics` (to nearest, ties to even), as f64.
double roundVia(double value, const llvm::fltSemantics &semantics) {
  llvm::APFloat f(value);
  bool losesInfo = false;
  f.convert(semantics, llvm::APFloat::rmNearestTiesToEven, &losesInfo);
  f.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
            &losesInfo); // Exact: every narrower value fits in f64.
  return f.convertToDouble();
}
double toF16(double v) { return roundVia(v, llvm::APFloat::IEEEhalf()); }
double toBF16(double v) { return roundVia(v, llvm::APFloat::BFloat()); }
double toF32(double v) { return roundVia(v, llvm::APFloat::IEEEsingle()); }

/// The spacing of a binary format at magnitude |v| (subnormals included).
double ulpOf(double v, int mantissaBits, int minExponent) {
  v = std::fabs(v);
  int e = minExponent;
  if (v != 0 && std::isfinite(v)) {
    int frexpExponent;
    std::frexp(v, &frexpExponent); // v = f * 2^e, f in [0.5, 1)
    e = std::max(frexpExponent - 1, minExponent);
  }
  return std::ldexp(1.0, e - mantissaBits);
}
double ulpF32(double v) { return ulpOf(v, 23, -126); }
double ulpF16(double v) { return ulpOf(v, 10, -14); }
double ulpBF16(double v) { return ulpOf(v, 7, -126); }
double ulpF64(double v) { return ulpOf(v, 52, -1022); }

struct Format {
  const char *name;
  ElementKind kind;
  double (*round)(double);
  double (*ulp)(double);
};
const Format kF16{"f16", ElementKind::F16, toF16, ulpF16};
const Format kBF16{"bf16", ElementKind::BF16, toBF16, ulpBF16};

std::string fmt(double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.17g", v);
  return buffer;
}

Data roundAll(Data values, double (*round)(double)) {
  for (double &v : values)
    v = round(v);
  return values;
}

/// Deterministic, f32-exact test data: amplitude * sin(0.7 i + phase).
Data wave(int64_t n, double phase, double amplitude = 1.0) {
  Data data(n);
  for (int64_t i = 0; i < n; ++i)
    data[i] = toF32(amplitude * std::sin(0.7 * static_cast<double>(i) + phase));
  return data;
}

const char *typeName(ElementKind kind) {
  return stringifyElementKind(kind).data();
}

/// "tensor<2x3xf32>", "tensor<f32>".
std::string tensorType(const Shape &shape, ElementKind kind) {
  std::string s = "tensor<";
  for (int64_t d : shape)
    s += std::to_string(d) + "x";
  return s + typeName(kind) + ">";
}

//===----------------------------------------------------------------------===//
// Comparisons
//===----------------------------------------------------------------------===//

bool sameValue(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || a == b;
}

/// Exact comparison of kind, shape and every element (NaN matches NaN).
void expectTensor(const Tensor &t, ElementKind kind, const Shape &shape,
                  const Data &expected, const std::string &what = "") {
  EXPECT_EQ(typeName(t.getKind()), std::string(typeName(kind))) << what;
  EXPECT_EQ(Shape(t.getShape().begin(), t.getShape().end()), shape) << what;
  ASSERT_EQ(static_cast<size_t>(t.getNumElements()), expected.size()) << what;
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_TRUE(sameValue(t[i], expected[i]))
        << what << " element " << i << ": got " << fmt(t[i]) << ", expected "
        << fmt(expected[i]);
}

/// |actual - exact| <= ulps * (f32 ulp at exact), and actual is an f32.
void expectF32Ulps(double actual, double exact, double ulps,
                   const std::string &what) {
  if (std::isnan(exact)) {
    EXPECT_TRUE(std::isnan(actual)) << what << ": got " << fmt(actual);
    return;
  }
  EXPECT_EQ(toF32(actual), actual)
      << what << ": " << fmt(actual) << " is not an f32 value";
  EXPECT_LE(std::fabs(actual - exact), ulps * ulpF32(exact))
      << what << ": got " << fmt(actual) << ", f64 formula " << fmt(exact)
      << " (" << (actual - exact) / ulpF32(exact) << " ulps)";
}

/// `actual` must be `exact` (an f64 formula) rounded once to `format`. The
/// op computes in f32 and rounds that to the format, which legitimately
/// lands on the other neighbour when `exact` lies within a few f32 ulps of
/// the midpoint of two neighbours (a possible tie): there, and only there,
/// the neighbour one ulp away is accepted too.
void expectRoundedOnce(double actual, double exact, const Format &format,
                       const std::string &what, double tieWindowF32Ulps = 4) {
  if (std::isnan(exact)) {
    EXPECT_TRUE(std::isnan(actual)) << what << ": got " << fmt(actual);
    return;
  }
  double rounded = format.round(exact);
  if (actual == rounded)
    return;
  bool isValue = format.round(actual) == actual;
  bool neighbour = std::fabs(actual - rounded) <=
                   std::max(format.ulp(actual), format.ulp(rounded));
  double midpoint = (actual + rounded) / 2;
  bool nearTie =
      std::fabs(exact - midpoint) <= tieWindowF32Ulps * ulpF32(exact);
  EXPECT_TRUE(isValue && neighbour && nearTie)
      << what << ": got " << fmt(actual) << ", f64 formula " << fmt(exact)
      << " rounds to " << fmt(rounded) << " in " << format.name
      << (nearTie ? "" : " (not near a tie)");
}

/// |actual - expected| <= relative * max(|expected|, floor).
void expectClose(double actual, double expected, double relative, double floor,
                 const std::string &what) {
  if (std::isnan(expected)) {
    EXPECT_TRUE(std::isnan(actual)) << what;
    return;
  }
  EXPECT_LE(std::fabs(actual - expected),
            relative * std::max(std::fabs(expected), floor))
      << what << ": got " << fmt(actual) << ", f64 reference " << fmt(expected);
}

bool contains(const std::string &haystack, const std::string &needle) {
  return haystack.find(needle) != std::string::npos;
}

//===----------------------------------------------------------------------===//
// Fixture
//===----------------------------------------------------------------------===//

class InterpreterTest : public ::testing::Test {
protected:
  InterpreterTest() {
    DialectRegistry registry;
    amp::registerAllDialects(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
    // Every diagnostic (errors and their notes) lands in `diagnostics`.
    handler = std::make_unique<ScopedDiagnosticHandler>(
        &ctx, [this](Diagnostic &diag) {
          diagnostics += diag.str();
          for (Diagnostic &note : diag.getNotes())
            diagnostics += "\n  note: " + note.str();
          diagnostics += "\n";
          return success();
        });
  }

  /// Parses `source` into `module`; fails the test if it does not parse.
  bool parse(const std::string &source) {
    diagnostics.clear();
    module = parseSourceString<ModuleOp>(source, &ctx);
    if (!module) {
      ADD_FAILURE() << "module does not parse:\n"
                    << diagnostics << "\n"
                    << source;
      return false;
    }
    return true;
  }

  func::FuncOp lookup(StringRef name) {
    return module->lookupSymbol<func::FuncOp>(name);
  }

  /// Parses `source` and runs `@name` on `args`. Nullopt when the run
  /// fails; its diagnostics are in `diagnostics`.
  std::optional<std::vector<Tensor>> run(const std::string &source,
                                         std::vector<Tensor> args,
                                         InterpreterOptions options = {},
                                         StringRef name = "main") {
    stoppedAtNonFinite = false;
    if (!parse(source))
      return std::nullopt;
    func::FuncOp func = lookup(name);
    if (!func) {
      ADD_FAILURE() << "no function @" << name.str();
      return std::nullopt;
    }
    Interpreter interpreter(*module, options);
    FailureOr<std::vector<Tensor>> results = interpreter.run(func, args);
    stoppedAtNonFinite = interpreter.stoppedAtNonFinite();
    if (failed(results))
      return std::nullopt;
    return std::move(*results);
  }

  /// Runs a function expected to succeed with exactly one result.
  std::optional<Tensor> run1(const std::string &source,
                             std::vector<Tensor> args,
                             InterpreterOptions options = {}) {
    std::optional<std::vector<Tensor>> results =
        run(source, std::move(args), options);
    if (!results)
      return std::nullopt;
    if (results->size() != 1) {
      ADD_FAILURE() << "expected one result, got " << results->size();
      return std::nullopt;
    }
    return results->front();
  }

  /// A one-op function `%y = <body> : <type>` on a 1-D tensor of `xs`.
  std::optional<Tensor> runUnary(const std::string &body, ElementKind kind,
                                 const Data &xs) {
    std::string type = tensorType({static_cast<int64_t>(xs.size())}, kind);
    std::string source = "func.func @main(%x: " + type + ") -> " + type +
                         " {\n  %y = " + body + " : " + type +
                         "\n  return %y : " + type + "\n}\n";
    return run1(source, {Tensor(kind, {static_cast<int64_t>(xs.size())}, xs)});
  }

  MLIRContext ctx;
  std::unique_ptr<ScopedDiagnosticHandler> handler;
  OwningOpRef<ModuleOp> module;
  std::string diagnostics;
  bool stoppedAtNonFinite = false;
};

Tensor f32(const Shape &shape, const Data &data) {
  for (double v : data)
    EXPECT_TRUE(std::isnan(v) || toF32(v) == v)
        << "test bug: " << fmt(v) << " is not an f32 value";
  return Tensor(ElementKind::F32, shape, data);
}
Tensor f16(const Shape &shape, const Data &data) {
  for (double v : data)
    EXPECT_TRUE(std::isnan(v) || toF16(v) == v)
        << "test bug: " << fmt(v) << " is not an f16 value";
  return Tensor(ElementKind::F16, shape, data);
}
Tensor bf16(const Shape &shape, const Data &data) {
  for (double v : data)
    EXPECT_TRUE(std::isnan(v) || toBF16(v) == v)
        << "test bug: " << fmt(v) << " is not a bf16 value";
  return Tensor(ElementKind::BF16, shape, data);
}
Tensor f64(const Shape &shape, const Data &data) {
  return Tensor(ElementKind::F64, shape, data);
}
Tensor i64(const Shape &shape, const Data &data) {
  return Tensor(ElementKind::I64, shape, data);
}
Tensor i32(const Shape &shape, const Data &data) {
  return Tensor(ElementKind::I32, shape, data);
}
Tensor i1(const Shape &shape, const Data &data) {
  return Tensor(ElementKind::I1, shape, data);
}

#define ASSERT_RUN(var, expr)                                                  \
  auto var##Opt = (expr);                                                      \
  ASSERT_TRUE(var##Opt.has_value()) << diagnostics;                            \
  auto &var = *var##Opt

//===----------------------------------------------------------------------===//
// f64 formulas of the unary ops
//===----------------------------------------------------------------------===//

double geluErf(double x) {
  return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
}
double geluTanh(double x) {
  return 0.5 * x *
         (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
}
double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

struct UnaryCase {
  std::string body; // "amp.exp %x"
  std::function<double(double)> formula;
  Data xs;
};

// Inputs where the formulas are well conditioned in f32 (for gelu, no large
// negative x, where 1 + erf/tanh cancels catastrophically).
const Data kAnyXs = {-3.0, -1.25, -0.5, -0.1, 0.0, 0.1, 0.75, 1.0, 2.5, 4.0};
const Data kPositiveXs = {0.01, 0.1, 0.5, 1.0, 2.0, 3.7, 100.0, 12345.0};
const Data kGeluXs = {-0.5, -0.1, 0.0, 0.1, 0.75, 1.0, 2.5, 4.0};
// Both sides of softplus's threshold (20) and far left, where ln(1 + e^x)
// is e^x.
const Data kSoftplusXs = {-30.0, -3.0, -0.5, 0.0, 0.5, 3.0, 15.0, 25.0, 90.0};

std::vector<UnaryCase> unaryCases() {
  return {
      {"amp.neg %x", [](double x) { return -x; }, kAnyXs},
      {"amp.abs %x", [](double x) { return std::fabs(x); }, kAnyXs},
      {"amp.exp %x", [](double x) { return std::exp(x); }, kAnyXs},
      {"amp.log %x", [](double x) { return std::log(x); }, kPositiveXs},
      {"amp.sqrt %x", [](double x) { return std::sqrt(x); }, kPositiveXs},
      {"amp.rsqrt %x", [](double x) { return 1.0 / std::sqrt(x); },
       kPositiveXs},
      {"amp.tanh %x", [](double x) { return std::tanh(x); }, kAnyXs},
      {"amp.sigmoid %x", sigmoid, kAnyXs},
      {"amp.softplus %x",
       [](double x) { return x > 20 ? x : std::log1p(std::exp(x)); },
       kSoftplusXs},
      {"amp.relu %x", [](double x) { return x < 0 ? 0.0 : x; }, kAnyXs},
      {"amp.gelu %x", geluErf, kGeluXs},
      {"amp.gelu %x approximate = erf", geluErf, kGeluXs},
      {"amp.gelu %x approximate = tanh", geluTanh, kGeluXs},
      {"amp.pow %x, 2.0", [](double x) { return x * x; }, kAnyXs},
      {"amp.pow %x, 3.0", [](double x) { return x * x * x; }, kAnyXs},
      {"amp.pow %x, 0.5", [](double x) { return std::sqrt(x); }, kPositiveXs},
      {"amp.pow %x, -1.5", [](double x) { return std::pow(x, -1.5); },
       kPositiveXs},
  };
}

//===----------------------------------------------------------------------===//
// Unary ops
//===----------------------------------------------------------------------===//

// f32: within 2 f32 ulps of the f64 formula.
TEST_F(InterpreterTest, UnaryF32MatchesF64Formulas) {
  for (const UnaryCase &c : unaryCases()) {
    Data xs = roundAll(c.xs, toF32);
    ASSERT_RUN(y, runUnary(c.body, ElementKind::F32, xs));
    expectTensor(y, ElementKind::F32, {static_cast<int64_t>(xs.size())},
                 y.getData().vec(), c.body); // kind and shape
    for (size_t i = 0; i < xs.size(); ++i)
      expectF32Ulps(y[i], c.formula(xs[i]), 2,
                    c.body + " at x = " + fmt(xs[i]));
  }
}

// f16: the f64 formula rounded once to f16 (the neighbour only near a tie).
TEST_F(InterpreterTest, UnaryF16IsF64FormulaRoundedToF16) {
  for (const UnaryCase &c : unaryCases()) {
    Data xs = roundAll(c.xs, toF16);
    ASSERT_RUN(y, runUnary(c.body, ElementKind::F16, xs));
    EXPECT_EQ(y.getKind(), ElementKind::F16) << c.body;
    ASSERT_EQ(y.getNumElements(), static_cast<int64_t>(xs.size()));
    for (size_t i = 0; i < xs.size(); ++i)
      expectRoundedOnce(y[i], c.formula(xs[i]), kF16,
                        c.body + " at x = " + fmt(xs[i]));
  }
}

// A hand-picked f16 case: exp(1) = 2.718281828...; f16 spacing in [2, 4) is
// 2^-9, 2.718281828 * 512 = 1391.76 -> 1392 / 512 = 2.71875.
// sqrt(2) = 1.41421356; spacing 2^-10: 1448.15 -> 1448 / 1024 = 1.4140625.
TEST_F(InterpreterTest, UnaryF16ByHand) {
  ASSERT_RUN(e, runUnary("amp.exp %x", ElementKind::F16, {1.0}));
  expectTensor(e, ElementKind::F16, {1}, {2.71875});
  ASSERT_RUN(s, runUnary("amp.sqrt %x", ElementKind::F16, {2.0}));
  expectTensor(s, ElementKind::F16, {1}, {1.4140625});
}

// bf16: exp, tanh and sigmoid rounded once to bf16. By hand for exp(1): bf16
// spacing in [2, 4) is 2^-6; 2.718281828 * 64 = 173.97 -> 174 / 64 = 2.71875.
TEST_F(InterpreterTest, UnaryBF16IsF64FormulaRoundedToBF16) {
  ASSERT_RUN(e, runUnary("amp.exp %x", ElementKind::BF16, {1.0}));
  expectTensor(e, ElementKind::BF16, {1}, {2.71875});
  Data xs = roundAll({-2.0, -0.5, 0.0, 0.3, 1.0, 1.5, 3.0}, toBF16);
  struct {
    const char *body;
    double (*formula)(double);
  } cases[] = {{"amp.exp %x", [](double x) { return std::exp(x); }},
               {"amp.tanh %x", [](double x) { return std::tanh(x); }},
               {"amp.sigmoid %x", sigmoid}};
  for (const auto &c : cases) {
    ASSERT_RUN(y, runUnary(c.body, ElementKind::BF16, xs));
    EXPECT_EQ(y.getKind(), ElementKind::BF16);
    ASSERT_EQ(y.getNumElements(), static_cast<int64_t>(xs.size()));
    for (size_t i = 0; i < xs.size(); ++i)
      expectRoundedOnce(y[i], c.formula(xs[i]), kBF16,
                        std::string(c.body) + " at x = " + fmt(xs[i]));
  }
}

// f64 ops compute in f64: exp(1e-10) = 1.0000000001 (f32 would give 1.0).
TEST_F(InterpreterTest, UnaryF64ComputesInF64) {
  Data xs = {1e-10, -0.5, 2.0, 30.0};
  ASSERT_RUN(e, runUnary("amp.exp %x", ElementKind::F64, xs));
  ASSERT_RUN(t, runUnary("amp.tanh %x", ElementKind::F64, xs));
  for (size_t i = 0; i < xs.size(); ++i) {
    EXPECT_LE(std::fabs(e[i] - std::exp(xs[i])), 2 * ulpF64(std::exp(xs[i])))
        << "exp at " << fmt(xs[i]);
    EXPECT_LE(std::fabs(t[i] - std::tanh(xs[i])), 2 * ulpF64(std::tanh(xs[i])))
        << "tanh at " << fmt(xs[i]);
  }
  EXPECT_NE(e[0], 1.0);
}

// relu: max(x, 0); NaN stays NaN, negatives become 0.
TEST_F(InterpreterTest, ReluKeepsNaNAndZeroesNegatives) {
  Data xs = {kNaN, -2.0, -0.5, 0.0, 0.5, 3.0, -kInf, kInf};
  ASSERT_RUN(y, runUnary("amp.relu %x", ElementKind::F32, xs));
  expectTensor(y, ElementKind::F32, {8}, {kNaN, 0, 0, 0, 0.5, 3, 0, kInf});
  ASSERT_RUN(h, runUnary("amp.relu %x", ElementKind::F16, xs));
  expectTensor(h, ElementKind::F16, {8}, {kNaN, 0, 0, 0, 0.5, 3, 0, kInf});
}

// Unary edge values by hand: log(0) = -inf, sqrt(-1) = NaN, rsqrt(0) = inf,
// exp(100) overflows f32 (e^100 = 2.7e43 > 3.4e38) and exp(12) overflows
// f16 (162754.8 > 65504). sigmoid(-100) = 3.7e-44 is an f32 subnormal, but
// 1 / (1 + e^100) in f32 is 1 / inf = 0 (e^100 overflows on the way), so
// either is accepted: only its range is checked.
TEST_F(InterpreterTest, UnaryEdgeValues) {
  ASSERT_RUN(l, runUnary("amp.log %x", ElementKind::F32, {0.0, 1.0}));
  expectTensor(l, ElementKind::F32, {2}, {-kInf, 0.0});
  ASSERT_RUN(s, runUnary("amp.sqrt %x", ElementKind::F32, {-1.0, 4.0}));
  expectTensor(s, ElementKind::F32, {2}, {kNaN, 2.0});
  ASSERT_RUN(r, runUnary("amp.rsqrt %x", ElementKind::F32, {0.0, 4.0}));
  expectTensor(r, ElementKind::F32, {2}, {kInf, 0.5});
  ASSERT_RUN(e, runUnary("amp.exp %x", ElementKind::F32, {100.0}));
  expectTensor(e, ElementKind::F32, {1}, {kInf});
  ASSERT_RUN(h, runUnary("amp.exp %x", ElementKind::F16, {12.0}));
  expectTensor(h, ElementKind::F16, {1}, {kInf});
  ASSERT_RUN(g, runUnary("amp.sigmoid %x", ElementKind::F32, {-100.0, 100.0}));
  EXPECT_GE(g[0], 0.0);
  EXPECT_LT(g[0], 1e-40);
  EXPECT_EQ(g[1], 1.0);
}

//===----------------------------------------------------------------------===//
// Binary ops and broadcasting
//===----------------------------------------------------------------------===//

std::string binaryModule(const std::string &lhsType, const std::string &rhsType,
                         const std::string &resultType) {
  std::string s =
      "func.func @main(%a: " + lhsType + ", %b: " + rhsType + ") -> (";
  const char *ops[] = {"add", "sub", "mul", "div", "maximum", "minimum"};
  for (int i = 0; i < 6; ++i)
    s += std::string(i ? ", " : "") + resultType;
  s += ") {\n";
  for (int i = 0; i < 6; ++i)
    s += "  %" + std::to_string(i) + " = amp." + ops[i] +
         " %a, %b : " + lhsType + ", " + rhsType + "\n";
  s += "  return %0, %1, %2, %3, %4, %5 : ";
  for (int i = 0; i < 6; ++i)
    s += std::string(i ? ", " : "") + resultType;
  return s + "\n}\n";
}

// [2, 3] with [3]: b is repeated for every row.
// a = [[1, -2, 3], [4, 5, -6]], b = [2, 0.5, -4]
TEST_F(InterpreterTest, BinaryBroadcastsTrailingVector) {
  ASSERT_RUN(
      r,
      run(binaryModule("tensor<2x3xf32>", "tensor<3xf32>", "tensor<2x3xf32>"),
          {f32({2, 3}, {1, -2, 3, 4, 5, -6}), f32({3}, {2, 0.5, -4})}));
  ASSERT_EQ(r.size(), 6u);
  Shape s = {2, 3};
  expectTensor(r[0], ElementKind::F32, s, {3, -1.5, -1, 6, 5.5, -10}, "add");
  expectTensor(r[1], ElementKind::F32, s, {-1, -2.5, 7, 2, 4.5, -2}, "sub");
  expectTensor(r[2], ElementKind::F32, s, {2, -1, -12, 8, 2.5, 24}, "mul");
  expectTensor(r[3], ElementKind::F32, s, {0.5, -4, -0.75, 2, 10, 1.5}, "div");
  expectTensor(r[4], ElementKind::F32, s, {2, 0.5, 3, 4, 5, -4}, "maximum");
  expectTensor(r[5], ElementKind::F32, s, {1, -2, -4, 2, 0.5, -6}, "minimum");
}

// [2, 1] with [1, 3] -> [2, 3]: a = [[1], [2]] stretches along columns,
// b = [[2, 4, 0.5]] along rows. Element (i, j) = op(a[i], b[j]).
TEST_F(InterpreterTest, BinaryBroadcastsBothOperands) {
  ASSERT_RUN(r, run(binaryModule("tensor<2x1xf32>", "tensor<1x3xf32>",
                                 "tensor<2x3xf32>"),
                    {f32({2, 1}, {1, 2}), f32({1, 3}, {2, 4, 0.5})}));
  ASSERT_EQ(r.size(), 6u);
  Shape s = {2, 3};
  expectTensor(r[0], ElementKind::F32, s, {3, 5, 1.5, 4, 6, 2.5}, "add");
  expectTensor(r[1], ElementKind::F32, s, {-1, -3, 0.5, 0, -2, 1.5}, "sub");
  expectTensor(r[2], ElementKind::F32, s, {2, 4, 0.5, 4, 8, 1}, "mul");
  expectTensor(r[3], ElementKind::F32, s, {0.5, 0.25, 2, 1, 0.5, 4}, "div");
  expectTensor(r[4], ElementKind::F32, s, {2, 4, 1, 2, 4, 2}, "maximum");
  expectTensor(r[5], ElementKind::F32, s, {1, 1, 0.5, 2, 2, 0.5}, "minimum");
}

// Rank 0 on either side: s = 2, x = [[1, 2], [4, 8]]; the operand order
// matters for sub and div.
TEST_F(InterpreterTest, BinaryBroadcastsRankZero) {
  Tensor s = f32({}, {2}), x = f32({2, 2}, {1, 2, 4, 8});
  ASSERT_RUN(
      l, run(binaryModule("tensor<f32>", "tensor<2x2xf32>", "tensor<2x2xf32>"),
             {s, x}));
  expectTensor(l[0], ElementKind::F32, {2, 2}, {3, 4, 6, 10}, "s + x");
  expectTensor(l[1], ElementKind::F32, {2, 2}, {1, 0, -2, -6}, "s - x");
  expectTensor(l[2], ElementKind::F32, {2, 2}, {2, 4, 8, 16}, "s * x");
  expectTensor(l[3], ElementKind::F32, {2, 2}, {2, 1, 0.5, 0.25}, "s / x");
  expectTensor(l[4], ElementKind::F32, {2, 2}, {2, 2, 4, 8}, "max(s, x)");
  expectTensor(l[5], ElementKind::F32, {2, 2}, {1, 2, 2, 2}, "min(s, x)");
  ASSERT_RUN(
      r, run(binaryModule("tensor<2x2xf32>", "tensor<f32>", "tensor<2x2xf32>"),
             {x, s}));
  expectTensor(r[1], ElementKind::F32, {2, 2}, {-1, 0, 2, 6}, "x - s");
  expectTensor(r[3], ElementKind::F32, {2, 2}, {0.5, 1, 2, 4}, "x / s");
  // Both rank 0: 2 + 3 = 5, a rank-0 result.
  ASSERT_RUN(z, run(binaryModule("tensor<f32>", "tensor<f32>", "tensor<f32>"),
                    {s, f32({}, {3})}));
  expectTensor(z[0], ElementKind::F32, {}, {5}, "2 + 3");
  expectTensor(z[1], ElementKind::F32, {}, {-1}, "2 - 3");
}

// f16 results are rounded where they are stored:
//  65504 + 32 = 65536 >= 65520 (half-way to 2^16) -> inf;
//  65504 + 15 = 65519 < 65520 -> 65504;
//  1 + 2^-11: half-way between 1 and 1 + 2^-10, a tie -> 1 (even);
//  1 + 3 * 2^-11: half-way between 1 + 2^-10 and 1 + 2^-9 -> 1 + 2^-9 (even);
//  -65504 - 32 = -inf.
TEST_F(InterpreterTest, BinaryF16RoundsAtTheStore) {
  std::string src =
      binaryModule("tensor<5xf16>", "tensor<5xf16>", "tensor<5xf16>");
  Data a = {65504, 65504, 1, 1, -65504};
  Data b = {32, 15, std::ldexp(1.0, -11), 3 * std::ldexp(1.0, -11), -32};
  ASSERT_RUN(r, run(src, {f16({5}, a), f16({5}, b)}));
  expectTensor(r[0], ElementKind::F16, {5},
               {kInf, 65504, 1.0, 1.0 + std::ldexp(1.0, -9), -kInf}, "add");
  // mul: (1 + 2^-10)^2 = 1 + 2^-9 + 2^-20 -> 1 + 2^-9.
  // div: 1 / 3 -> 0.333251953125 (f16 spacing in [0.25, 0.5) is 2^-12:
  // 1365.33 -> 1365 / 4096); 1 / 0 = 2 / 0 = inf; 0 / 0 = NaN.
  ASSERT_RUN(m, run(src, {f16({5}, {1 + std::ldexp(1.0, -10), 1, 1, 2, 0}),
                          f16({5}, {1 + std::ldexp(1.0, -10), 3, 0, 0, 0})}));
  expectTensor(m[2], ElementKind::F16, {5},
               {1 + std::ldexp(1.0, -9), 3, 0, 0, 0}, "mul");
  expectTensor(m[3], ElementKind::F16, {5},
               {1, 1365.0 / 4096, kInf, kInf, kNaN}, "div");
}

// bf16 add: 256 + 1 = 257 is a tie between 256 and 258 (bf16 spacing in
// [256, 512) is 2) -> 256 (even); 256 + 3 = 259 -> 260 (tie, even).
TEST_F(InterpreterTest, BinaryBF16RoundsAtTheStore) {
  ASSERT_RUN(
      r, run(binaryModule("tensor<2xbf16>", "tensor<2xbf16>", "tensor<2xbf16>"),
             {bf16({2}, {256, 256}), bf16({2}, {1, 3})}));
  expectTensor(r[0], ElementKind::BF16, {2}, {256, 260}, "add");
}

// f32 ops round the exact result once (f64 arithmetic of two f32 values
// rounded to f32 is the correctly rounded f32 result); f64 ops keep f64:
// 1 + 2^-52 is exact in f64 and would be 1 in f32.
TEST_F(InterpreterTest, BinaryComputeTypes) {
  ASSERT_RUN(
      r, run(binaryModule("tensor<2xf32>", "tensor<2xf32>", "tensor<2xf32>"),
             {f32({2}, {1, toF32(0.1)}), f32({2}, {3, toF32(0.7)})}));
  EXPECT_EQ(r[3][0], toF32(1.0 / 3.0));
  EXPECT_EQ(r[3][1], toF32(toF32(0.1) / toF32(0.7)));
  EXPECT_EQ(r[0][1], toF32(toF32(0.1) + toF32(0.7)));
  EXPECT_EQ(r[2][1], toF32(toF32(0.1) * toF32(0.7)));
  ASSERT_RUN(
      d, run(binaryModule("tensor<2xf64>", "tensor<2xf64>", "tensor<2xf64>"),
             {f64({2}, {1, 1}), f64({2}, {std::ldexp(1.0, -52), 3})}));
  expectTensor(d[0], ElementKind::F64, {2}, {1 + std::ldexp(1.0, -52), 4},
               "f64 add");
  EXPECT_EQ(d[3][1], 1.0 / 3.0);
}

// maximum/minimum propagate NaN from either side.
TEST_F(InterpreterTest, MaximumMinimumPropagateNaN) {
  ASSERT_RUN(
      r, run(binaryModule("tensor<4xf32>", "tensor<4xf32>", "tensor<4xf32>"),
             {f32({4}, {kNaN, 1, kNaN, -kInf}), f32({4}, {1, kNaN, kNaN, 2})}));
  expectTensor(r[4], ElementKind::F32, {4}, {kNaN, kNaN, kNaN, 2}, "maximum");
  expectTensor(r[5], ElementKind::F32, {4}, {kNaN, kNaN, kNaN, -kInf},
               "minimum");
}

//===----------------------------------------------------------------------===//
// select, compare, iota
//===----------------------------------------------------------------------===//

// A [3] mask against [2, 3] values and a rank-0 on_false:
// [[1, 2, 3], [4, 5, 6]], mask [1, 0, 1], else -1 -> [[1, -1, 3], [4, -1, 6]].
// A [2, 1] mask picks whole rows: [[0], [1]] -> row 0 from on_false
// [[1, 2, 3], ...], row 1 from the broadcast on_true [7, 8, 9].
TEST_F(InterpreterTest, SelectBroadcastsMask) {
  ASSERT_RUN(a, run1(R"mlir(
func.func @main(%c: tensor<3xi1>, %t: tensor<2x3xf32>, %f: tensor<f32>) -> tensor<2x3xf32> {
  %0 = amp.select %c, %t, %f : tensor<3xi1>, tensor<2x3xf32>, tensor<f32>
  return %0 : tensor<2x3xf32>
}
)mlir",
                     {i1({3}, {1, 0, 1}), f32({2, 3}, {1, 2, 3, 4, 5, 6}),
                      f32({}, {-1})}));
  expectTensor(a, ElementKind::F32, {2, 3}, {1, -1, 3, 4, -1, 6});
  ASSERT_RUN(b, run1(R"mlir(
func.func @main(%c: tensor<2x1xi1>, %t: tensor<3xf32>, %f: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = amp.select %c, %t, %f : tensor<2x1xi1>, tensor<3xf32>, tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
)mlir",
                     {i1({2, 1}, {0, 1}), f32({3}, {7, 8, 9}),
                      f32({2, 3}, {1, 2, 3, 4, 5, 6})}));
  expectTensor(b, ElementKind::F32, {2, 3}, {1, 2, 3, 7, 8, 9});
}

// lhs [1, 2, 3, NaN, 2, NaN] against rhs [2, 2, 2, 2, NaN, NaN]; ordered:
// every comparison with a NaN is false except ne.
TEST_F(InterpreterTest, CompareAllPredicatesWithNaN) {
  std::string src =
      "func.func @main(%a: tensor<6xf32>, %b: tensor<6xf32>) -> (tensor<6xi1>, "
      "tensor<6xi1>, tensor<6xi1>, tensor<6xi1>, tensor<6xi1>, tensor<6xi1>) "
      "{\n";
  const char *preds[] = {"eq", "ne", "lt", "le", "gt", "ge"};
  for (int i = 0; i < 6; ++i)
    src += "  %" + std::to_string(i) + " = amp.compare " + preds[i] +
           ", %a, %b : tensor<6xf32>, tensor<6xf32>\n";
  src += "  return %0, %1, %2, %3, %4, %5 : tensor<6xi1>, tensor<6xi1>, "
         "tensor<6xi1>, tensor<6xi1>, tensor<6xi1>, tensor<6xi1>\n}\n";
  ASSERT_RUN(r, run(src, {f32({6}, {1, 2, 3, kNaN, 2, kNaN}),
                          f32({6}, {2, 2, 2, 2, kNaN, kNaN})}));
  ASSERT_EQ(r.size(), 6u);
  expectTensor(r[0], ElementKind::I1, {6}, {0, 1, 0, 0, 0, 0}, "eq");
  expectTensor(r[1], ElementKind::I1, {6}, {1, 0, 1, 1, 1, 1}, "ne");
  expectTensor(r[2], ElementKind::I1, {6}, {1, 0, 0, 0, 0, 0}, "lt");
  expectTensor(r[3], ElementKind::I1, {6}, {1, 1, 0, 0, 0, 0}, "le");
  expectTensor(r[4], ElementKind::I1, {6}, {0, 0, 1, 0, 0, 0}, "gt");
  expectTensor(r[5], ElementKind::I1, {6}, {0, 1, 1, 0, 0, 0}, "ge");
}

// Integers broadcast too: [[1, 5, 3], [0, 2, 9]] against [1, 2, 3].
TEST_F(InterpreterTest, CompareIntegersBroadcast) {
  ASSERT_RUN(r, run(R"mlir(
func.func @main(%a: tensor<2x3xi64>, %b: tensor<3xi64>) -> (tensor<2x3xi1>, tensor<2x3xi1>) {
  %0 = amp.compare lt, %a, %b : tensor<2x3xi64>, tensor<3xi64>
  %1 = amp.compare ge, %a, %b : tensor<2x3xi64>, tensor<3xi64>
  return %0, %1 : tensor<2x3xi1>, tensor<2x3xi1>
}
)mlir",
                    {i64({2, 3}, {1, 5, 3, 0, 2, 9}), i64({3}, {1, 2, 3})}));
  expectTensor(r[0], ElementKind::I1, {2, 3}, {0, 0, 0, 1, 0, 0}, "lt");
  expectTensor(r[1], ElementKind::I1, {2, 3}, {1, 1, 1, 0, 1, 1}, "ge");
}

// Element (i0, ..., in) is i_dim, in integer and float results.
TEST_F(InterpreterTest, IotaAlongEachDim) {
  ASSERT_RUN(r, run(R"mlir(
func.func @main() -> (tensor<2x3xi64>, tensor<2x3xi64>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<3xi32>, tensor<2050xf16>) {
  %0 = amp.iota dim = 0 : tensor<2x3xi64>
  %1 = amp.iota dim = 1 : tensor<2x3xi64>
  %2 = amp.iota dim = 0 : tensor<2x3x4xf32>
  %3 = amp.iota dim = 1 : tensor<2x3x4xf32>
  %4 = amp.iota dim = 2 : tensor<2x3x4xf32>
  %5 = amp.iota dim = 0 : tensor<3xi32>
  %6 = amp.iota dim = 0 : tensor<2050xf16>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<2x3xi64>, tensor<2x3xi64>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<3xi32>, tensor<2050xf16>
}
)mlir",
                    {}));
  ASSERT_EQ(r.size(), 7u);
  expectTensor(r[0], ElementKind::I64, {2, 3}, {0, 0, 0, 1, 1, 1}, "dim 0");
  expectTensor(r[1], ElementKind::I64, {2, 3}, {0, 1, 2, 0, 1, 2}, "dim 1");
  Data d0, d1, d2;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) {
        d0.push_back(i);
        d1.push_back(j);
        d2.push_back(k);
      }
  expectTensor(r[2], ElementKind::F32, {2, 3, 4}, d0, "3-D dim 0");
  expectTensor(r[3], ElementKind::F32, {2, 3, 4}, d1, "3-D dim 1");
  expectTensor(r[4], ElementKind::F32, {2, 3, 4}, d2, "3-D dim 2");
  expectTensor(r[5], ElementKind::I32, {3}, {0, 1, 2}, "i32");
  // f16 holds integers exactly up to 2048; 2049 is a tie -> 2048 (even).
  ASSERT_EQ(r[6].getNumElements(), 2050);
  EXPECT_EQ(r[6][2047], 2047);
  EXPECT_EQ(r[6][2048], 2048);
  EXPECT_EQ(r[6][2049], 2048);
}

//===----------------------------------------------------------------------===//
// Casts
//===----------------------------------------------------------------------===//

std::string castModule(const std::string &from, const std::string &to) {
  return "func.func @main(%x: " + from + ") -> " + to +
         " {\n  %y = amp.cast %x : " + from + " to " + to +
         "\n  return %y : " + to + "\n}\n";
}

TEST_F(InterpreterTest, CastF32ToF16) {
  const double u = std::ldexp(1.0, -11);
  Data in = {
      1 + u,                        // tie -> 1 (even)
      1 + 3 * u,                    // tie -> 1 + 2^-9 (even)
      1 + u + std::ldexp(1.0, -20), // above the tie -> 1 + 2^-10
      65519,                        // < 65520 -> 65504
      65520,                        // tie with 2^16 -> inf
      -1e5,                         // -> -inf
      std::ldexp(1.0, -24),         // smallest subnormal, exact
      std::ldexp(1.0, -25),         // tie 0 / 2^-24 -> 0 (even)
      3 * std::ldexp(1.0, -25),     // tie 2^-24 / 2^-23 -> 2^-23
      std::ldexp(17.0, -24),        // subnormal, exact
      std::ldexp(1.0, -14),         // smallest normal, exact
      toF32(0.1),                   // 1638.4 * 2^-14 -> 1638
      1e-8,                         // < 2^-25 -> 0
      kNaN,
      -2.5,
  };
  Data expected = {
      1.0,
      1 + std::ldexp(1.0, -9),
      1 + std::ldexp(1.0, -10),
      65504,
      kInf,
      -kInf,
      std::ldexp(1.0, -24),
      0.0,
      std::ldexp(1.0, -23),
      std::ldexp(17.0, -24),
      std::ldexp(1.0, -14),
      0.0999755859375,
      0.0,
      kNaN,
      -2.5,
  };
  Data in32 = roundAll(in, toF32); // only 0.1 and 1e-8 change
  ASSERT_RUN(y, run1(castModule("tensor<15xf32>", "tensor<15xf16>"),
                     {f32({15}, in32)}));
  expectTensor(y, ElementKind::F16, {15}, expected, "f32 -> f16");
  // And the oracle agrees with the hand-worked figures.
  for (size_t i = 0; i < in.size(); ++i)
    EXPECT_TRUE(sameValue(toF16(in32[i]), expected[i])) << "oracle " << i;
}

// From f64 the cast rounds once: 1 + 2^-11 + 2^-40 is above the tie, so
// 1 + 2^-10; through f32 first it would become the tie 1 + 2^-11 -> 1.
TEST_F(InterpreterTest, CastF64ToF16RoundsOnce) {
  ASSERT_RUN(
      y, run1(castModule("tensor<1xf64>", "tensor<1xf16>"),
              {f64({1}, {1 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40)})}));
  expectTensor(y, ElementKind::F16, {1}, {1 + std::ldexp(1.0, -10)});
}

// bf16 keeps 7 fraction bits: spacing 2^-7 in [1, 2), 2^8 in [2^15, 2^16).
TEST_F(InterpreterTest, CastF16ToBF16) {
  Data in = {1 + std::ldexp(1.0, -10),                       // -> 1
             1 + std::ldexp(1.0, -8),                        // tie -> 1 (even)
             1 + 3 * std::ldexp(1.0, -8),                    // tie -> 1 + 2^-6
             1 + std::ldexp(1.0, -8) + std::ldexp(1.0, -10), // -> 1 + 2^-7
             65504,                // 255.875 * 256 -> 2^16
             std::ldexp(1.0, -24), // exact in bf16
             -3.0,
             kInf,
             kNaN};
  Data expected = {1.0,
                   1.0,
                   1 + std::ldexp(1.0, -6),
                   1 + std::ldexp(1.0, -7),
                   65536,
                   std::ldexp(1.0, -24),
                   -3.0,
                   kInf,
                   kNaN};
  ASSERT_RUN(
      y, run1(castModule("tensor<9xf16>", "tensor<9xbf16>"), {f16({9}, in)}));
  expectTensor(y, ElementKind::BF16, {9}, expected, "f16 -> bf16");
}

// Every bf16 value is an f32 value: the cast is exact, even at the extremes
// (largest finite (2 - 2^-7) * 2^127, smallest subnormal 2^-133).
TEST_F(InterpreterTest, CastBF16ToF32IsExact) {
  Data in = {1 + std::ldexp(1.0, -7), -std::ldexp(255.0, 120),
             std::ldexp(1.0, -133), 0.10009765625, -kInf};
  ASSERT_RUN(
      y, run1(castModule("tensor<5xbf16>", "tensor<5xf32>"), {bf16({5}, in)}));
  expectTensor(y, ElementKind::F32, {5}, in, "bf16 -> f32");
  // f16 -> f32 -> f64 too.
  ASSERT_RUN(z, run1(castModule("tensor<2xf16>", "tensor<2xf64>"),
                     {f16({2}, {0.0999755859375, 65504})}));
  expectTensor(z, ElementKind::F64, {2}, {0.0999755859375, 65504});
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

TEST_F(InterpreterTest, ReshapeKeepsRowMajorOrder) {
  ASSERT_RUN(r, run(R"mlir(
func.func @main(%x: tensor<2x3xf32>, %i: tensor<2x3xi64>, %s: tensor<1xf32>) -> (tensor<3x2xf32>, tensor<1x6x1xf32>, tensor<6xi64>, tensor<f32>) {
  %0 = amp.reshape %x : tensor<2x3xf32> to tensor<3x2xf32>
  %1 = amp.reshape %x : tensor<2x3xf32> to tensor<1x6x1xf32>
  %2 = amp.reshape %i : tensor<2x3xi64> to tensor<6xi64>
  %3 = amp.reshape %s : tensor<1xf32> to tensor<f32>
  return %0, %1, %2, %3 : tensor<3x2xf32>, tensor<1x6x1xf32>, tensor<6xi64>, tensor<f32>
}
)mlir",
                    {f32({2, 3}, {1, 2, 3, 4, 5, 6}),
                     i64({2, 3}, {6, 5, 4, 3, 2, 1}), f32({1}, {7})}));
  expectTensor(r[0], ElementKind::F32, {3, 2}, {1, 2, 3, 4, 5, 6});
  expectTensor(r[1], ElementKind::F32, {1, 6, 1}, {1, 2, 3, 4, 5, 6});
  expectTensor(r[2], ElementKind::I64, {6}, {6, 5, 4, 3, 2, 1});
  expectTensor(r[3], ElementKind::F32, {}, {7});
}

// x[i][j][k] = 12 i + 4 j + k, shape [2, 3, 4] (values 0..23).
// [2, 0, 1]: result (a, b, c) = x[b][c][a], shape [4, 2, 3]:
//   a = 0: 0 4 8 | 12 16 20;  a = 1: 1 5 9 | 13 17 21;  a = 2: 2 6 10 | ...
// [1, 2, 0] (its inverse): result (a, b, c) = x[c][a][b], shape [3, 4, 2]:
//   a = 0: 0 12, 1 13, 2 14, 3 15;  a = 1: 4 16, 5 17, ...
TEST_F(InterpreterTest, Transpose3D) {
  Data x(24);
  for (int i = 0; i < 24; ++i)
    x[i] = i;
  ASSERT_RUN(r, run(R"mlir(
func.func @main(%x: tensor<2x3x4xf32>) -> (tensor<4x2x3xf32>, tensor<3x4x2xf32>, tensor<2x4x3xf32>) {
  %0 = amp.transpose %x, [2, 0, 1] : tensor<2x3x4xf32> to tensor<4x2x3xf32>
  %1 = amp.transpose %x, [1, 2, 0] : tensor<2x3x4xf32> to tensor<3x4x2xf32>
  %2 = amp.transpose %x, [0, 2, 1] : tensor<2x3x4xf32> to tensor<2x4x3xf32>
  return %0, %1, %2 : tensor<4x2x3xf32>, tensor<3x4x2xf32>, tensor<2x4x3xf32>
}
)mlir",
                    {f32({2, 3, 4}, x)}));
  expectTensor(r[0], ElementKind::F32, {4, 2, 3},
               {0, 4, 8,  12, 16, 20, 1, 5, 9,  13, 17, 21,
                2, 6, 10, 14, 18, 22, 3, 7, 11, 15, 19, 23},
               "[2, 0, 1]");
  expectTensor(r[1], ElementKind::F32, {3, 4, 2},
               {0, 12, 1, 13, 2, 14, 3, 15, 4,  16, 5,  17,
                6, 18, 7, 19, 8, 20, 9, 21, 10, 22, 11, 23},
               "[1, 2, 0]");
  // [0, 2, 1]: (i, k, j) = 12 i + 4 j + k.
  expectTensor(r[2], ElementKind::F32, {2, 4, 3},
               {0,  4,  8,  1,  5,  9,  2,  6,  10, 3,  7,  11,
                12, 16, 20, 13, 17, 21, 14, 18, 22, 15, 19, 23},
               "[0, 2, 1]");
}

TEST_F(InterpreterTest, BroadcastTo) {
  ASSERT_RUN(r, run(R"mlir(
func.func @main(%v: tensor<3xf32>, %c: tensor<2x1xf32>, %s: tensor<f32>, %i: tensor<1x3xi64>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x2xf32>, tensor<2x2x3xi64>) {
  %0 = amp.broadcast_to %v : tensor<3xf32> to tensor<2x3xf32>
  %1 = amp.broadcast_to %c : tensor<2x1xf32> to tensor<2x3xf32>
  %2 = amp.broadcast_to %s : tensor<f32> to tensor<2x2xf32>
  %3 = amp.broadcast_to %i : tensor<1x3xi64> to tensor<2x2x3xi64>
  return %0, %1, %2, %3 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x2xf32>, tensor<2x2x3xi64>
}
)mlir",
                    {f32({3}, {1, 2, 3}), f32({2, 1}, {1, 2}), f32({}, {5}),
                     i64({1, 3}, {7, 8, 9})}));
  expectTensor(r[0], ElementKind::F32, {2, 3}, {1, 2, 3, 1, 2, 3});
  expectTensor(r[1], ElementKind::F32, {2, 3}, {1, 1, 1, 2, 2, 2});
  expectTensor(r[2], ElementKind::F32, {2, 2}, {5, 5, 5, 5});
  expectTensor(r[3], ElementKind::I64, {2, 2, 3},
               {7, 8, 9, 7, 8, 9, 7, 8, 9, 7, 8, 9});
}

// x = [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]].
TEST_F(InterpreterTest, Slice) {
  Data x(12), y(24);
  for (int i = 0; i < 12; ++i)
    x[i] = i;
  for (int i = 0; i < 24; ++i)
    y[i] = i;
  ASSERT_RUN(r, run(R"mlir(
func.func @main(%x: tensor<3x4xf32>, %y: tensor<2x3x4xf32>) -> (tensor<2x2xf32>, tensor<3x2xf32>, tensor<1x2x2xf32>) {
  %0 = amp.slice %x [1, 1] to [3, 3] : tensor<3x4xf32> to tensor<2x2xf32>
  %1 = amp.slice %x [0, 2] to [3, 4] : tensor<3x4xf32> to tensor<3x2xf32>
  %2 = amp.slice %y [1, 0, 1] to [2, 2, 3] : tensor<2x3x4xf32> to tensor<1x2x2xf32>
  return %0, %1, %2 : tensor<2x2xf32>, tensor<3x2xf32>, tensor<1x2x2xf32>
}
)mlir",
                    {f32({3, 4}, x), f32({2, 3, 4}, y)}));
  expectTensor(r[0], ElementKind::F32, {2, 2}, {5, 6, 9, 10});
  expectTensor(r[1], ElementKind::F32, {3, 2}, {2, 3, 6, 7, 10, 11});
  // y[1][j][k] = 12 + 4 j + k for j in {0, 1}, k in {1, 2}.
  expectTensor(r[2], ElementKind::F32, {1, 2, 2}, {13, 14, 17, 18});
}

TEST_F(InterpreterTest, ConcatThreeInputs) {
  ASSERT_RUN(r, run(R"mlir(
func.func @main(%a: tensor<1x2xf32>, %b: tensor<2x2xf32>, %c: tensor<1x2xf32>,
                %d: tensor<2x1xf32>, %e: tensor<2x2xf32>, %f: tensor<2x1xf32>) -> (tensor<4x2xf32>, tensor<2x4xf32>) {
  %0 = amp.concat %a, %b, %c dim = 0 : tensor<1x2xf32>, tensor<2x2xf32>, tensor<1x2xf32> to tensor<4x2xf32>
  %1 = amp.concat %d, %e, %f dim = 1 : tensor<2x1xf32>, tensor<2x2xf32>, tensor<2x1xf32> to tensor<2x4xf32>
  return %0, %1 : tensor<4x2xf32>, tensor<2x4xf32>
}
)mlir",
                    {f32({1, 2}, {1, 2}), f32({2, 2}, {3, 4, 5, 6}),
                     f32({1, 2}, {7, 8}), f32({2, 1}, {1, 2}),
                     f32({2, 2}, {3, 4, 5, 6}), f32({2, 1}, {7, 8})}));
  // dim 0: rows stacked [1 2; 3 4; 5 6; 7 8].
  expectTensor(r[0], ElementKind::F32, {4, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  // dim 1: row i = d[i], e[i], f[i] -> [1 3 4 7; 2 5 6 8].
  expectTensor(r[1], ElementKind::F32, {2, 4}, {1, 3, 4, 7, 2, 5, 6, 8});
}

//===----------------------------------------------------------------------===//
// matmul
//===----------------------------------------------------------------------===//

// A = [[1, 2, 3], [4, 5, 6]], B = [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]
// A B row 0 = 1 [1 2 3 4] + 2 [5 6 7 8] + 3 [9 10 11 12] = [38 44 50 56]
// A B row 1 = 4 [1 2 3 4] + 5 [5 6 7 8] + 6 [9 10 11 12] = [83 98 113 128]
const Data kA = {1, 2, 3, 4, 5, 6};
const Data kAT = {1, 4, 2, 5, 3, 6}; // [3, 2]
const Data kB = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
const Data kBT = {1, 5, 9, 2, 6, 10, 3, 7, 11, 4, 8, 12}; // [4, 3]
const Data kAB = {38, 44, 50, 56, 83, 98, 113, 128};

TEST_F(InterpreterTest, Matmul2DAndTransposeFlags) {
  ASSERT_RUN(r, run(R"mlir(
func.func @main(%a: tensor<2x3xf32>, %at: tensor<3x2xf32>, %b: tensor<3x4xf32>, %bt: tensor<4x3xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) {
  %0 = amp.matmul %a, %b : tensor<2x3xf32>, tensor<3x4xf32> to tensor<2x4xf32>
  %1 = amp.matmul %at, %b {transpose_lhs} : tensor<3x2xf32>, tensor<3x4xf32> to tensor<2x4xf32>
  %2 = amp.matmul %a, %bt {transpose_rhs} : tensor<2x3xf32>, tensor<4x3xf32> to tensor<2x4xf32>
  %3 = amp.matmul %at, %bt {transpose_lhs, transpose_rhs} : tensor<3x2xf32>, tensor<4x3xf32> to tensor<2x4xf32>
  return %0, %1, %2, %3 : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>
}
)mlir",
                    {f32({2, 3}, kA), f32({3, 2}, kAT), f32({3, 4}, kB),
                     f32({4, 3}, kBT)}));
  expectTensor(r[0], ElementKind::F32, {2, 4}, kAB, "A B");
  expectTensor(r[1], ElementKind::F32, {2, 4}, kAB, "transpose_lhs");
  expectTensor(r[2], ElementKind::F32, {2, 4}, kAB, "transpose_rhs");
  expectTensor(r[3], ElementKind::F32, {2, 4}, kAB, "both transposed");
}

// Batch 1 of lhs: [[1, 0, 0], [0, 1, -1]] B = [B row 0; B row 1 - B row 2]
//   = [[1, 2, 3, 4], [-4, -4, -4, -4]].
// Batch 1 of rhs: ones [3, 4]: A ones = [[6, 6, 6, 6], [15, 15, 15, 15]].
TEST_F(InterpreterTest, MatmulBatchedBroadcast) {
  Data lhs = kA;
  lhs.insert(lhs.end(), {1, 0, 0, 0, 1, -1});
  Data rhs = kB;
  rhs.insert(rhs.end(), 12, 1.0);
  ASSERT_RUN(r, run(R"mlir(
func.func @main(%l: tensor<2x2x3xf32>, %b: tensor<3x4xf32>, %a: tensor<1x2x3xf32>, %r: tensor<2x3x4xf32>) -> (tensor<2x2x4xf32>, tensor<2x2x4xf32>) {
  %0 = amp.matmul %l, %b : tensor<2x2x3xf32>, tensor<3x4xf32> to tensor<2x2x4xf32>
  %1 = amp.matmul %a, %r : tensor<1x2x3xf32>, tensor<2x3x4xf32> to tensor<2x2x4xf32>
  return %0, %1 : tensor<2x2x4xf32>, tensor<2x2x4xf32>
}
)mlir",
                    {f32({2, 2, 3}, lhs), f32({3, 4}, kB), f32({1, 2, 3}, kA),
                     f32({2, 3, 4}, rhs)}));
  Data e0 = kAB;
  e0.insert(e0.end(), {1, 2, 3, 4, -4, -4, -4, -4});
  expectTensor(r[0], ElementKind::F32, {2, 2, 4}, e0, "3-D x 2-D");
  Data e1 = kAB;
  e1.insert(e1.end(), {6, 6, 6, 6, 15, 15, 15, 15});
  expectTensor(r[1], ElementKind::F32, {2, 2, 4}, e1, "[1] x [2] batch");
}

// f16 in, f32 out: [1, 1] . [1, 2^-11] = 1 + 2^-11, exact in f32, a tie
// that rounds to 1 in f16.
TEST_F(InterpreterTest, MatmulResultTypeDiffersFromOperands) {
  ASSERT_RUN(
      r, run(R"mlir(
func.func @main(%a: tensor<1x2xf16>, %b: tensor<2x1xf16>) -> (tensor<1x1xf32>, tensor<1x1xf16>) {
  %0 = amp.matmul %a, %b : tensor<1x2xf16>, tensor<2x1xf16> to tensor<1x1xf32>
  %1 = amp.matmul %a, %b : tensor<1x2xf16>, tensor<2x1xf16> to tensor<1x1xf16>
  return %0, %1 : tensor<1x1xf32>, tensor<1x1xf16>
}
)mlir",
             {f16({1, 2}, {1, 1}), f16({2, 1}, {1, std::ldexp(1.0, -11)})}));
  expectTensor(r[0], ElementKind::F32, {1, 1}, {1 + std::ldexp(1.0, -11)});
  expectTensor(r[1], ElementKind::F16, {1, 1}, {1.0});
}

// [2048, 1, 1] . [1, 1, 1]: in f32, 2048 + 1 + 1 = 2050 (an f16 value).
// In an f16 accumulator (spacing 2 at 2048), 2048 + 1 = 2049 is a tie
// -> 2048 (even), twice: 2048. In ascending order [1, 1, 2048] gives
// 1 + 1 = 2, 2 + 2048 = 2050 even in f16.
TEST_F(InterpreterTest, MatmulAccumulatorType) {
  const char *src = R"mlir(
func.func @main(%a: tensor<1x3xf16>, %b: tensor<3x1xf16>) -> (tensor<1x1xf16>, tensor<1x1xf16>, tensor<1x1xf32>) {
  %0 = amp.matmul %a, %b : tensor<1x3xf16>, tensor<3x1xf16> to tensor<1x1xf16>
  %1 = amp.matmul %a, %b {acc_type = f16} : tensor<1x3xf16>, tensor<3x1xf16> to tensor<1x1xf16>
  %2 = amp.matmul %a, %b {acc_type = f16} : tensor<1x3xf16>, tensor<3x1xf16> to tensor<1x1xf32>
  return %0, %1, %2 : tensor<1x1xf16>, tensor<1x1xf16>, tensor<1x1xf32>
}
)mlir";
  ASSERT_RUN(r, run(src, {f16({1, 3}, {2048, 1, 1}), f16({3, 1}, {1, 1, 1})}));
  expectTensor(r[0], ElementKind::F16, {1, 1}, {2050}, "default f32 acc");
  expectTensor(r[1], ElementKind::F16, {1, 1}, {2048}, "f16 acc");
  expectTensor(r[2], ElementKind::F32, {1, 1}, {2048}, "f16 acc, f32 out");
  ASSERT_RUN(o, run(src, {f16({1, 3}, {1, 1, 2048}), f16({3, 1}, {1, 1, 1})}));
  expectTensor(o[1], ElementKind::F16, {1, 1}, {2050}, "ascending k order");
}

// The contract (Interpreter.h): contractions accumulate in the accumulator
// type, "products rounded to that type and added". With an f16
// accumulator, (1 - 2^-11) * (1 + 2^-10) = 1 + 2^-11 - 2^-21 rounds to 1
// in f16 (below the midpoint 1 + 2^-11); 2048 + 1 = 2049 is then a tie
// -> 2048 (even).
//
// (The kernel once added the unrounded f32 product and rounded only the sum:
// f32(2048 + 1.00048828...) = 2049.00048828125 -> f16 2050.)
TEST_F(InterpreterTest, MatmulF16AccumulatorRoundsProducts) {
  ASSERT_RUN(r, run1(R"mlir(
func.func @main(%a: tensor<1x2xf16>, %b: tensor<2x1xf16>) -> tensor<1x1xf16> {
  %0 = amp.matmul %a, %b {acc_type = f16} : tensor<1x2xf16>, tensor<2x1xf16> to tensor<1x1xf16>
  return %0 : tensor<1x1xf16>
}
)mlir",
                     {f16({1, 2}, {2048, 1 - std::ldexp(1.0, -11)}),
                      f16({2, 1}, {1, 1 + std::ldexp(1.0, -10)})}));
  expectTensor(r, ElementKind::F16, {1, 1}, {2048},
               "f16 acc: product rounded to f16 before the addition");
}

// f64 operands accumulate in f64: [1, 2^-40] . [1, 1] = 1 + 2^-40, exact in
// f64 (an f32 accumulator would lose the 2^-40).
TEST_F(InterpreterTest, MatmulF64) {
  ASSERT_RUN(
      r, run1(R"mlir(
func.func @main(%a: tensor<1x2xf64>, %b: tensor<2x1xf64>) -> tensor<1x1xf64> {
  %0 = amp.matmul %a, %b : tensor<1x2xf64>, tensor<2x1xf64> to tensor<1x1xf64>
  return %0 : tensor<1x1xf64>
}
)mlir",
              {f64({1, 2}, {1, std::ldexp(1.0, -40)}), f64({2, 1}, {1, 1})}));
  expectTensor(r, ElementKind::F64, {1, 1}, {1 + std::ldexp(1.0, -40)});
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

// x = [[1, 2, 3], [4, 5, 6]]: row sums 6, 15; column sums 5, 7, 9; total 21.
// y[i][j][k] = 12 i + 4 j + k: sum over i, k = sum_i sum_k (12 i + 4 j + k)
//   = 4 * 12 + 8 * 4 j + 2 * (0 + 1 + 2 + 3) = 60 + 32 j -> [60, 92, 124].
TEST_F(InterpreterTest, SumOverDims) {
  Data y(24);
  for (int i = 0; i < 24; ++i)
    y[i] = i;
  ASSERT_RUN(r, run(R"mlir(
func.func @main(%x: tensor<2x3xf32>, %y: tensor<2x3x4xf32>) -> (tensor<2xf32>, tensor<3xf32>, tensor<f32>, tensor<2x1xf32>, tensor<1x1xf32>, tensor<3xf32>, tensor<1x3x1xf32>) {
  %0 = amp.sum %x dims = [1] : tensor<2x3xf32> to tensor<2xf32>
  %1 = amp.sum %x dims = [0] : tensor<2x3xf32> to tensor<3xf32>
  %2 = amp.sum %x dims = [0, 1] : tensor<2x3xf32> to tensor<f32>
  %3 = amp.sum %x dims = [1] keepdims : tensor<2x3xf32> to tensor<2x1xf32>
  %4 = amp.sum %x dims = [1, 0] keepdims : tensor<2x3xf32> to tensor<1x1xf32>
  %5 = amp.sum %y dims = [0, 2] : tensor<2x3x4xf32> to tensor<3xf32>
  %6 = amp.sum %y dims = [2, 0] keepdims : tensor<2x3x4xf32> to tensor<1x3x1xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<2xf32>, tensor<3xf32>, tensor<f32>, tensor<2x1xf32>, tensor<1x1xf32>, tensor<3xf32>, tensor<1x3x1xf32>
}
)mlir",
                    {f32({2, 3}, {1, 2, 3, 4, 5, 6}), f32({2, 3, 4}, y)}));
  expectTensor(r[0], ElementKind::F32, {2}, {6, 15}, "dims [1]");
  expectTensor(r[1], ElementKind::F32, {3}, {5, 7, 9}, "dims [0]");
  expectTensor(r[2], ElementKind::F32, {}, {21}, "dims [0, 1]");
  expectTensor(r[3], ElementKind::F32, {2, 1}, {6, 15}, "dims [1] keepdims");
  expectTensor(r[4], ElementKind::F32, {1, 1}, {21}, "dims [1, 0] keepdims");
  expectTensor(r[5], ElementKind::F32, {3}, {60, 92, 124}, "3-D dims [0, 2]");
  expectTensor(r[6], ElementKind::F32, {1, 3, 1}, {60, 92, 124},
               "3-D dims [2, 0] keepdims");
}

// f16 [2048, 1, 1]: default f32 accumulator 2050; f16 accumulator
// 2048 + 1 -> 2048 (tie, even) twice -> 2048. Along dim 0 of
// [[2048, 1], [1, 1], [1, 2048]] with an f16 accumulator (ascending i):
// column 0: 2048 + 1 -> 2048, + 1 -> 2048; column 1: 1 + 1 = 2, + 2048 = 2050.
TEST_F(InterpreterTest, SumAccumulatorType) {
  ASSERT_RUN(
      r, run(R"mlir(
func.func @main(%x: tensor<3xf16>, %y: tensor<3x2xf16>) -> (tensor<f16>, tensor<f16>, tensor<f32>, tensor<2xf16>, tensor<2xf16>) {
  %0 = amp.sum %x dims = [0] : tensor<3xf16> to tensor<f16>
  %1 = amp.sum %x dims = [0] {acc_type = f16} : tensor<3xf16> to tensor<f16>
  %2 = amp.sum %x dims = [0] {acc_type = f16} : tensor<3xf16> to tensor<f32>
  %3 = amp.sum %y dims = [0] {acc_type = f16} : tensor<3x2xf16> to tensor<2xf16>
  %4 = amp.sum %y dims = [0] : tensor<3x2xf16> to tensor<2xf16>
  return %0, %1, %2, %3, %4 : tensor<f16>, tensor<f16>, tensor<f32>, tensor<2xf16>, tensor<2xf16>
}
)mlir",
             {f16({3}, {2048, 1, 1}), f16({3, 2}, {2048, 1, 1, 1, 1, 2048})}));
  expectTensor(r[0], ElementKind::F16, {}, {2050}, "default acc");
  expectTensor(r[1], ElementKind::F16, {}, {2048}, "f16 acc");
  expectTensor(r[2], ElementKind::F32, {}, {2048}, "f16 acc, f32 result");
  expectTensor(r[3], ElementKind::F16, {2}, {2048, 2050},
               "f16 acc along dim 0");
  expectTensor(r[4], ElementKind::F16, {2}, {2050, 2050},
               "f32 acc along dim 0");
}

// mean of f16 [2048, 1, 1]: f32 accumulator 2050 / 3 = 683.33 -> f16
// (spacing 0.5 in [512, 1024)) 683.5; f16 accumulator 2048 / 3 = 682.67
// -> 682.5.
TEST_F(InterpreterTest, MeanAccumulatorType) {
  ASSERT_RUN(r, run(R"mlir(
func.func @main(%x: tensor<3xf16>) -> (tensor<f16>, tensor<f16>) {
  %0 = amp.mean %x dims = [0] : tensor<3xf16> to tensor<f16>
  %1 = amp.mean %x dims = [0] {acc_type = f16} : tensor<3xf16> to tensor<f16>
  return %0, %1 : tensor<f16>, tensor<f16>
}
)mlir",
                    {f16({3}, {2048, 1, 1})}));
  expectTensor(r[0], ElementKind::F16, {}, {683.5}, "default acc");
  expectTensor(r[1], ElementKind::F16, {}, {682.5}, "f16 acc");
}

// f16 in, f32 out: 1 + 2^-11 (a tie that f16 would round to 1) is kept.
TEST_F(InterpreterTest, SumF16ToF32Result) {
  ASSERT_RUN(r, run1(R"mlir(
func.func @main(%x: tensor<2xf16>) -> tensor<f32> {
  %0 = amp.sum %x dims = [0] : tensor<2xf16> to tensor<f32>
  return %0 : tensor<f32>
}
)mlir",
                     {f16({2}, {1, std::ldexp(1.0, -11)})}));
  expectTensor(r, ElementKind::F32, {}, {1 + std::ldexp(1.0, -11)});
}

// mean [1, 2, 3, 4] = 10 / 4 = 2.5; rows of [[1, 2, 3], [4, 5, 6]]: 2, 5;
// y (12 i + 4 j + k) over i, k: (60 + 32 j) / 8 = [7.5, 11.5, 15.5];
// mean 1/3 of [0, 0, 1] = 0.333... rounded to f32.
TEST_F(InterpreterTest, Mean) {
  Data y(24);
  for (int i = 0; i < 24; ++i)
    y[i] = i;
  ASSERT_RUN(
      r, run(R"mlir(
func.func @main(%a: tensor<4xf32>, %x: tensor<2x3xf32>, %y: tensor<2x3x4xf32>, %h: tensor<4xf16>, %t: tensor<3xf32>) -> (tensor<f32>, tensor<2x1xf32>, tensor<3xf32>, tensor<f32>, tensor<f32>) {
  %0 = amp.mean %a dims = [0] : tensor<4xf32> to tensor<f32>
  %1 = amp.mean %x dims = [1] keepdims : tensor<2x3xf32> to tensor<2x1xf32>
  %2 = amp.mean %y dims = [0, 2] : tensor<2x3x4xf32> to tensor<3xf32>
  %3 = amp.mean %h dims = [0] : tensor<4xf16> to tensor<f32>
  %4 = amp.mean %t dims = [0] : tensor<3xf32> to tensor<f32>
  return %0, %1, %2, %3, %4 : tensor<f32>, tensor<2x1xf32>, tensor<3xf32>, tensor<f32>, tensor<f32>
}
)mlir",
             {f32({4}, {1, 2, 3, 4}), f32({2, 3}, {1, 2, 3, 4, 5, 6}),
              f32({2, 3, 4}, y), f16({4}, {1, 2, 3, 4}), f32({3}, {0, 0, 1})}));
  expectTensor(r[0], ElementKind::F32, {}, {2.5}, "mean [1, 2, 3, 4]");
  expectTensor(r[1], ElementKind::F32, {2, 1}, {2, 5}, "row means");
  expectTensor(r[2], ElementKind::F32, {3}, {7.5, 11.5, 15.5}, "3-D");
  expectTensor(r[3], ElementKind::F32, {}, {2.5}, "f16 in, f32 out");
  expectTensor(r[4], ElementKind::F32, {}, {toF32(1.0 / 3.0)}, "1/3");
}

// An empty dimension never reaches the interpreter: the verifier refuses
// amp ops with empty tensors (a batch of zero rows trained silently to a
// NaN loss, the mean over it being 0 / 0).
TEST_F(InterpreterTest, EmptyTensorsAreRefusedBeforeAnythingRuns) {
  diagnostics.clear();
  module = parseSourceString<ModuleOp>(R"mlir(
func.func @main(%x: tensor<0x3xf32>) -> tensor<3xf32> {
  %0 = amp.mean %x dims = [0] : tensor<0x3xf32> to tensor<3xf32>
  return %0 : tensor<3xf32>
}
)mlir",
                                       &ctx);
  EXPECT_FALSE(module);
  EXPECT_TRUE(contains(diagnostics, "'amp.mean' op operand #0 of type "
                                    "'tensor<0x3xf32>' is empty"))
      << diagnostics;
}

// max keeps the input type; NaN propagates; all-negative rows are not
// clipped at 0.
TEST_F(InterpreterTest, Max) {
  ASSERT_RUN(r, run(R"mlir(
func.func @main(%x: tensor<2x3xf32>, %n: tensor<2x3xf32>, %h: tensor<3xf16>) -> (tensor<2xf32>, tensor<1x3xf32>, tensor<f32>, tensor<2xf32>, tensor<2x1xf32>, tensor<f16>) {
  %0 = amp.max %x dims = [1] : tensor<2x3xf32> to tensor<2xf32>
  %1 = amp.max %x dims = [0] keepdims : tensor<2x3xf32> to tensor<1x3xf32>
  %2 = amp.max %x dims = [0, 1] : tensor<2x3xf32> to tensor<f32>
  %3 = amp.max %n dims = [1] : tensor<2x3xf32> to tensor<2xf32>
  %4 = amp.max %n dims = [1] keepdims : tensor<2x3xf32> to tensor<2x1xf32>
  %5 = amp.max %h dims = [0] : tensor<3xf16> to tensor<f16>
  return %0, %1, %2, %3, %4, %5 : tensor<2xf32>, tensor<1x3xf32>, tensor<f32>, tensor<2xf32>, tensor<2x1xf32>, tensor<f16>
}
)mlir",
                    {f32({2, 3}, {-3, -1, -2, 4, -5, 0.5}),
                     f32({2, 3}, {1, kNaN, 3, kNaN, 5, 6}),
                     f16({3}, {-65504, -kInf, -1})}));
  expectTensor(r[0], ElementKind::F32, {2}, {-1, 4}, "rows");
  expectTensor(r[1], ElementKind::F32, {1, 3}, {4, -1, 0.5}, "columns");
  expectTensor(r[2], ElementKind::F32, {}, {4}, "all");
  expectTensor(r[3], ElementKind::F32, {2}, {kNaN, kNaN}, "NaN mid and first");
  expectTensor(r[4], ElementKind::F32, {2, 1}, {kNaN, kNaN}, "NaN keepdims");
  expectTensor(r[5], ElementKind::F16, {}, {-1}, "f16");
}

//===----------------------------------------------------------------------===//
// softmax, log_softmax
//===----------------------------------------------------------------------===//

/// f64 softmax / log_softmax of `x` of `shape` along `dim`.
Data softmaxRef(const Data &x, const Shape &shape, int64_t dim, bool log) {
  int64_t outer = 1, inner = 1, n = shape[dim];
  for (int64_t d = 0; d < dim; ++d)
    outer *= shape[d];
  for (size_t d = dim + 1; d < shape.size(); ++d)
    inner *= shape[d];
  Data y(x.size());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t j) { return (o * n + j) * inner + i; };
      double m = -kInf;
      for (int64_t j = 0; j < n; ++j)
        m = std::max(m, x[at(j)]);
      double z = 0;
      for (int64_t j = 0; j < n; ++j)
        z += std::exp(x[at(j)] - m);
      for (int64_t j = 0; j < n; ++j)
        y[at(j)] =
            log ? x[at(j)] - m - std::log(z) : std::exp(x[at(j)] - m) / z;
    }
  return y;
}

TEST_F(InterpreterTest, SoftmaxAndLogSoftmaxAlongInnerAndOuterDims) {
  Data x2 = {1, 2, 3, -1, 0.5, 4};
  Data x3 = wave(24, 0.3, 3.0);
  ASSERT_RUN(r, run(R"mlir(
func.func @main(%x: tensor<2x3xf32>, %y: tensor<2x3x4xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>) {
  %0 = amp.softmax %x dim = 1 : tensor<2x3xf32>
  %1 = amp.softmax %x dim = 0 : tensor<2x3xf32>
  %2 = amp.log_softmax %x dim = 1 : tensor<2x3xf32>
  %3 = amp.log_softmax %x dim = 0 : tensor<2x3xf32>
  %4 = amp.softmax %y dim = 1 : tensor<2x3x4xf32>
  %5 = amp.log_softmax %y dim = 1 : tensor<2x3x4xf32>
  %6 = amp.softmax %y dim = 0 : tensor<2x3x4xf32>
  %7 = amp.log_softmax %y dim = 2 : tensor<2x3x4xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>
}
)mlir",
                    {f32({2, 3}, x2), f32({2, 3, 4}, x3)}));
  struct {
    int index;
    const Data *x;
    Shape shape;
    int64_t dim;
    bool log;
  } cases[] = {{0, &x2, {2, 3}, 1, false},    {1, &x2, {2, 3}, 0, false},
               {2, &x2, {2, 3}, 1, true},     {3, &x2, {2, 3}, 0, true},
               {4, &x3, {2, 3, 4}, 1, false}, {5, &x3, {2, 3, 4}, 1, true},
               {6, &x3, {2, 3, 4}, 0, false}, {7, &x3, {2, 3, 4}, 2, true}};
  for (const auto &c : cases) {
    const Tensor &t = r[c.index];
    Data ref = softmaxRef(*c.x, c.shape, c.dim, c.log);
    std::string what = std::string(c.log ? "log_softmax" : "softmax") +
                       " dim " + std::to_string(c.dim) + " of rank " +
                       std::to_string(c.shape.size());
    EXPECT_EQ(Shape(t.getShape().begin(), t.getShape().end()), c.shape);
    ASSERT_EQ(t.getNumElements(), static_cast<int64_t>(ref.size()));
    for (size_t i = 0; i < ref.size(); ++i)
      // 1e-6 relative; log_softmax values near 0 are held to 1e-6 absolute.
      expectClose(t[i], ref[i], 1e-6, c.log ? 1.0 : 0.0,
                  what + " element " + std::to_string(i));
  }
}

// The maximum is subtracted first, so e^1000 never appears: softmax
// [1000, 1001, 1002] = softmax [0, 1, 2] = [0.0900306, 0.2447285, 0.6652410];
// log_softmax = [-2.4076060, -1.4076060, -0.4076060].
TEST_F(InterpreterTest, SoftmaxOfLargeInputsStaysFinite) {
  ASSERT_RUN(r, run(R"mlir(
func.func @main(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %0 = amp.softmax %x dim = 0 : tensor<3xf32>
  %1 = amp.log_softmax %x dim = 0 : tensor<3xf32>
  return %0, %1 : tensor<3xf32>, tensor<3xf32>
}
)mlir",
                    {f32({3}, {1000, 1001, 1002})}));
  double z = 1 + std::exp(1.0) + std::exp(2.0);
  for (int j = 0; j < 3; ++j) {
    EXPECT_TRUE(std::isfinite(r[0][j]));
    EXPECT_TRUE(std::isfinite(r[1][j]));
    expectClose(r[0][j], std::exp(static_cast<double>(j)) / z, 1e-6, 0,
                "softmax " + std::to_string(j));
    expectClose(r[1][j], j - std::log(z), 1e-6, 1,
                "log_softmax " + std::to_string(j));
  }
  EXPECT_NEAR(r[0][0], 0.0900306, 1e-7);
  EXPECT_NEAR(r[1][2], -0.4076060, 1e-6);
}

// f16 softmax: probabilities rounded to f16; a uniform row of 3 gives
// 1/3 -> 0.333251953125 (1365.33 * 2^-12 -> 1365 * 2^-12).
TEST_F(InterpreterTest, SoftmaxF16) {
  ASSERT_RUN(r, run1(R"mlir(
func.func @main(%x: tensor<2x3xf16>) -> tensor<2x3xf16> {
  %0 = amp.softmax %x dim = 1 : tensor<2x3xf16>
  return %0 : tensor<2x3xf16>
}
)mlir",
                     {f16({2, 3}, {0, 0, 0, 1, 2, 0.5})}));
  EXPECT_EQ(r.getKind(), ElementKind::F16);
  Data ref = softmaxRef({0, 0, 0, 1, 2, 0.5}, {2, 3}, 1, false);
  for (int i = 0; i < 6; ++i)
    expectRoundedOnce(r[i], ref[i], kF16, "f16 softmax " + std::to_string(i),
                      16);
  EXPECT_EQ(r[0], 1365.0 / 4096);
}

//===----------------------------------------------------------------------===//
// layer_norm, rms_norm
//===----------------------------------------------------------------------===//

/// f64 layer norm over rows of `n` elements (empty weight/bias: none).
Data layerNormRef(const Data &x, int64_t n, const Data &weight,
                  const Data &bias, double epsilon) {
  Data y(x.size());
  for (size_t row = 0; row < x.size() / n; ++row) {
    double mean = 0, var = 0;
    for (int64_t j = 0; j < n; ++j)
      mean += x[row * n + j];
    mean /= n;
    for (int64_t j = 0; j < n; ++j)
      var += (x[row * n + j] - mean) * (x[row * n + j] - mean);
    var /= n; // biased
    for (int64_t j = 0; j < n; ++j) {
      double v = (x[row * n + j] - mean) / std::sqrt(var + epsilon);
      if (!weight.empty())
        v *= weight[j];
      if (!bias.empty())
        v += bias[j];
      y[row * n + j] = v;
    }
  }
  return y;
}

Data rmsNormRef(const Data &x, int64_t n, const Data &weight, double epsilon) {
  Data y(x.size());
  for (size_t row = 0; row < x.size() / n; ++row) {
    double squares = 0;
    for (int64_t j = 0; j < n; ++j)
      squares += x[row * n + j] * x[row * n + j];
    double denominator = std::sqrt(squares / n + epsilon);
    for (int64_t j = 0; j < n; ++j)
      y[row * n + j] =
          x[row * n + j] / denominator * (weight.empty() ? 1.0 : weight[j]);
  }
  return y;
}

void expectAllClose(const Tensor &t, const Data &ref, const Shape &shape,
                    double relative, double floor, const std::string &what) {
  EXPECT_EQ(Shape(t.getShape().begin(), t.getShape().end()), shape) << what;
  ASSERT_EQ(t.getNumElements(), static_cast<int64_t>(ref.size())) << what;
  for (size_t i = 0; i < ref.size(); ++i)
    expectClose(t[i], ref[i], relative, floor,
                what + " element " + std::to_string(i));
}

TEST_F(InterpreterTest, LayerNorm) {
  Data x = {1, 2, 3, 4, -1, 0, 5, 0.5};
  Data w = roundAll({0.5, -1, 2, 1.5}, toF32);
  Data b = roundAll({0.1, 0.2, -0.3, 0}, toF32);
  Data x3 = wave(12, 1.1, 2.0);
  Data w3 = wave(6, 0.2), b3 = wave(6, 2.9, 0.5);
  ASSERT_RUN(r, run(R"mlir(
func.func @main(%x: tensor<2x4xf32>, %w: tensor<4xf32>, %b: tensor<4xf32>,
                %x3: tensor<2x2x3xf32>, %w3: tensor<2x3xf32>, %b3: tensor<2x3xf32>)
    -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x2x3xf32>, tensor<2x2x3xf32>) {
  %0 = amp.layer_norm %x : tensor<2x4xf32>
  %1 = amp.layer_norm %x scale(%w : tensor<4xf32>) bias(%b : tensor<4xf32>) : tensor<2x4xf32>
  %2 = amp.layer_norm %x scale(%w : tensor<4xf32>) {epsilon = 0.5} : tensor<2x4xf32>
  %3 = amp.layer_norm %x bias(%b : tensor<4xf32>) : tensor<2x4xf32>
  %4 = amp.layer_norm %x3 scale(%w3 : tensor<2x3xf32>) bias(%b3 : tensor<2x3xf32>) {axis = 1} : tensor<2x2x3xf32>
  %5 = amp.layer_norm %x3 {axis = 1} : tensor<2x2x3xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x2x3xf32>, tensor<2x2x3xf32>
}
)mlir",
                    {f32({2, 4}, x), f32({4}, w), f32({4}, b),
                     f32({2, 2, 3}, x3), f32({2, 3}, w3), f32({2, 3}, b3)}));
  expectAllClose(r[0], layerNormRef(x, 4, {}, {}, 1e-5), {2, 4}, 1e-6, 1,
                 "plain");
  expectAllClose(r[1], layerNormRef(x, 4, w, b, 1e-5), {2, 4}, 1e-6, 1,
                 "weight and bias");
  expectAllClose(r[2], layerNormRef(x, 4, w, {}, 0.5), {2, 4}, 1e-6, 1,
                 "weight, epsilon 0.5");
  expectAllClose(r[3], layerNormRef(x, 4, {}, b, 1e-5), {2, 4}, 1e-6, 1,
                 "bias only");
  expectAllClose(r[4], layerNormRef(x3, 6, w3, b3, 1e-5), {2, 2, 3}, 1e-6, 1,
                 "axis 1 over [2, 3]");
  expectAllClose(r[5], layerNormRef(x3, 6, {}, {}, 1e-5), {2, 2, 3}, 1e-6, 1,
                 "axis 1, no params");
}

// By hand: [1, 3] has mean 2 and biased variance 1; with epsilon 1 the
// result is [-1, 1] / sqrt(2) = [-0.70710678, 0.70710678].
TEST_F(InterpreterTest, LayerNormEpsilonByHand) {
  ASSERT_RUN(r, run1(R"mlir(
func.func @main(%x: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %0 = amp.layer_norm %x {epsilon = 1.0} : tensor<1x2xf32>
  return %0 : tensor<1x2xf32>
}
)mlir",
                     {f32({1, 2}, {1, 3})}));
  expectF32Ulps(r[0], -std::sqrt(0.5), 2, "[0]");
  expectF32Ulps(r[1], std::sqrt(0.5), 2, "[1]");
}

// f16 activations with f32 weight and bias: computed in f32, the result is
// f16 -- the f64 formula on the exact f16 / f32 inputs, rounded to f16.
TEST_F(InterpreterTest, LayerNormF16InputF32Params) {
  Data x = roundAll({0.5, -1.25, 2.0, 3.1, -0.7, 0.05, 1.9, -2.2}, toF16);
  Data w = roundAll({1.1, 0.9, -0.3, 2.0}, toF32); // not all f16 values
  Data b = roundAll({0.01, -0.2, 0.3, 0.0}, toF32);
  ASSERT_RUN(r, run1(R"mlir(
func.func @main(%x: tensor<2x4xf16>, %w: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<2x4xf16> {
  %0 = amp.layer_norm %x scale(%w : tensor<4xf32>) bias(%b : tensor<4xf32>) : tensor<2x4xf16>
  return %0 : tensor<2x4xf16>
}
)mlir",
                     {f16({2, 4}, x), f32({4}, w), f32({4}, b)}));
  EXPECT_EQ(r.getKind(), ElementKind::F16);
  Data ref = layerNormRef(x, 4, w, b, 1e-5);
  ASSERT_EQ(r.getNumElements(), 8);
  for (int i = 0; i < 8; ++i)
    expectRoundedOnce(r[i], ref[i], kF16,
                      "f16 layer_norm element " + std::to_string(i), 16);
}

TEST_F(InterpreterTest, RmsNorm) {
  Data x = {1, 2, 3, 4, -1, 0, 5, 0.5};
  Data w = roundAll({0.5, -1, 2, 1.5}, toF32);
  Data x3 = wave(12, 0.4, 1.5);
  Data w3 = wave(6, 1.7);
  ASSERT_RUN(r, run(R"mlir(
func.func @main(%x: tensor<2x4xf32>, %w: tensor<4xf32>, %x3: tensor<2x2x3xf32>, %w3: tensor<2x3xf32>)
    -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x2x3xf32>) {
  %0 = amp.rms_norm %x : tensor<2x4xf32>
  %1 = amp.rms_norm %x scale(%w : tensor<4xf32>) : tensor<2x4xf32>
  %2 = amp.rms_norm %x {epsilon = 2.0} : tensor<2x4xf32>
  %3 = amp.rms_norm %x3 scale(%w3 : tensor<2x3xf32>) {axis = 1} : tensor<2x2x3xf32>
  return %0, %1, %2, %3 : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x2x3xf32>
}
)mlir",
                    {f32({2, 4}, x), f32({4}, w), f32({2, 2, 3}, x3),
                     f32({2, 3}, w3)}));
  expectAllClose(r[0], rmsNormRef(x, 4, {}, 1e-6), {2, 4}, 1e-6, 1, "plain");
  expectAllClose(r[1], rmsNormRef(x, 4, w, 1e-6), {2, 4}, 1e-6, 1, "weight");
  expectAllClose(r[2], rmsNormRef(x, 4, {}, 2.0), {2, 4}, 1e-6, 1, "epsilon 2");
  expectAllClose(r[3], rmsNormRef(x3, 6, w3, 1e-6), {2, 2, 3}, 1e-6, 1,
                 "axis 1 over [2, 3]");
}

// By hand: [3, 4] has mean square 12.5; with epsilon 0 the result is
// [3, 4] / sqrt(12.5) = [0.84852814, 1.13137085].
TEST_F(InterpreterTest, RmsNormByHand) {
  ASSERT_RUN(r, run1(R"mlir(
func.func @main(%x: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %0 = amp.rms_norm %x {epsilon = 0.0} : tensor<1x2xf32>
  return %0 : tensor<1x2xf32>
}
)mlir",
                     {f32({1, 2}, {3, 4})}));
  expectF32Ulps(r[0], 3 / std::sqrt(12.5), 2, "[0]");
  expectF32Ulps(r[1], 4 / std::sqrt(12.5), 2, "[1]");
}

//===----------------------------------------------------------------------===//
// embedding
//===----------------------------------------------------------------------===//

// table[r][c] = 10 r + c, 4 rows of 3.
const Data kTable = {0, 1, 2, 10, 11, 12, 20, 21, 22, 30, 31, 32};

TEST_F(InterpreterTest, EmbeddingGathersRows) {
  ASSERT_RUN(r, run(R"mlir(
func.func @main(%t: tensor<4x3xf32>, %ids: tensor<2x2xi64>, %ids32: tensor<3xi32>) -> (tensor<2x2x3xf32>, tensor<3x3xf32>) {
  %0 = amp.embedding %t[%ids] : tensor<4x3xf32>, tensor<2x2xi64>
  %1 = amp.embedding %t[%ids32] : tensor<4x3xf32>, tensor<3xi32>
  return %0, %1 : tensor<2x2x3xf32>, tensor<3x3xf32>
}
)mlir",
                    {f32({4, 3}, kTable), i64({2, 2}, {3, 0, 1, 3}),
                     i32({3}, {2, 2, 0})}));
  expectTensor(r[0], ElementKind::F32, {2, 2, 3},
               {30, 31, 32, 0, 1, 2, 10, 11, 12, 30, 31, 32},
               "[[3, 0], [1, 3]]");
  expectTensor(r[1], ElementKind::F32, {3, 3},
               {20, 21, 22, 20, 21, 22, 0, 1, 2}, "i32 [2, 2, 0]");
}

TEST_F(InterpreterTest, EmbeddingIndexOutOfRangeIsAnError) {
  const char *src = R"mlir(
func.func @main(%t: tensor<4x3xf32>, %ids: tensor<2xi64>) -> tensor<2x3xf32> {
  %0 = amp.embedding %t[%ids] : tensor<4x3xf32>, tensor<2xi64>
  return %0 : tensor<2x3xf32>
}
)mlir";
  EXPECT_FALSE(run(src, {f32({4, 3}, kTable), i64({2}, {1, 4})}));
  EXPECT_TRUE(contains(diagnostics, "'amp.embedding'")) << diagnostics;
  EXPECT_TRUE(contains(diagnostics, "index 4")) << diagnostics;
  EXPECT_TRUE(contains(diagnostics, "[1]")) << diagnostics;
  EXPECT_FALSE(stoppedAtNonFinite);
  EXPECT_FALSE(run(src, {f32({4, 3}, kTable), i64({2}, {-1, 0})}));
  EXPECT_TRUE(contains(diagnostics, "index -1")) << diagnostics;
  EXPECT_TRUE(contains(diagnostics, "[0]")) << diagnostics;
}

//===----------------------------------------------------------------------===//
// attention
//===----------------------------------------------------------------------===//

/// f64 reference, explicit loops: scores = scale * q . k over D, causal
/// mask j <= i (top-left), softmax over the visible keys, weighted sum of
/// v. Also returns, per output, the scale sum_j p_j |v_j| for tolerances.
void attentionRef(const Data &q, const Data &k, const Data &v, int64_t bh,
                  int64_t t, int64_t s, int64_t d, int64_t dv, bool causal,
                  double scale, Data &out, Data &magnitude) {
  out.assign(bh * t * dv, 0);
  magnitude.assign(bh * t * dv, 0);
  for (int64_t b = 0; b < bh; ++b)
    for (int64_t i = 0; i < t; ++i) {
      std::vector<double> scores;
      for (int64_t j = 0; j < s; ++j) {
        if (causal && j > i)
          break;
        double dot = 0;
        for (int64_t c = 0; c < d; ++c)
          dot += q[(b * t + i) * d + c] * k[(b * s + j) * d + c];
        scores.push_back(scale * dot);
      }
      double m = -kInf;
      for (double sc : scores)
        m = std::max(m, sc);
      double z = 0;
      for (double sc : scores)
        z += std::exp(sc - m);
      for (size_t j = 0; j < scores.size(); ++j) {
        double p = std::exp(scores[j] - m) / z;
        for (int64_t c = 0; c < dv; ++c) {
          out[(b * t + i) * dv + c] += p * v[(b * s + j) * dv + c];
          magnitude[(b * t + i) * dv + c] +=
              p * std::fabs(v[(b * s + j) * dv + c]);
        }
      }
    }
}

std::string attentionModule(int64_t t, int64_t s, int64_t d, int64_t dv,
                            const std::string &attrs) {
  std::string q = tensorType({1, 2, t, d}, ElementKind::F32);
  std::string k = tensorType({1, 2, s, d}, ElementKind::F32);
  std::string v = tensorType({1, 2, s, dv}, ElementKind::F32);
  std::string o = tensorType({1, 2, t, dv}, ElementKind::F32);
  return "func.func @main(%q: " + q + ", %k: " + k + ", %v: " + v + ") -> " +
         o + " {\n  %0 = amp.attention %q, %k, %v" + attrs + " : " + q + ", " +
         k + ", " + v + "\n  return %0 : " + o + "\n}\n";
}

TEST_F(InterpreterTest, AttentionMatchesF64Reference) {
  struct Case {
    int64_t t, s, d, dv;
    bool causal;
    std::optional<double> scale;
  } cases[] = {
      {3, 5, 2, 3, false, std::nullopt}, // T < S, Dv != D, default scale
      {3, 5, 2, 3, true, std::nullopt},  // causal, T < S
      {4, 2, 3, 2, true, std::nullopt},  // causal, T > S: rows 2, 3 see all
      {4, 4, 4, 5, true, 0.3},           // explicit scale
      {2, 3, 4, 1, false, 0.3},
  };
  for (const Case &c : cases) {
    Data q = wave(2 * c.t * c.d, 0.1, 1.5);
    Data k = wave(2 * c.s * c.d, 1.3, 1.2);
    Data v = wave(2 * c.s * c.dv, 2.2, 2.0);
    std::string attrs = c.causal ? " causal" : "";
    if (c.scale)
      attrs += " {scale = " + fmt(*c.scale) + "}";
    ASSERT_RUN(out, run1(attentionModule(c.t, c.s, c.d, c.dv, attrs),
                         {f32({1, 2, c.t, c.d}, q), f32({1, 2, c.s, c.d}, k),
                          f32({1, 2, c.s, c.dv}, v)}));
    // Default scale: 1 / sqrt(D).
    double scale = c.scale ? *c.scale : 1.0 / std::sqrt(double(c.d));
    Data ref, magnitude;
    attentionRef(q, k, v, 2, c.t, c.s, c.d, c.dv, c.causal, scale, ref,
                 magnitude);
    std::string what =
        "T=" + std::to_string(c.t) + " S=" + std::to_string(c.s) +
        " D=" + std::to_string(c.d) + " Dv=" + std::to_string(c.dv) +
        (c.causal ? " causal" : "") + (c.scale ? " scale=0.3" : "");
    EXPECT_EQ(out.getKind(), ElementKind::F32);
    EXPECT_EQ(Shape(out.getShape().begin(), out.getShape().end()),
              (Shape{1, 2, c.t, c.dv}))
        << what;
    ASSERT_EQ(out.getNumElements(), static_cast<int64_t>(ref.size()));
    for (size_t i = 0; i < ref.size(); ++i)
      EXPECT_LE(std::fabs(out[i] - ref[i]),
                1e-6 * std::max(std::fabs(ref[i]), magnitude[i]))
          << what << " element " << i << ": got " << fmt(out[i])
          << ", f64 reference " << fmt(ref[i]);
    // By hand: a causal row 0 sees key 0 only (weight e^0 / e^0 = 1), so it
    // is exactly v[0] in every head.
    if (c.causal) {
      for (int64_t h = 0; h < 2; ++h)
        for (int64_t col = 0; col < c.dv; ++col)
          EXPECT_EQ(out[(h * c.t) * c.dv + col], v[(h * c.s) * c.dv + col])
              << what << " head " << h << " row 0";
    }
  }
}

// f16 attention: computed in f32 and rounded once to f16 (the query's
// element type): the f64 reference rounded to f16.
TEST_F(InterpreterTest, AttentionF16) {
  const int64_t t = 3, s = 4, d = 2, dv = 3;
  Data q = roundAll(wave(2 * t * d, 0.1, 1.5), toF16);
  Data k = roundAll(wave(2 * s * d, 1.3, 1.2), toF16);
  Data v = roundAll(wave(2 * s * dv, 2.2, 2.0), toF16);
  ASSERT_RUN(out, run1(R"mlir(
func.func @main(%q: tensor<1x2x3x2xf16>, %k: tensor<1x2x4x2xf16>, %v: tensor<1x2x4x3xf16>) -> tensor<1x2x3x3xf16> {
  %0 = amp.attention %q, %k, %v causal : tensor<1x2x3x2xf16>, tensor<1x2x4x2xf16>, tensor<1x2x4x3xf16>
  return %0 : tensor<1x2x3x3xf16>
}
)mlir",
                       {f16({1, 2, t, d}, q), f16({1, 2, s, d}, k),
                        f16({1, 2, s, dv}, v)}));
  EXPECT_EQ(out.getKind(), ElementKind::F16);
  Data ref, magnitude;
  attentionRef(q, k, v, 2, t, s, d, dv, /*causal=*/true,
               1.0 / std::sqrt(double(d)), ref, magnitude);
  ASSERT_EQ(out.getNumElements(), static_cast<int64_t>(ref.size()));
  for (size_t i = 0; i < ref.size(); ++i)
    expectRoundedOnce(out[i], ref[i], kF16,
                      "f16 attention element " + std::to_string(i), 16);
}

// The default scale is 1/sqrt(D), not 1/sqrt(Dv): with a single query and
// two keys the weights are those of softmax(scale * [q.k0, q.k1]).
// q = [1, 1, 1, 1] (D = 4), k0 = 0, k1 = [1, 1, 1, 1]: scores 0 and
// 4 * scale = 2 (scale 1/2); v0 = 0, v1 = 1 (Dv = 1):
// out = e^2 / (1 + e^2) = 0.88079708.
TEST_F(InterpreterTest, AttentionDefaultScaleByHand) {
  ASSERT_RUN(out, run1(R"mlir(
func.func @main(%q: tensor<1x1x1x4xf32>, %k: tensor<1x1x2x4xf32>, %v: tensor<1x1x2x1xf32>) -> tensor<1x1x1x1xf32> {
  %0 = amp.attention %q, %k, %v : tensor<1x1x1x4xf32>, tensor<1x1x2x4xf32>, tensor<1x1x2x1xf32>
  return %0 : tensor<1x1x1x1xf32>
}
)mlir",
                       {f32({1, 1, 1, 4}, {1, 1, 1, 1}),
                        f32({1, 1, 2, 4}, {0, 0, 0, 0, 1, 1, 1, 1}),
                        f32({1, 1, 2, 1}, {0, 1})}));
  expectF32Ulps(out[0], std::exp(2.0) / (1 + std::exp(2.0)), 4,
                "default scale");
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

/// f64 cross-entropy: per row logsumexp(x) - x[label]; mean or sum.
double crossEntropyRef(const Data &logits, int64_t classes, const Data &labels,
                       bool mean) {
  double total = 0;
  for (size_t row = 0; row < labels.size(); ++row) {
    double m = -kInf;
    for (int64_t c = 0; c < classes; ++c)
      m = std::max(m, logits[row * classes + c]);
    double z = 0;
    for (int64_t c = 0; c < classes; ++c)
      z += std::exp(logits[row * classes + c] - m);
    total += m + std::log(z) -
             logits[row * classes + static_cast<int64_t>(labels[row])];
  }
  return mean ? total / labels.size() : total;
}

TEST_F(InterpreterTest, CrossEntropyMatchesF64Formula) {
  Data logits = wave(12, 0.5, 3.0); // [3, 4]
  Data labels = {2, 0, 3};
  Data logits3 = wave(12, 1.9, 2.0); // [2, 2, 3]
  Data labels3 = {1, 2, 0, 1};
  ASSERT_RUN(r, run(R"mlir(
func.func @main(%x: tensor<3x4xf32>, %y: tensor<3xi64>, %y32: tensor<3xi32>, %x3: tensor<2x2x3xf32>, %y3: tensor<2x2xi32>)
    -> (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f64>) {
  %0 = amp.cross_entropy %x, %y : tensor<3x4xf32>, tensor<3xi64> to tensor<f32>
  %1 = amp.cross_entropy %x, %y reduction = sum : tensor<3x4xf32>, tensor<3xi64> to tensor<f32>
  %2 = amp.cross_entropy %x, %y32 reduction = mean : tensor<3x4xf32>, tensor<3xi32> to tensor<f32>
  %3 = amp.cross_entropy %x3, %y3 : tensor<2x2x3xf32>, tensor<2x2xi32> to tensor<f32>
  %4 = amp.cross_entropy %x3, %y3 reduction = sum : tensor<2x2x3xf32>, tensor<2x2xi32> to tensor<f32>
  %5 = amp.cross_entropy %x, %y32 reduction = sum : tensor<3x4xf32>, tensor<3xi32> to tensor<f64>
  return %0, %1, %2, %3, %4, %5 : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f64>
}
)mlir",
                    {f32({3, 4}, logits), i64({3}, labels), i32({3}, labels),
                     f32({2, 2, 3}, logits3), i32({2, 2}, labels3)}));
  double mean = crossEntropyRef(logits, 4, labels, true);
  double sum = crossEntropyRef(logits, 4, labels, false);
  expectTensor(r[0], ElementKind::F32, {}, {r[0][0]}); // kind and shape
  expectClose(r[0][0], mean, 1e-6, 0, "mean, i64 labels");
  expectClose(r[1][0], sum, 1e-6, 0, "sum, i64 labels");
  expectClose(r[2][0], mean, 1e-6, 0, "mean, i32 labels");
  expectClose(r[3][0], crossEntropyRef(logits3, 3, labels3, true), 1e-6, 0,
              "3-D mean");
  expectClose(r[4][0], crossEntropyRef(logits3, 3, labels3, false), 1e-6, 0,
              "3-D sum");
  EXPECT_EQ(r[5].getKind(), ElementKind::F64);
  // Computed in f32, only rounded to f64.
  expectClose(r[5][0], sum, 1e-6, 0, "sum to f64");
  EXPECT_EQ(toF32(r[5][0]), r[5][0]) << "an f32 computation, stored in f64";
}

// By hand: zero logits over 4 classes: every sample's loss is log 4 =
// 1.3862944; mean log 4, sum over 2 samples 2 log 4 = 2.7725887.
TEST_F(InterpreterTest, CrossEntropyByHand) {
  ASSERT_RUN(r, run(R"mlir(
func.func @main(%x: tensor<2x4xf32>, %y: tensor<2xi64>) -> (tensor<f32>, tensor<f32>) {
  %0 = amp.cross_entropy %x, %y : tensor<2x4xf32>, tensor<2xi64> to tensor<f32>
  %1 = amp.cross_entropy %x, %y reduction = sum : tensor<2x4xf32>, tensor<2xi64> to tensor<f32>
  return %0, %1 : tensor<f32>, tensor<f32>
}
)mlir",
                    {f32({2, 4}, Data(8, 0.0)), i64({2}, {3, 1})}));
  expectF32Ulps(r[0][0], std::log(4.0), 2, "mean");
  expectF32Ulps(r[1][0], 2 * std::log(4.0), 2, "sum");
}

// By hand, with ignore_index = -100: zero logits over 4 classes, labels
// [3, -100, 1]: two samples count, each log 4; the mean is log 4, the sum
// 2 log 4; the ignored row's gradient is zero, the others' (1/4 - [c ==
// label]) / 2 for the mean. Every row ignored: 0, and a zero gradient.
TEST_F(InterpreterTest, CrossEntropyIgnoreIndexByHand) {
  const char *src = R"mlir(
func.func @main(%x: tensor<3x4xf32>, %y: tensor<3xi64>, %g: tensor<f32>)
    -> (tensor<f32>, tensor<f32>, tensor<3x4xf32>) {
  %0 = amp.cross_entropy %x, %y ignore_index = -100 : tensor<3x4xf32>, tensor<3xi64> to tensor<f32>
  %1 = amp.cross_entropy %x, %y reduction = sum ignore_index = -100 : tensor<3x4xf32>, tensor<3xi64> to tensor<f32>
  %2 = amp.cross_entropy_grad %x, %y, %g ignore_index = -100 : tensor<3x4xf32>, tensor<3xi64>, tensor<f32>
  return %0, %1, %2 : tensor<f32>, tensor<f32>, tensor<3x4xf32>
}
)mlir";
  ASSERT_RUN(r, run(src, {f32({3, 4}, Data(12, 0.0)), i64({3}, {3, -100, 1}),
                          f32({}, {1.0})}));
  expectF32Ulps(r[0][0], std::log(4.0), 2, "mean");
  expectF32Ulps(r[1][0], 2 * std::log(4.0), 2, "sum");
  Data expected = {0.125, 0.125, 0.125, -0.375, 0,     0,
                   0,     0,     0.125, -0.375, 0.125, 0.125};
  for (int64_t i = 0; i < 12; ++i)
    EXPECT_EQ(r[2][i], expected[i]) << i;
  ASSERT_RUN(none, run(src, {f32({3, 4}, Data(12, 0.0)),
                             i64({3}, {-100, -100, -100}), f32({}, {1.0})}));
  EXPECT_EQ(none[0][0], 0.0);
  EXPECT_EQ(none[1][0], 0.0);
  for (int64_t i = 0; i < 12; ++i)
    EXPECT_EQ(none[2][i], 0.0) << i;
  // Another label outside the classes is still an error.
  EXPECT_FALSE(run(
      src, {f32({3, 4}, Data(12, 0.0)), i64({3}, {3, -1, 1}), f32({}, {1.0})}));
  EXPECT_TRUE(contains(diagnostics, "label -1 at [1] is outside [0, 4)"))
      << diagnostics;
}

// f16 logits, f32 loss: computed in f32 from the exact f16 logits, so the
// f32 result is the f64 formula on those values within 1e-6 relative.
TEST_F(InterpreterTest, CrossEntropyF16LogitsF32Loss) {
  Data logits = roundAll(wave(10, 0.9, 4.0), toF16); // [2, 5]
  Data labels = {4, 1};
  ASSERT_RUN(r, run1(R"mlir(
func.func @main(%x: tensor<2x5xf16>, %y: tensor<2xi64>) -> tensor<f32> {
  %0 = amp.cross_entropy %x, %y : tensor<2x5xf16>, tensor<2xi64> to tensor<f32>
  return %0 : tensor<f32>
}
)mlir",
                     {f16({2, 5}, logits), i64({2}, labels)}));
  EXPECT_EQ(r.getKind(), ElementKind::F32);
  expectClose(r[0], crossEntropyRef(logits, 5, labels, true), 1e-6, 0,
              "f16 logits");
}

TEST_F(InterpreterTest, CrossEntropyLabelOutOfRangeIsAnError) {
  const char *src = R"mlir(
func.func @main(%x: tensor<2x4xf32>, %y: tensor<2xi64>) -> tensor<f32> {
  %0 = amp.cross_entropy %x, %y : tensor<2x4xf32>, tensor<2xi64> to tensor<f32>
  return %0 : tensor<f32>
}
)mlir";
  EXPECT_FALSE(run(src, {f32({2, 4}, Data(8, 0.0)), i64({2}, {0, 4})}));
  EXPECT_TRUE(contains(diagnostics, "'amp.cross_entropy'")) << diagnostics;
  EXPECT_TRUE(contains(diagnostics, "label 4")) << diagnostics;
  EXPECT_TRUE(contains(diagnostics, "[1]")) << diagnostics;
  EXPECT_FALSE(run(src, {f32({2, 4}, Data(8, 0.0)), i64({2}, {-2, 0})}));
  EXPECT_TRUE(contains(diagnostics, "label -2")) << diagnostics;
}

// input [1, 2, 3, 4], target [1.5, 2, 1, 5]: differences -0.5, 0, 2, -1,
// squares 0.25, 0, 4, 1: sum 5.25, mean 5.25 / 4 = 1.3125.
TEST_F(InterpreterTest, MseLossByHand) {
  ASSERT_RUN(r, run(R"mlir(
func.func @main(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>, %h: tensor<4xf16>, %g: tensor<4xf16>) -> (tensor<f32>, tensor<f32>, tensor<f64>, tensor<f32>) {
  %0 = amp.mse_loss %a, %b : tensor<2x2xf32>, tensor<2x2xf32> to tensor<f32>
  %1 = amp.mse_loss %a, %b reduction = sum : tensor<2x2xf32>, tensor<2x2xf32> to tensor<f32>
  %2 = amp.mse_loss %a, %b reduction = sum : tensor<2x2xf32>, tensor<2x2xf32> to tensor<f64>
  %3 = amp.mse_loss %h, %g : tensor<4xf16>, tensor<4xf16> to tensor<f32>
  return %0, %1, %2, %3 : tensor<f32>, tensor<f32>, tensor<f64>, tensor<f32>
}
)mlir",
                    {f32({2, 2}, {1, 2, 3, 4}), f32({2, 2}, {1.5, 2, 1, 5}),
                     f16({4}, {1, 2, 3, 4}), f16({4}, {1.5, 2, 1, 5})}));
  expectTensor(r[0], ElementKind::F32, {}, {1.3125}, "mean");
  expectTensor(r[1], ElementKind::F32, {}, {5.25}, "sum");
  expectTensor(r[2], ElementKind::F64, {}, {5.25}, "sum to f64");
  expectTensor(r[3], ElementKind::F32, {}, {1.3125}, "f16 in, f32 out");
}

// 1 / 3 is not exact: mse of [1, 0, 0] vs 0 = 1/3 rounded once to f32 and
// to f16 (0.333251953125).
TEST_F(InterpreterTest, MseLossRoundsToResultType) {
  ASSERT_RUN(r, run(R"mlir(
func.func @main(%a: tensor<3xf32>, %b: tensor<3xf32>) -> (tensor<f32>, tensor<f16>) {
  %0 = amp.mse_loss %a, %b : tensor<3xf32>, tensor<3xf32> to tensor<f32>
  %1 = amp.mse_loss %a, %b : tensor<3xf32>, tensor<3xf32> to tensor<f16>
  return %0, %1 : tensor<f32>, tensor<f16>
}
)mlir",
                    {f32({3}, {1, 0, 0}), f32({3}, {0, 0, 0})}));
  expectTensor(r[0], ElementKind::F32, {}, {toF32(1.0 / 3)});
  expectTensor(r[1], ElementKind::F16, {}, {1365.0 / 4096});
}

//===----------------------------------------------------------------------===//
// arith, func.call, constants
//===----------------------------------------------------------------------===//

// x = [1.5, -2] (f16) -> extf -> + [0.5, 3] = [2, 1] -> @scale(s, c) = s * c
// = [1, 3]; the other arith ops on [2, 1] and [0.5, 3]:
// sub [1.5, -2], div [4, 1/3], max [2, 3], min [0.5, 1], neg [-2, -1].
// truncf of [1 + 2^-11, 1 + 3 * 2^-11] (ties) -> [1, 1 + 2^-9].
TEST_F(InterpreterTest, ArithOpsAndFuncCall) {
  ASSERT_RUN(r, run(R"mlir(
func.func @scale(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {
  %0 = arith.mulf %a, %b : tensor<2xf32>
  return %0 : tensor<2xf32>
}
func.func @main(%x: tensor<2xf16>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf16>, tensor<2x2xf32>) {
  %c = arith.constant dense<[0.5, 3.0]> : tensor<2xf32>
  %e = arith.extf %x : tensor<2xf16> to tensor<2xf32>
  %s = arith.addf %e, %c : tensor<2xf32>
  %m = func.call @scale(%s, %c) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %d = arith.subf %s, %c : tensor<2xf32>
  %q = arith.divf %s, %c : tensor<2xf32>
  %hi = arith.maximumf %s, %c : tensor<2xf32>
  %lo = arith.minimumf %s, %c : tensor<2xf32>
  %n = arith.negf %s : tensor<2xf32>
  %w = arith.constant dense<[1.00048828125, 1.00146484375]> : tensor<2xf32>
  %t = arith.truncf %w : tensor<2xf32> to tensor<2xf16>
  %splat = arith.constant dense<2.5> : tensor<2x2xf32>
  return %m, %s, %d, %q, %hi, %lo, %n, %t, %splat : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf16>, tensor<2x2xf32>
}
)mlir",
                    {f16({2}, {1.5, -2})}));
  ASSERT_EQ(r.size(), 9u);
  expectTensor(r[0], ElementKind::F32, {2}, {1, 3}, "func.call @scale");
  expectTensor(r[1], ElementKind::F32, {2}, {2, 1}, "extf + addf");
  expectTensor(r[2], ElementKind::F32, {2}, {1.5, -2}, "subf");
  expectTensor(r[3], ElementKind::F32, {2}, {4, toF32(1.0 / 3)}, "divf");
  expectTensor(r[4], ElementKind::F32, {2}, {2, 3}, "maximumf");
  expectTensor(r[5], ElementKind::F32, {2}, {0.5, 1}, "minimumf");
  expectTensor(r[6], ElementKind::F32, {2}, {-2, -1}, "negf");
  expectTensor(r[7], ElementKind::F16, {2}, {1, 1 + std::ldexp(1.0, -9)},
               "truncf");
  expectTensor(r[8], ElementKind::F32, {2, 2}, {2.5, 2.5, 2.5, 2.5}, "splat");
}

// amp.constant: dense and splat, float, integer and mask.
TEST_F(InterpreterTest, AmpConstant) {
  ASSERT_RUN(r, run(R"mlir(
func.func @main() -> (tensor<2x2xbf16>, tensor<3xf32>, tensor<3xi64>, tensor<2xi1>, tensor<f64>) {
  %0 = amp.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xbf16>
  %1 = amp.constant dense<0.5> : tensor<3xf32>
  %2 = amp.constant dense<[1, -2, 3]> : tensor<3xi64>
  %3 = amp.constant dense<[true, false]> : tensor<2xi1>
  %4 = amp.constant dense<0.1> : tensor<f64>
  return %0, %1, %2, %3, %4 : tensor<2x2xbf16>, tensor<3xf32>, tensor<3xi64>, tensor<2xi1>, tensor<f64>
}
)mlir",
                    {}));
  expectTensor(r[0], ElementKind::BF16, {2, 2}, {1, 2, 3, 4});
  expectTensor(r[1], ElementKind::F32, {3}, {0.5, 0.5, 0.5});
  expectTensor(r[2], ElementKind::I64, {3}, {1, -2, 3});
  expectTensor(r[3], ElementKind::I1, {2}, {1, 0});
  expectTensor(r[4], ElementKind::F64, {}, {0.1});
}

//===----------------------------------------------------------------------===//
// check-finite
//===----------------------------------------------------------------------===//

// 65504 + 32 overflows f16 at the add, which is reported (not the mul that
// consumes it); without the option the inf simply flows on.
TEST_F(InterpreterTest, CheckFiniteStopsAtOverflow) {
  const char *src = R"mlir(
func.func @main(%a: tensor<2xf16>, %b: tensor<2xf16>) -> tensor<2xf16> {
  %0 = amp.add %a, %b : tensor<2xf16>, tensor<2xf16>
  %1 = amp.mul %0, %0 : tensor<2xf16>, tensor<2xf16>
  return %1 : tensor<2xf16>
}
)mlir";
  std::vector<Tensor> args = {f16({2}, {65504, 1}), f16({2}, {32, 1})};
  EXPECT_FALSE(run(src, args, InterpreterOptions{/*checkFinite=*/true}));
  EXPECT_TRUE(stoppedAtNonFinite);
  EXPECT_TRUE(contains(diagnostics, "'amp.add'")) << diagnostics;
  EXPECT_TRUE(contains(diagnostics, "inf")) << diagnostics;
  EXPECT_TRUE(contains(diagnostics, "[0]")) << diagnostics;
  EXPECT_FALSE(contains(diagnostics, "'amp.mul'")) << diagnostics;

  ASSERT_RUN(r, run(src, args));
  EXPECT_FALSE(stoppedAtNonFinite);
  expectTensor(r[0], ElementKind::F16, {2}, {kInf, 4});
}

// A causal mask: -inf (a constant) passes through amp.select -- a value it
// did not create -- and softmax turns it into 0: nothing is reported.
// scores 0: row i sees i + 1 keys -> [1 0 0; 1/2 1/2 0; 1/3 1/3 1/3].
TEST_F(InterpreterTest, CheckFiniteIgnoresPropagatedMask) {
  ASSERT_RUN(r, run(R"mlir(
func.func @main(%s: tensor<3x3xf32>) -> tensor<3x3xf32> {
  %row = amp.iota dim = 0 : tensor<3x3xi64>
  %col = amp.iota dim = 1 : tensor<3x3xi64>
  %causal = amp.compare ge, %row, %col : tensor<3x3xi64>, tensor<3x3xi64>
  %ninf = amp.constant dense<0xFF800000> : tensor<f32>
  %masked = amp.select %causal, %s, %ninf : tensor<3x3xi1>, tensor<3x3xf32>, tensor<f32>
  %p = amp.softmax %masked dim = 1 : tensor<3x3xf32>
  return %p : tensor<3x3xf32>
}
)mlir",
                    {f32({3, 3}, Data(9, 0.0))},
                    InterpreterOptions{/*checkFinite=*/true}));
  EXPECT_FALSE(stoppedAtNonFinite);
  EXPECT_TRUE(diagnostics.empty()) << diagnostics;
  double third = toF32(1.0 / 3);
  expectTensor(r[0], ElementKind::F32, {3, 3},
               {1, 0, 0, 0.5, 0.5, 0, third, third, third});
}

// A fully masked row: softmax of [-inf, -inf] is (-inf) - (-inf) = NaN,
// a kind of value no operand held: reported at the softmax.
TEST_F(InterpreterTest, CheckFiniteReportsNaNFromSoftmax) {
  const char *src = R"mlir(
func.func @main(%s: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %keep = amp.constant dense<[[false, false], [true, true]]> : tensor<2x2xi1>
  %ninf = amp.constant dense<0xFF800000> : tensor<f32>
  %masked = amp.select %keep, %s, %ninf : tensor<2x2xi1>, tensor<2x2xf32>, tensor<f32>
  %p = amp.softmax %masked dim = 1 : tensor<2x2xf32>
  return %p : tensor<2x2xf32>
}
)mlir";
  std::vector<Tensor> args = {f32({2, 2}, {1, 2, 0, 0})};
  EXPECT_FALSE(run(src, args, InterpreterOptions{/*checkFinite=*/true}));
  EXPECT_TRUE(stoppedAtNonFinite);
  EXPECT_TRUE(contains(diagnostics, "'amp.softmax'")) << diagnostics;
  EXPECT_TRUE(contains(diagnostics, "nan")) << diagnostics;
  EXPECT_FALSE(contains(diagnostics, "'amp.select'")) << diagnostics;
  // Unchecked: row 0 NaN, row 1 softmax [0, 0] = [0.5, 0.5].
  ASSERT_RUN(r, run(src, args));
  expectTensor(r[0], ElementKind::F32, {2, 2}, {kNaN, kNaN, 0.5, 0.5});
}

TEST_F(InterpreterTest, CheckFiniteReportsNonFiniteArgument) {
  const char *src = R"mlir(
func.func @main(%a: tensor<2xf32>, %b: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %0 = amp.add %a, %b : tensor<2xf32>, tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
)mlir";
  EXPECT_FALSE(run(src, {f32({2}, {1, 2}), f32({2, 2}, {0, 0, kNaN, 0})},
                   InterpreterOptions{/*checkFinite=*/true}));
  EXPECT_TRUE(stoppedAtNonFinite);
  EXPECT_TRUE(contains(diagnostics, "argument #1")) << diagnostics;
  EXPECT_TRUE(contains(diagnostics, "[1, 0]")) << diagnostics;
  // Without the option the NaN just propagates.
  ASSERT_RUN(r, run(src, {f32({2}, {1, 2}), f32({2, 2}, {0, 0, kNaN, 0})}));
  expectTensor(r[0], ElementKind::F32, {2, 2}, {1, 2, kNaN, 2});
}

// The check reaches into called functions and names the op there.
TEST_F(InterpreterTest, CheckFiniteInsideCallee) {
  EXPECT_FALSE(run(R"mlir(
func.func @inner(%a: tensor<1xf32>) -> tensor<1xf32> {
  %0 = amp.log %a : tensor<1xf32>
  return %0 : tensor<1xf32>
}
func.func @main(%a: tensor<1xf32>) -> tensor<1xf32> {
  %0 = func.call @inner(%a) : (tensor<1xf32>) -> tensor<1xf32>
  return %0 : tensor<1xf32>
}
)mlir",
                   {f32({1}, {0})}, InterpreterOptions{/*checkFinite=*/true}));
  EXPECT_TRUE(stoppedAtNonFinite);
  EXPECT_TRUE(contains(diagnostics, "'amp.log'")) << diagnostics;
  EXPECT_TRUE(contains(diagnostics, "-inf")) << diagnostics;
}

//===----------------------------------------------------------------------===//
// verifyArguments
//===----------------------------------------------------------------------===//

constexpr const char *kTwoArgs = R"mlir(
func.func @main(%a: tensor<2x3xf32>, %b: tensor<3xi64>) -> tensor<2x3xf32> {
  return %a : tensor<2x3xf32>
}
)mlir";

TEST_F(InterpreterTest, VerifyArgumentsAcceptsMatchingArguments) {
  ASSERT_TRUE(parse(kTwoArgs));
  EXPECT_TRUE(succeeded(verifyArguments(
      lookup("main"), {f32({2, 3}, Data(6, 1.0)), i64({3}, {0, 1, 2})})));
  EXPECT_TRUE(diagnostics.empty()) << diagnostics;
}

TEST_F(InterpreterTest, VerifyArgumentsWrongCount) {
  ASSERT_TRUE(parse(kTwoArgs));
  EXPECT_TRUE(
      failed(verifyArguments(lookup("main"), {f32({2, 3}, Data(6, 1.0))})));
  EXPECT_TRUE(contains(diagnostics, "takes 2 arguments, got 1")) << diagnostics;
  // Through run as well.
  EXPECT_FALSE(run(kTwoArgs, {}));
  EXPECT_TRUE(contains(diagnostics, "takes 2 arguments, got 0")) << diagnostics;
  EXPECT_FALSE(stoppedAtNonFinite);
}

TEST_F(InterpreterTest, VerifyArgumentsWrongShape) {
  ASSERT_TRUE(parse(kTwoArgs));
  EXPECT_TRUE(failed(verifyArguments(
      lookup("main"), {f32({2, 3}, Data(6, 1.0)), i64({2}, {0, 1})})));
  EXPECT_TRUE(contains(diagnostics, "argument #1")) << diagnostics;
  EXPECT_TRUE(contains(diagnostics, "tensor<3xi64>")) << diagnostics;
  EXPECT_TRUE(contains(diagnostics, "tensor<2xi64>")) << diagnostics;
  EXPECT_FALSE(run(kTwoArgs, {f32({3, 2}, Data(6, 1.0)), i64({3}, {0, 1, 2})}));
  EXPECT_TRUE(contains(diagnostics, "argument #0")) << diagnostics;
  EXPECT_TRUE(contains(diagnostics, "tensor<3x2xf32>")) << diagnostics;
}

TEST_F(InterpreterTest, VerifyArgumentsWrongElementType) {
  ASSERT_TRUE(parse(kTwoArgs));
  EXPECT_TRUE(failed(verifyArguments(
      lookup("main"), {f16({2, 3}, Data(6, 1.0)), i64({3}, {0, 1, 2})})));
  EXPECT_TRUE(contains(diagnostics, "argument #0")) << diagnostics;
  EXPECT_TRUE(contains(diagnostics, "tensor<2x3xf16>")) << diagnostics;
  EXPECT_FALSE(run(kTwoArgs, {f32({2, 3}, Data(6, 1.0)), i32({3}, {0, 1, 2})}));
  EXPECT_TRUE(contains(diagnostics, "argument #1")) << diagnostics;
  EXPECT_TRUE(contains(diagnostics, "tensor<3xi32>")) << diagnostics;
}

//===----------------------------------------------------------------------===//
// RandomInputs
//===----------------------------------------------------------------------===//

class InterpreterRandomInputsTest : public InterpreterTest {
protected:
  /// Arguments: 0 x (20000 floats), 1 ids of a 7-row table, 2 labels of 11
  /// classes, 3 ids through a reshape into a 9-row table, 4 ids used by a
  /// 7-row table and a 4-class loss, 5 unbounded ids, 6 a mask, 7 f16
  /// values, 8.. the tables and logits.
  static constexpr const char *kSource = R"mlir(
func.func @main(%x: tensor<100x200xf32>, %ids: tensor<4x8xi64>, %labels: tensor<6xi32>,
                %flat: tensor<2x3xi64>, %both: tensor<5xi64>, %free: tensor<50xi64>,
                %mask: tensor<64xi1>, %h: tensor<1000xf16>,
                %table: tensor<7x3xf32>, %logits: tensor<6x11xf32>,
                %table2: tensor<9x2xf32>, %logits2: tensor<5x4xf32>) {
  %e = amp.embedding %table[%ids] : tensor<7x3xf32>, tensor<4x8xi64>
  %l = amp.cross_entropy %logits, %labels : tensor<6x11xf32>, tensor<6xi32> to tensor<f32>
  %r = amp.reshape %flat : tensor<2x3xi64> to tensor<6xi64>
  %e2 = amp.embedding %table2[%r] : tensor<9x2xf32>, tensor<6xi64>
  %e3 = amp.embedding %table[%both] : tensor<7x3xf32>, tensor<5xi64>
  %l2 = amp.cross_entropy %logits2, %both : tensor<5x4xf32>, tensor<5xi64> to tensor<f32>
  return
}
)mlir";

  std::vector<Tensor> makeAll(uint64_t seed, const RandomInputOptions &o) {
    std::vector<Tensor> tensors;
    func::FuncOp func = lookup("main");
    for (BlockArgument arg : func.getArguments())
      tensors.push_back(makeRandomInput(arg, seed, o));
    return tensors;
  }
};

TEST_F(InterpreterRandomInputsTest, SameSeedSameTensorsOtherSeedOthers) {
  ASSERT_TRUE(parse(kSource));
  RandomInputOptions options;
  std::vector<Tensor> a = makeAll(42, options), b = makeAll(42, options),
                      c = makeAll(43, options);
  ASSERT_EQ(a.size(), 12u);
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].getType(&ctx), lookup("main").getArgumentTypes()[i])
        << "argument " << i;
    EXPECT_EQ(a[i].getData().vec(), b[i].getData().vec()) << "argument " << i;
  }
  // Another seed: the float tensors differ nearly everywhere, the ids too.
  int64_t same = 0;
  for (int64_t i = 0; i < a[0].getNumElements(); ++i)
    same += a[0][i] == c[0][i];
  EXPECT_LT(same, 10);
  EXPECT_NE(a[1].getData().vec(), c[1].getData().vec());
  EXPECT_NE(a[7].getData().vec(), c[7].getData().vec());
  // Two arguments of one seed draw from different streams.
  EXPECT_NE(a[8].getData().vec(),
            Data(a[9].getData().begin(), a[9].getData().begin() + 21));
}

TEST_F(InterpreterRandomInputsTest, IndexBounds) {
  ASSERT_TRUE(parse(kSource));
  func::FuncOp func = lookup("main");
  EXPECT_EQ(inferIndexBound(func.getArgument(1)), std::optional<int64_t>(7));
  EXPECT_EQ(inferIndexBound(func.getArgument(2)), std::optional<int64_t>(11));
  EXPECT_EQ(inferIndexBound(func.getArgument(3)), std::optional<int64_t>(9))
      << "through amp.reshape";
  EXPECT_EQ(inferIndexBound(func.getArgument(4)), std::optional<int64_t>(4))
      << "the smallest of 7 rows and 4 classes";
  EXPECT_EQ(inferIndexBound(func.getArgument(5)), std::nullopt);

  RandomInputOptions options;
  options.defaultIndexBound = 3;
  struct {
    unsigned arg;
    int64_t bound;
  } bounds[] = {{1, 7}, {2, 11}, {3, 9}, {4, 4}, {5, 3}};
  for (uint64_t seed : {1u, 2u, 3u}) {
    std::vector<Tensor> t = makeAll(seed, options);
    for (const auto &b : bounds) {
      std::set<double> seen;
      for (double v : t[b.arg].getData()) {
        EXPECT_EQ(v, std::floor(v)) << "argument " << b.arg;
        EXPECT_GE(v, 0) << "argument " << b.arg;
        EXPECT_LT(v, b.bound) << "argument " << b.arg;
        seen.insert(v);
      }
      EXPECT_GT(seen.size(), 1u) << "argument " << b.arg << " is constant";
    }
    for (double v : t[6].getData())
      EXPECT_TRUE(v == 0 || v == 1) << "mask value " << v;
    for (double v : t[7].getData())
      EXPECT_EQ(toF16(v), v) << "f16 argument holds a non-f16 value";
  }
}

TEST_F(InterpreterRandomInputsTest, NormalMeanAndStd) {
  ASSERT_TRUE(parse(kSource));
  for (double scale : {1.0, 0.5, 2.0}) {
    RandomInputOptions options;
    options.scale = scale;
    Tensor x = makeRandomInput(lookup("main").getArgument(0), 7, options);
    ASSERT_EQ(x.getNumElements(), 20000);
    double sum = 0, squares = 0;
    for (double v : x.getData())
      sum += v;
    double mean = sum / x.getNumElements();
    for (double v : x.getData())
      squares += (v - mean) * (v - mean);
    double std = std::sqrt(squares / x.getNumElements());
    EXPECT_NEAR(mean, 0.0, 0.05) << "scale " << scale;
    EXPECT_NEAR(std, scale, 0.05) << "scale " << scale;
  }
}

TEST_F(InterpreterRandomInputsTest, UniformRange) {
  ASSERT_TRUE(parse(kSource));
  RandomInputOptions options;
  options.distribution = Distribution::Uniform;
  options.scale = 0.25;
  Tensor x = makeRandomInput(lookup("main").getArgument(0), 3, options);
  double sum = 0, squares = 0;
  for (double v : x.getData()) {
    EXPECT_GE(v, -0.25);
    EXPECT_LE(v, 0.25); // [-scale, scale) before rounding to f32
    sum += v;
    squares += v * v;
  }
  double n = static_cast<double>(x.getNumElements());
  EXPECT_NEAR(sum / n, 0.0, 0.01);
  // Uniform on [-a, a): std a / sqrt(3) = 0.1443.
  EXPECT_NEAR(std::sqrt(squares / n), 0.25 / std::sqrt(3.0), 0.01);
}

} // namespace
