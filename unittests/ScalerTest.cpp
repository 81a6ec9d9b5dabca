//===- ScalerTest.cpp - the dynamic loss-scale update ---------------------===//
//
// A scripted pattern of overflowing (1) and clean (0) steps through
// amp.scaler_update in the interpreter: the scale and tracker sequences are
// written out by hand from the algorithm in REFERENCE.md, and checked once
// more against torch.amp.GradScaler's own, recorded by
// scripts/make_golden_scaler.py in test/Golden/grad_scaler.json.
//
//===----------------------------------------------------------------------===//

#include "amp/InitAll.h"
#include "amp/Interpreter/Interpreter.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::amp::interp;

namespace {

const std::vector<int> kPattern = {0, 0, 1, 0, 0, 0, 0, 1, 1, 0,
                                   0, 0, 1, 0, 0, 0, 0, 0, 0, 1};

struct Sequence {
  std::vector<double> scale, growth, hysteresis;
};

class ScalerTest : public ::testing::Test {
protected:
  ScalerTest() {
    DialectRegistry registry;
    amp::registerAllDialects(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
  }

  /// Runs the pattern from scale 1024 through a scaler_update with `attrs`.
  Sequence run(const std::string &attrs, double hysteresis) {
    std::string source =
        "func.func @update(%s: tensor<f32>, %g: tensor<f32>, %h: "
        "tensor<f32>, %f: tensor<f32>) -> (tensor<f32>, tensor<f32>, "
        "tensor<f32>) {\n"
        "  %a, %b, %c = amp.scaler_update %s, %g, %h, %f {" +
        attrs +
        "} : tensor<f32>\n"
        "  return %a, %b, %c : tensor<f32>, tensor<f32>, tensor<f32>\n}\n";
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &ctx);
    EXPECT_TRUE(module);
    auto func = *module->getOps<func::FuncOp>().begin();
    Interpreter interpreter(*module);
    auto scalar = [](double v) { return Tensor(ElementKind::F32, {}, {v}); };
    std::vector<Tensor> state{scalar(1024), scalar(0), scalar(hysteresis)};
    Sequence seq;
    for (int overflow : kPattern) {
      std::vector<Tensor> args = state;
      args.push_back(scalar(overflow));
      FailureOr<std::vector<Tensor>> out = interpreter.run(func, args);
      EXPECT_TRUE(succeeded(out));
      state = *out;
      seq.scale.push_back(state[0][0]);
      seq.growth.push_back(state[1][0]);
      seq.hysteresis.push_back(state[2][0]);
    }
    return seq;
  }

  MLIRContext ctx;
};

constexpr const char *kTorchConfig =
    "growth_factor = 2.0, backoff_factor = 0.5, growth_interval = 3, "
    "hysteresis = 1";

// GradScaler with growth_interval 3: a clean step counts the tracker up;
// the third in a row doubles the scale and resets it; an overflow halves
// the scale and resets it.
TEST_F(ScalerTest, GradScalerSequenceByHand) {
  Sequence s = run(kTorchConfig, 1);
  EXPECT_EQ(s.scale,
            (std::vector<double>{1024, 1024, 512, 512, 512,  1024, 1024,
                                 512,  256,  256, 256, 512,  256,  256,
                                 256,  512,  512, 512, 1024, 512}));
  EXPECT_EQ(s.growth, (std::vector<double>{1, 2, 0, 1, 2, 0, 1, 0, 0, 1,
                                           2, 0, 0, 1, 2, 0, 1, 2, 0, 0}));
}

TEST_F(ScalerTest, MatchesTorchGradScaler) {
  auto file = llvm::MemoryBuffer::getFile(AMP_SOURCE_DIR
                                          "/test/Golden/grad_scaler.json");
  ASSERT_TRUE(static_cast<bool>(file));
  llvm::Expected<llvm::json::Value> golden =
      llvm::json::parse((*file)->getBuffer());
  ASSERT_TRUE(static_cast<bool>(golden));
  const llvm::json::Object *object = golden->getAsObject();
  const llvm::json::Array *pattern = object->getArray("found_inf");
  const llvm::json::Array *scales = object->getArray("scale");
  const llvm::json::Array *trackers = object->getArray("growth_tracker");
  ASSERT_EQ(pattern->size(), kPattern.size());
  for (size_t i = 0; i < kPattern.size(); ++i)
    ASSERT_EQ((*pattern)[i].getAsInteger(), kPattern[i]);
  Sequence s = run(kTorchConfig, 1);
  for (size_t i = 0; i < kPattern.size(); ++i) {
    EXPECT_EQ(s.scale[i], *(*scales)[i].getAsNumber()) << "step " << i;
    EXPECT_EQ(s.growth[i], *(*trackers)[i].getAsInteger()) << "step " << i;
  }
}

// Clamped to [512, 1024]: step 8 would halve to 256, step 18 grow to 2048.
TEST_F(ScalerTest, ClampsByHand) {
  Sequence s = run(
      std::string(kTorchConfig) + ", min_scale = 512.0, max_scale = 1024.0", 1);
  EXPECT_EQ(s.scale,
            (std::vector<double>{1024, 1024, 512,  512,  512,  1024, 1024,
                                 512,  512,  512,  512,  1024, 512,  512,
                                 512,  1024, 1024, 1024, 1024, 512}));
}

// Hysteresis 2: a lone overflow only uses up the hysteresis (refilled at
// each growth); the second of steps 7 and 8 backs off.
TEST_F(ScalerTest, HysteresisByHand) {
  Sequence s = run("growth_factor = 2.0, backoff_factor = 0.5, "
                   "growth_interval = 3, hysteresis = 2",
                   2);
  EXPECT_EQ(s.scale,
            (std::vector<double>{1024, 1024, 1024, 1024, 1024, 2048, 2048,
                                 2048, 1024, 1024, 1024, 2048, 2048, 2048,
                                 2048, 4096, 4096, 4096, 8192, 8192}));
  EXPECT_EQ(s.hysteresis, (std::vector<double>{2, 2, 1, 1, 1, 2, 2, 1, 0, 0,
                                               0, 2, 1, 1, 1, 2, 2, 2, 2, 1}));
}

// A growth that would overflow f32 keeps the scale (and resets the
// tracker), as GradScaler does.
TEST_F(ScalerTest, GrowthToInfinityIsRefused) {
  std::string source = R"mlir(
func.func @update(%s: tensor<f32>, %g: tensor<f32>, %h: tensor<f32>, %f: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %a, %b, %c = amp.scaler_update %s, %g, %h, %f {growth_factor = 2.0, backoff_factor = 0.5, growth_interval = 1, hysteresis = 1} : tensor<f32>
  return %a, %b : tensor<f32>, tensor<f32>
}
)mlir";
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &ctx);
  auto func = *module->getOps<func::FuncOp>().begin();
  auto scalar = [](double v) { return Tensor(ElementKind::F32, {}, {v}); };
  FailureOr<std::vector<Tensor>> out = Interpreter(*module).run(
      func, {scalar(3.0e38), scalar(0), scalar(1), scalar(0)});
  ASSERT_TRUE(succeeded(out));
  EXPECT_EQ((*out)[0][0], static_cast<double>(3.0e38f));
  EXPECT_EQ((*out)[1][0], 0.0);
}

} // namespace
