//===- FloatConversionTest.cpp - exactness of precision conversions -------===//

#include "amp/Dialect/Amp/IR/AmpOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace mlir;

namespace {

class FloatConversionTest : public ::testing::Test {
protected:
  MLIRContext ctx;
  Builder b{&ctx};
};

TEST_F(FloatConversionTest, WideningIsExact) {
  EXPECT_TRUE(amp::isExactConversion(b.getF16Type(), b.getF32Type()));
  EXPECT_TRUE(amp::isExactConversion(b.getBF16Type(), b.getF32Type()));
  EXPECT_TRUE(amp::isExactConversion(b.getF16Type(), b.getF64Type()));
  EXPECT_TRUE(amp::isExactConversion(b.getBF16Type(), b.getF64Type()));
  EXPECT_TRUE(amp::isExactConversion(b.getF32Type(), b.getF64Type()));
}

TEST_F(FloatConversionTest, SameTypeIsExact) {
  for (Type t :
       {b.getF16Type(), b.getBF16Type(), b.getF32Type(), b.getF64Type()})
    EXPECT_TRUE(amp::isExactConversion(cast<FloatType>(t), cast<FloatType>(t)));
}

TEST_F(FloatConversionTest, NarrowingRounds) {
  EXPECT_FALSE(amp::isExactConversion(b.getF32Type(), b.getF16Type()));
  EXPECT_FALSE(amp::isExactConversion(b.getF32Type(), b.getBF16Type()));
  EXPECT_FALSE(amp::isExactConversion(b.getF64Type(), b.getF32Type()));
}

// f16 has more mantissa bits (11 vs 8), bf16 more exponent range (2^127 vs
// 65504): neither holds the other.
TEST_F(FloatConversionTest, HalfFormatsAreNotNested) {
  EXPECT_FALSE(amp::isExactConversion(b.getF16Type(), b.getBF16Type()));
  EXPECT_FALSE(amp::isExactConversion(b.getBF16Type(), b.getF16Type()));
}

TEST_F(FloatConversionTest, DefaultAccumulator) {
  EXPECT_EQ(amp::getDefaultAccumulatorType(b.getF16Type()), b.getF32Type());
  EXPECT_EQ(amp::getDefaultAccumulatorType(b.getBF16Type()), b.getF32Type());
  EXPECT_EQ(amp::getDefaultAccumulatorType(b.getF32Type()), b.getF32Type());
  EXPECT_EQ(amp::getDefaultAccumulatorType(b.getF64Type()), b.getF64Type());
}

} // namespace
