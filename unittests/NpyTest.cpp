//===- NpyTest.cpp - .npy reading and writing -----------------------------===//
//
// Byte layouts are written out by hand from the NumPy format description.
//
//===----------------------------------------------------------------------===//

#include "amp/Interpreter/Npy.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

using namespace mlir;
using namespace mlir::amp::interp;

namespace {

/// A version 1.0 file with `header` (padding and newline added) and `data`.
std::string makeNpy(const std::string &header, const std::string &data,
                    char major = 1) {
  std::string padded = header;
  size_t prefix = major == 1 ? 10 : 12;
  while ((prefix + padded.size() + 1) % 64)
    padded.push_back(' ');
  padded.push_back('\n');
  std::string bytes = "\x93NUMPY";
  bytes.push_back(major);
  bytes.push_back(0);
  bytes.push_back(static_cast<char>(padded.size() & 0xff));
  bytes.push_back(static_cast<char>(padded.size() >> 8));
  if (major != 1) {
    bytes.push_back(0);
    bytes.push_back(0);
  }
  return bytes + padded + data;
}

std::string errorOf(llvm::Expected<Tensor> result) {
  if (result)
    return "";
  return llvm::toString(result.takeError());
}

TEST(NpyTest, ParsesFloat32) {
  // 1.0f = 0x3f800000, -2.5f = 0xc0200000, little-endian.
  std::string data("\x00\x00\x80\x3f\x00\x00\x20\xc0", 8);
  llvm::Expected<Tensor> tensor = parseNpy(
      makeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
              data),
      ElementKind::F32, "x.npy");
  ASSERT_TRUE(!!tensor) << llvm::toString(tensor.takeError());
  EXPECT_EQ(tensor->getShape(), ArrayRef<int64_t>({2}));
  EXPECT_EQ((*tensor)[0], 1.0);
  EXPECT_EQ((*tensor)[1], -2.5);
}

TEST(NpyTest, ParsesHalfAndBFloat16Bits) {
  // fp16 0x3c00 = 1, 0x7c00 = inf; bf16 0x3fc0 = 1.5, 0xc000 = -2.
  std::string half("\x00\x3c\x00\x7c", 4), bf16("\xc0\x3f\x00\xc0", 4);
  llvm::Expected<Tensor> h = parseNpy(
      makeNpy("{'descr': '<f2', 'fortran_order': False, 'shape': (2,), }",
              half),
      ElementKind::F16, "h.npy");
  ASSERT_TRUE(!!h);
  EXPECT_EQ((*h)[0], 1.0);
  EXPECT_TRUE(std::isinf((*h)[1]));
  llvm::Expected<Tensor> b = parseNpy(
      makeNpy("{'descr': '<u2', 'fortran_order': False, 'shape': (2,), }",
              bf16),
      ElementKind::BF16, "b.npy");
  ASSERT_TRUE(!!b);
  EXPECT_EQ((*b)[0], 1.5);
  EXPECT_EQ((*b)[1], -2.0);
}

TEST(NpyTest, ParsesScalarsVersion2AndDoubleQuotes) {
  std::string data("\x07\x00\x00\x00\x00\x00\x00\x00", 8);
  llvm::Expected<Tensor> tensor = parseNpy(
      makeNpy("{\"descr\": \"<i8\", \"fortran_order\": False, \"shape\": ()}",
              data, /*major=*/2),
      ElementKind::I64, "s.npy");
  ASSERT_TRUE(!!tensor) << llvm::toString(tensor.takeError());
  EXPECT_EQ(tensor->getRank(), 0);
  EXPECT_EQ((*tensor)[0], 7.0);
}

