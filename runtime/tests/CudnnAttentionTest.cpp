//===- CudnnAttentionTest.cpp - cuDNN attention graphs, without a GPU ----===//
//
// The graphs the CUDA backend hands cuDNN for attention, checked by the
// cuDNN frontend's own validation (shapes, strides, dtypes, the outputs'
// inferred dims), which needs no GPU.
//
//===----------------------------------------------------------------------===//

#include "cudnn_attention.h"
#include "cudnn_graphs.h"

#include "amp_runtime/launch_grid.h"

#include <gtest/gtest.h>

#include <string>

namespace {

/// The status's message, or "" for success; the status is freed.
std::string messageOf(amp_status_t status) {
  std::string message = status ? amp_status_message(status) : "";
  amp_status_free(status);
  return message;
}

/// GPT-2 124M's attention at batch 4: 12 heads of 64, 1024 tokens.
amp_attention_t gpt2(amp_dtype_t dtype) {
  return {dtype, 4 * 12, 1024, 1024, 64, 0.125f, 1};
}

/// The GPUs the generated CUDA is built for: A100 (sm_80), H100 (sm_90).
constexpr int kSms[] = {80, 90};

TEST(CudnnAttention, GraphsOfGpt2Validate) {
  for (int sm : kSms) {
    for (amp_dtype_t dtype : {AMP_F16, AMP_BF16}) {
      SCOPED_TRACE("sm " + std::to_string(sm) + " dtype " +
                   std::to_string(dtype));
      amp_attention_t a = gpt2(dtype);
      using amprt::CudnnAttention;
      EXPECT_EQ(messageOf(CudnnAttention::validate(a, false, false, sm)), "");
      EXPECT_EQ(messageOf(CudnnAttention::validate(a, false, true, sm)), "");
      EXPECT_EQ(messageOf(CudnnAttention::validate(a, true, true, sm)), "");
    }
  }
}

TEST(CudnnAttention, CrossAttentionWithoutMaskValidates) {
  amp_attention_t a{AMP_BF16, 8, 16, 48, 128, 0.25f, 0};
  for (int sm : kSms) {
    using amprt::CudnnAttention;
    EXPECT_EQ(messageOf(CudnnAttention::validate(a, false, true, sm)), "");
    EXPECT_EQ(messageOf(CudnnAttention::validate(a, true, true, sm)), "");
  }
}

// GPT-2's attention as a compiled step hands it over: Q, K and V in the
// QKV projection's [B, S, 3, H, D] output, out and dout as [B, S, H, D],
// dq, dk and dv into a [B, S, 3, H, D] gradient.
TEST(CudnnAttention, PackedLayoutsOfGpt2Validate) {
  const int64_t heads = 12, seq = 1024, d = 64;
  const amp_attention_layout_t packed{seq * 3 * heads * d, d, 3 * heads * d};
  const amp_attention_layout_t rows{seq * heads * d, d, heads * d};
  for (int sm : kSms) {
    for (amp_dtype_t dtype : {AMP_F16, AMP_BF16}) {
      SCOPED_TRACE("sm " + std::to_string(sm) + " dtype " +
                   std::to_string(dtype));
      amp_attention_t a = gpt2(dtype);
      a.heads = heads;
      a.q = a.k = a.v = a.dq = a.dk = a.dv = packed;
      a.out = a.dout = rows;
      using amprt::CudnnAttention;
      EXPECT_EQ(messageOf(CudnnAttention::validate(a, false, false, sm)), "");
      EXPECT_EQ(messageOf(CudnnAttention::validate(a, false, true, sm)), "");
      EXPECT_EQ(messageOf(CudnnAttention::validate(a, true, true, sm)), "");
    }
  }
}

TEST(CudnnAttention, F32IsLeftToTheBackendsKernels) {
  amp_attention_t a = gpt2(AMP_F32);
  EXPECT_NE(messageOf(amprt::CudnnAttention::validate(a, false, true, 90))
                .find("f16 and bf16 only"),
            std::string::npos);
}

// A plan cuDNN declined, or one that wants more workspace than the step
// offers, runs nothing and is counted as a fallback, said once on stderr
// per plan; a decline by the caller's rule (f32 attention) is not one.
TEST(CudnnPlans, FallbacksAreCountedAndSaidOnce) {
  amprt::CudnnPlan declined;
  declined.declined = "no engine";
  amprt::CudnnPlan byRule;
  byRule.declined = "f16 and bf16 only";
  byRule.byRule = true;
  amprt::CudnnPlan hungry;
  hungry.graph = std::make_shared<cudnn_frontend::graph::Graph>();
  hungry.workspaceBytes = 1 << 20;
  int64_t before = amp_library_fallbacks();
  testing::internal::CaptureStderr();
  for (int run = 0; run < 2; ++run)
    for (const amprt::CudnnPlan *plan : {&declined, &byRule, &hungry}) {
      bool ran = true;
      EXPECT_EQ(
          messageOf(amprt::runCudnnPlan(nullptr, nullptr, *plan, {}, nullptr,
                                        4096, "attention", &ran)),
          "");
      EXPECT_FALSE(ran);
    }
  std::string said = testing::internal::GetCapturedStderr();
  EXPECT_EQ(amp_library_fallbacks() - before, 4);
  EXPECT_EQ(said,
            "amp runtime: a cuDNN attention ran on the runtime's kernels "
            "instead (slower): cuDNN declined it: no engine\n"
            "amp runtime: a cuDNN attention ran on the runtime's kernels "
            "instead (slower): its plan needs 1048576 bytes of workspace, "
            "the step offers 4096\n");
}

} // namespace

