//===- Npy.cpp - NumPy .npy files -----------------------------------------===//

#include "amp/Interpreter/Npy.h"

#include "amp_runtime/float_formats.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstring>

using namespace mlir;
using namespace mlir::amp;
using namespace mlir::amp::interp;
using llvm::Error;
using llvm::Expected;

static constexpr StringLiteral kMagic("\x93NUMPY");

StringRef interp::getNpyDescr(ElementKind kind) {
  switch (kind) {
  case ElementKind::F16:
    return "<f2";
  case ElementKind::BF16:
    return "<u2";
  case ElementKind::F32:
    return "<f4";
  case ElementKind::F64:
    return "<f8";
  case ElementKind::I1:
    return "|b1";
  case ElementKind::I32:
    return "<i4";
  case ElementKind::I64:
    return "<i8";
  case ElementKind::F8E4M3FN:
  case ElementKind::F8E5M2:
    return "|u1";
  }
  llvm_unreachable("unknown element kind");
}

static size_t getItemSize(ElementKind kind) {
  switch (kind) {
  case ElementKind::I1:
  case ElementKind::F8E4M3FN:
  case ElementKind::F8E5M2:
    return 1;
  case ElementKind::F16:
  case ElementKind::BF16:
    return 2;
  case ElementKind::F32:
  case ElementKind::I32:
    return 4;
  case ElementKind::F64:
  case ElementKind::I64:
    return 8;
  }
  llvm_unreachable("unknown element kind");
}

static Error makeError(StringRef name, const Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 name + ": " + message);
}

/// The value of key `key` in the header dict, up to the next top-level comma
/// or the closing brace; quotes are kept.
static std::optional<StringRef> findHeaderValue(StringRef header,
                                                StringRef key) {
  for (char quote : {'\'', '"'}) {
    std::string quoted = (Twine(quote) + key + Twine(quote)).str();
    size_t at = header.find(quoted);
    if (at == StringRef::npos)
      continue;
    // A key given twice is malformed (numpy would take the last).
    if (header.find(quoted, at + quoted.size()) != StringRef::npos)
      return std::nullopt;
    StringRef rest = header.drop_front(at + quoted.size()).ltrim();
    if (!rest.consume_front(":"))
      return std::nullopt;
    rest = rest.ltrim();
    if (rest.starts_with("(")) {
      size_t close = rest.find(')');
      if (close == StringRef::npos)
        return std::nullopt;
      return rest.take_front(close + 1);
    }
    size_t end = rest.find_first_of(",}");
    return rest.take_front(end).rtrim();
  }
  return std::nullopt;
}

/// Parses a Python tuple of dimensions as NumPy writes it: "()", "(5,)",
/// "(2, 3)" (a trailing comma allowed, empty entries not).
static std::optional<SmallVector<int64_t>> parseShape(StringRef text) {
  if (!text.consume_front("(") || !text.consume_back(")"))
    return std::nullopt;
  text = text.trim();
  SmallVector<int64_t> shape;
  if (text.empty())
    return shape;
  bool trailingComma = text.consume_back(",");
  SmallVector<StringRef> parts;
  text.split(parts, ',');
  // One element is a tuple only with its comma: "(3)" is the number 3.
  if (parts.size() == 1 && !trailingComma)
    return std::nullopt;
  for (StringRef part : parts) {
    int64_t dim;
    // Python writes no leading zeros (and reads none: 040 is no number).
    StringRef digits = part.trim();
    if (digits.getAsInteger(10, dim) || dim < 0 ||
        (digits.size() > 1 && digits.front() == '0'))
      return std::nullopt;
    shape.push_back(dim);
  }
  return shape;
}