TEST(NpyTest, RoundTripsEveryKind) {
  struct Case {
    ElementKind kind;
    std::vector<double> values;
  };
  Case cases[] = {
      {ElementKind::F16, {0.5, -65504.0, INFINITY}},
      {ElementKind::BF16, {1.5, -3.0, 0.0}},
      {ElementKind::F32, {0.1f, -1e30f, 3.0}},
      {ElementKind::F64, {0.1, -1e300, NAN}},
      {ElementKind::I1, {1, 0, 1}},
      {ElementKind::I32, {-5, 2147483647, 0}},
      {ElementKind::I64, {-9007199254740992.0, 42, 0}},
  };
  for (const Case &c : cases) {
    Tensor original(c.kind, {1, 3}, c.values);
    llvm::Expected<Tensor> back =
        parseNpy(serializeNpy(original), c.kind, "round-trip");
    ASSERT_TRUE(!!back) << stringifyElementKind(c.kind).str() << ": "
                        << llvm::toString(back.takeError());
    EXPECT_EQ(back->getShape(), original.getShape());
    for (int i = 0; i < 3; ++i) {
      if (std::isnan(c.values[i]))
        EXPECT_TRUE(std::isnan((*back)[i]));
      else
        EXPECT_EQ((*back)[i], c.values[i])
            << stringifyElementKind(c.kind).str();
    }
  }
}

TEST(NpyTest, HeaderIsAlignedTo64Bytes) {
  std::string bytes = serializeNpy(Tensor(ElementKind::F32, {2, 3}));
  size_t headerLength =
      static_cast<uint8_t>(bytes[8]) | (static_cast<uint8_t>(bytes[9]) << 8);
  EXPECT_EQ((10 + headerLength) % 64, 0u);
  EXPECT_EQ(bytes.size(), 10 + headerLength + 6 * 4);
  EXPECT_NE(bytes.find("'shape': (2, 3)"), std::string::npos);
}

TEST(NpyTest, RejectsBadInput) {
  std::string ok = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
  std::string data(8, '\0');
  EXPECT_NE(errorOf(parseNpy("not numpy", ElementKind::F32, "a.npy"))
                .find("a.npy: not a .npy file"),
            std::string::npos);
  EXPECT_NE(errorOf(parseNpy(makeNpy(ok, data).substr(0, 40), ElementKind::F32,
                             "t.npy"))
                .find("truncated .npy header"),
            std::string::npos);
  EXPECT_NE(errorOf(parseNpy(makeNpy(ok, data.substr(0, 5)), ElementKind::F32,
                             "short.npy"))
                .find("holds 5 data bytes, shape (2,) needs 8"),
            std::string::npos);
  EXPECT_NE(errorOf(parseNpy(makeNpy(ok, data), ElementKind::F16, "d.npy"))
                .find("holds dtype '<f4', expected '<f2' for f16"),
            std::string::npos);
  EXPECT_NE(
      errorOf(
          parseNpy(makeNpy("{'descr': '<f4', 'fortran_order': True, 'shape': "
                           "(2,), }",
                           data),
                   ElementKind::F32, "f.npy"))
          .find("Fortran-order arrays are not supported"),
      std::string::npos);
  EXPECT_NE(errorOf(parseNpy(makeNpy("{'descr': '<f4'}", data),
                             ElementKind::F32, "m.npy"))
                .find("malformed .npy header"),
            std::string::npos);
  // Malformed headers are named as such, not read as another dtype or
  // order.
  for (const char *header :
       {"{'descr': , 'fortran_order': False, 'shape': (2,), }",
        "{'descr': <f4, 'fortran_order': False, 'shape': (2,), }",
        "{'descr': '<f4\", 'fortran_order': False, 'shape': (2,), }",
        "'descr': '<f4', 'fortran_order': False, 'shape': (2,)",
        "{'descr': '<f4', 'fortran_order': 0, 'shape': (2,), }"})
    EXPECT_NE(
        errorOf(parseNpy(makeNpy(header, data), ElementKind::F32, "m.npy"))
            .find("m.npy: malformed .npy header"),
        std::string::npos)
        << header;
  EXPECT_NE(
      errorOf(
          parseNpy(makeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': "
                           "(2, x), }",
                           data),
                   ElementKind::F32, "s.npy"))
          .find("malformed shape"),
      std::string::npos);
  // 2^62 elements of 4 bytes: the byte count overflows, no allocation.
  EXPECT_NE(
      errorOf(
          parseNpy(makeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': "
                           "(4611686018427387904,), }",
                           ""),
                   ElementKind::F32, "huge.npy"))
          .find("is too large"),
      std::string::npos);
  for (const char *shape : {"(3)", "(,3)", "(3,,4)", "(3, -1)", "(02,)"})
    EXPECT_NE(errorOf(parseNpy(makeNpy(std::string("{'descr': '<f4', "
                                                   "'fortran_order': False, "
                                                   "'shape': ") +
                                           shape + ", }",
                                       data),
                               ElementKind::F32, "s.npy"))
                  .find("malformed shape"),
              std::string::npos)
        << shape;
  // A key twice: numpy would take the last value.
  EXPECT_NE(errorOf(parseNpy(makeNpy("{'descr': '<f8', 'descr': '<f4', "
                                     "'fortran_order': False, 'shape': (2,), }",
                                     data),
                             ElementKind::F32, "twice.npy"))
                .find("malformed .npy header"),
            std::string::npos);
  std::string bools("\x00\x02", 2);
  EXPECT_NE(
      errorOf(
          parseNpy(makeNpy("{'descr': '|b1', 'fortran_order': False, 'shape': "
                           "(2,), }",
                           bools),
                   ElementKind::I1, "b.npy"))
          .find("neither 0 nor 1"),
      std::string::npos);
}