// What the frontend refuses the backend runs on its own kernels; these
// limits are the ones the cost report assumes (head dims that are
// multiples of 8, up to 128 on every GPU built for).
TEST(CudnnAttention, RefusesHeadDimsNotMultiplesOfEight) {
  amp_attention_t a{AMP_F16, 8, 64, 64, 12, 0.25f, 1};
  EXPECT_NE(messageOf(amprt::CudnnAttention::validate(a, false, true, 90))
                .find("multiple of 8"),
            std::string::npos);
  EXPECT_NE(messageOf(amprt::CudnnAttention::validate(a, true, true, 90))
                .find("multiple of 8"),
            std::string::npos);
}

TEST(CudnnAttention, AmpereBackwardTakesHeadDimsUpTo128) {
  amp_attention_t a{AMP_BF16, 8, 64, 64, 128, 0.25f, 1};
  EXPECT_EQ(messageOf(amprt::CudnnAttention::validate(a, true, true, 80)), "");
  a.head_dim = 256;
  EXPECT_NE(messageOf(amprt::CudnnAttention::validate(a, true, true, 80))
                .find("less than or equal to 128"),
            std::string::npos);
}

TEST(CudnnAttention, TuringIsRefused) {
  amp_attention_t a = gpt2(AMP_F16);
  EXPECT_NE(messageOf(amprt::CudnnAttention::validate(a, false, true, 75))
                .find("SM80"),
            std::string::npos);
}

// The cost report's rule for which attentions run on cuDNN: every head dim
// it sends there validates on both GPUs, forward and backward, and every
// f16 or bf16 one it keeps is refused on one of them.
TEST(CudnnAttention, TheCostReportsRuleMatchesTheFrontend) {
  for (amp_dtype_t dtype : {AMP_F16, AMP_BF16}) {
    for (int64_t dim = 1; dim <= AMP_ATTENTION_MAX_HEAD_DIM; ++dim) {
      SCOPED_TRACE("head dim " + std::to_string(dim));
      amp_attention_t a{dtype, 2, 32, 32, dim, 0.5f, 1};
      bool everywhere = true;
      for (int sm : kSms)
        for (bool backward : {false, true})
          everywhere &= messageOf(amprt::CudnnAttention::validate(
                            a, backward, true, sm)) == "";
      EXPECT_EQ(amprt::attentionOnCudnn(true, dim), everywhere);
    }
  }
  EXPECT_FALSE(amprt::attentionOnCudnn(false, 64));
}