Expected<Tensor> interp::parseNpy(StringRef bytes, ElementKind kind,
                                  StringRef name) {
  if (!bytes.starts_with(kMagic))
    return makeError(name, "not a .npy file (bad magic)");
  if (bytes.size() < 10)
    return makeError(name, "truncated .npy header");
  auto major = static_cast<uint8_t>(bytes[6]);
  size_t headerLength, dataOffset;
  if (major == 1) {
    headerLength = static_cast<uint8_t>(bytes[8]) |
                   (static_cast<size_t>(static_cast<uint8_t>(bytes[9])) << 8);
    dataOffset = 10 + headerLength;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      return makeError(name, "truncated .npy header");
    headerLength = 0;
    for (int i = 0; i < 4; ++i)
      headerLength |= static_cast<size_t>(static_cast<uint8_t>(bytes[8 + i]))
                      << (8 * i);
    dataOffset = 12 + headerLength;
  } else {
    return makeError(name, "unsupported .npy format version " +
                               Twine(static_cast<int>(major)));
  }
  if (dataOffset > bytes.size())
    return makeError(name, "truncated .npy header");
  StringRef header = bytes.slice(dataOffset - headerLength, dataOffset);

  auto malformed = [&] {
    return makeError(name, "malformed .npy header '" + header.rtrim() + "'");
  };
  // A Python dict literal, padded with spaces and ended by a newline.
  StringRef dict = header.trim(" \n");
  if (!dict.starts_with("{") || !dict.ends_with("}"))
    return malformed();
  std::optional<StringRef> descr = findHeaderValue(dict, "descr");
  std::optional<StringRef> fortran = findHeaderValue(dict, "fortran_order");
  std::optional<StringRef> shapeText = findHeaderValue(dict, "shape");
  if (!descr || !fortran || !shapeText)
    return malformed();
  // The dtype is a quoted string; the order a Python bool.
  if (descr->size() < 3 || (descr->front() != '\'' && descr->front() != '"') ||
      descr->back() != descr->front())
    return malformed();
  StringRef dtype = descr->drop_front().drop_back();
  if (*fortran != "False" && *fortran != "True")
    return malformed();
  if (*fortran != "False")
    return makeError(name, "Fortran-order arrays are not supported; save a "
                           "C-order array (numpy.ascontiguousarray)");
  if (dtype != getNpyDescr(kind))
    return makeError(name, "holds dtype '" + dtype + "', expected '" +
                               getNpyDescr(kind) + "' for " +
                               stringifyElementKind(kind));
  std::optional<SmallVector<int64_t>> shape = parseShape(*shapeText);
  if (!shape)
    return makeError(name, "malformed shape " + *shapeText);

  int64_t count = 1, bytesNeeded = 0;
  size_t itemSize = getItemSize(kind);
  for (int64_t dim : *shape)
    if (llvm::MulOverflow(count, dim, count))
      return makeError(name, "shape " + *shapeText + " is too large");
  if (llvm::MulOverflow(count, static_cast<int64_t>(itemSize), bytesNeeded))
    return makeError(name, "shape " + *shapeText + " is too large");
  StringRef payload = bytes.drop_front(dataOffset);
  if (payload.size() != static_cast<size_t>(bytesNeeded))
    return makeError(name, "holds " + Twine(payload.size()) +
                               " data bytes, shape " + *shapeText + " needs " +
                               Twine(bytesNeeded));

  std::vector<double> data(count);
  const char *raw = payload.data();
  for (int64_t i = 0; i < count; ++i, raw += itemSize) {
    switch (kind) {
    case ElementKind::F16:
    case ElementKind::BF16: {
      uint16_t bits;
      std::memcpy(&bits, raw, 2);
      data[i] = kind == ElementKind::F16 ? amprt::halfBitsToDouble(bits)
                                         : amprt::bfloat16BitsToDouble(bits);
      break;
    }
    case ElementKind::F32: {
      float value;
      std::memcpy(&value, raw, 4);
      data[i] = value;
      break;
    }
    case ElementKind::F8E4M3FN:
      data[i] = amprt::fp8BitsToFloat(static_cast<uint8_t>(*raw),
                                      amprt::Fp8Format::E4M3FN);
      break;
    case ElementKind::F8E5M2:
      data[i] = amprt::fp8BitsToFloat(static_cast<uint8_t>(*raw),
                                      amprt::Fp8Format::E5M2);
      break;
    case ElementKind::F64:
      std::memcpy(&data[i], raw, 8);
      break;
    case ElementKind::I1:
      if (static_cast<uint8_t>(*raw) > 1)
        return makeError(name,
                         "boolean element " + Twine(i) + " is neither 0 nor 1");
      data[i] = *raw;
      break;
    case ElementKind::I32: {
      int32_t value;
      std::memcpy(&value, raw, 4);
      data[i] = value;
      break;
    }
    case ElementKind::I64: {
      int64_t value;
      std::memcpy(&value, raw, 8);
      // Compared as integers: 2^53 + 1 becomes 2^53 as a double.
      constexpr auto kExact = static_cast<int64_t>(kMaxExactInteger);
      if (value > kExact || value < -kExact)
        return makeError(name, "integer element " + Twine(i) + " (" +
                                   Twine(value) + ") exceeds 2^53");
      data[i] = static_cast<double>(value);
      break;
    }
    }
  }
  return Tensor(kind, *shape, std::move(data));
}