TEST(NpyTest, IntegersBeyond2To53AreRefusedExactly) {
  auto read = [](int64_t value) {
    std::string bytes(8, '\0');
    std::memcpy(&bytes[0], &value, 8);
    return parseNpy(makeNpy("{'descr': '<i8', 'fortran_order': False, "
                            "'shape': (1,), }",
                            bytes),
                    ElementKind::I64, "i.npy");
  };
  int64_t exact = int64_t(1) << 53;
  for (int64_t value : {exact, -exact})
    EXPECT_EQ(errorOf(read(value)), "") << value;
  // 2^53 + 1 is 2^53 as a double: compared as a double it passed.
  for (int64_t value : {exact + 1, -exact - 1, INT64_MAX})
    EXPECT_NE(errorOf(read(value)).find("exceeds 2^53"), std::string::npos)
        << value;
}

TEST(NpyTest, ReadsRegularFilesOnly) {
  // A device would be read for ever.
  EXPECT_NE(errorOf(readNpy("/dev/zero", ElementKind::F32))
                .find("/dev/zero: is not a regular file"),
            std::string::npos);
  EXPECT_NE(errorOf(readNpy("/nonexistent/x.npy", ElementKind::F32))
                .find("cannot read"),
            std::string::npos);
}

TEST(NpyTest, WritesAtomically) {
  SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("npy-test", dir));
  SmallString<128> path(dir);
  llvm::sys::path::append(path, "x.npy");
  Tensor tensor(ElementKind::F32, {3}, {1.0, 2.0, 3.0});
  ASSERT_FALSE(!!writeNpy(path, tensor));
  llvm::Expected<Tensor> back = readNpy(path, ElementKind::F32);
  ASSERT_TRUE(!!back);
  EXPECT_EQ((*back)[2], 3.0);
  // Only the file itself is left: the temporary was renamed into place.
  std::error_code ec;
  int entries = 0;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec))
    ++entries;
  EXPECT_EQ(entries, 1);
  // Writing into a missing directory fails cleanly.
  SmallString<128> missing(dir);
  llvm::sys::path::append(missing, "no", "such", "x.npy");
  llvm::Error error = writeNpy(missing, tensor);
  EXPECT_TRUE(!!error);
  llvm::consumeError(std::move(error));
  EXPECT_NE(errorOf(readNpy(missing, ElementKind::F32)).find("cannot read"),
            std::string::npos);
  llvm::sys::fs::remove_directories(dir);
}

} // namespace