Expected<Tensor> interp::readNpy(StringRef path, ElementKind kind) {
  // A device or a pipe would be read for ever (or block): files only.
  llvm::sys::fs::file_status status;
  if (std::error_code code = llvm::sys::fs::status(path, status))
    return makeError(path, "cannot read: " + code.message());
  if (status.type() != llvm::sys::fs::file_type::regular_file)
    return makeError(path, "is not a regular file (a device, directory or "
                           "pipe): only files are read");
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return makeError(path, "cannot read: " + buffer.getError().message());
  return parseNpy((*buffer)->getBuffer(), kind, path);
}

std::string interp::serializeNpy(const Tensor &tensor) {
  std::string header;
  llvm::raw_string_ostream os(header);
  os << "{'descr': '" << getNpyDescr(tensor.getKind())
     << "', 'fortran_order': False, 'shape': (";
  for (int64_t dim : tensor.getShape())
    os << dim << (tensor.getRank() == 1 ? "," : ", ");
  if (tensor.getRank() > 1)
    header.resize(header.size() - 2);
  os << "), }";
  // Pad with spaces so that the data starts on a 64-byte boundary.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');

  std::string bytes(kMagic);
  bytes.push_back(1);
  bytes.push_back(0);
  bytes.push_back(static_cast<char>(header.size() & 0xff));
  bytes.push_back(static_cast<char>(header.size() >> 8));
  bytes += header;
  for (double value : tensor.getData()) {
    char raw[8];
    switch (tensor.getKind()) {
    case ElementKind::F16:
    case ElementKind::BF16: {
      uint16_t bits = tensor.getKind() == ElementKind::F16
                          ? amprt::doubleToHalfBits(value)
                          : amprt::doubleToBFloat16Bits(value);
      std::memcpy(raw, &bits, 2);
      break;
    }
    case ElementKind::F32: {
      auto f = static_cast<float>(value);
      std::memcpy(raw, &f, 4);
      break;
    }
    case ElementKind::F64:
      std::memcpy(raw, &value, 8);
      break;
    case ElementKind::I1:
      raw[0] = value != 0.0;
      break;
    case ElementKind::F8E4M3FN:
    case ElementKind::F8E5M2: {
      amprt::Fp8Format format = tensor.getKind() == ElementKind::F8E4M3FN
                                    ? amprt::Fp8Format::E4M3FN
                                    : amprt::Fp8Format::E5M2;
      raw[0] = static_cast<char>(
          amprt::quantizeFp8(static_cast<float>(value), 1.0f, format));
      break;
    }
    case ElementKind::I32: {
      auto i = static_cast<int32_t>(value);
      std::memcpy(raw, &i, 4);
      break;
    }
    case ElementKind::I64: {
      auto i = static_cast<int64_t>(value);
      std::memcpy(raw, &i, 8);
      break;
    }
    }
    bytes.append(raw, getItemSize(tensor.getKind()));
  }
  return bytes;
}

Error interp::writeNpy(StringRef path, const Tensor &tensor) {
  return llvm::writeToOutput(path, [&](llvm::raw_ostream &os) {
    os << serializeNpy(tensor);
    return Error::success();
  });
}
