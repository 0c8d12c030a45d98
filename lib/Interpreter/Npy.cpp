//===- Npy.cpp - Minimal NumPy .npy reader and writer ---------------------===//
//
// The .npy format: a magic string, a version, a header that is a Python dict
// literal ({'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }), then
// the raw elements. The header parser accepts exactly that dict grammar,
// which every NumPy version writes, and rejects anything else with a message
// rather than guessing.
//
//===----------------------------------------------------------------------===//

#include "quire/Interpreter/Npy.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace mlir;
using namespace mlir::quire;

static const char kMagic[] = "\x93NUMPY";

namespace {
/// Recursive-descent reader of the header's dict literal.
class HeaderParser {
public:
  explicit HeaderParser(StringRef text) : text(text) {}

  LogicalResult parse(NpyArray &array, bool &fortranOrder, std::string &error);

private:
  void skipSpace() { text = text.ltrim(" \t\r\n"); }
  bool consume(StringRef token) {
    skipSpace();
    return text.consume_front(token);
  }
  LogicalResult parseString(std::string &out);
  LogicalResult parseShape(SmallVectorImpl<int64_t> &shape);

  StringRef text;
};
} // namespace

LogicalResult HeaderParser::parseString(std::string &out) {
  skipSpace();
  if (text.empty() || (text[0] != '\'' && text[0] != '"'))
    return failure();
  char quote = text[0];
  size_t end = text.find(quote, 1);
  if (end == StringRef::npos)
    return failure();
  out = text.substr(1, end - 1).str();
  text = text.drop_front(end + 1);
  return success();
}

LogicalResult HeaderParser::parseShape(SmallVectorImpl<int64_t> &shape) {
  if (!consume("("))
    return failure();
  while (!consume(")")) {
    skipSpace();
    size_t len = text.find_first_not_of("0123456789");
    if (len == 0 || len == StringRef::npos)
      return failure();
    int64_t dim;
    if (text.substr(0, len).getAsInteger(10, dim))
      return failure();
    shape.push_back(dim);
    text = text.drop_front(len);
    // Trailing L from Python 2 writers.
    consume("L");
    if (!consume(",")) {
      if (!consume(")"))
        return failure();
      break;
    }
  }
  return success();
}

LogicalResult HeaderParser::parse(NpyArray &array, bool &fortranOrder,
                                  std::string &error) {
  bool haveDescr = false, haveOrder = false, haveShape = false;
  if (!consume("{")) {
    error = "header is not a dict";
    return failure();
  }
  while (!consume("}")) {
    std::string key;
    if (failed(parseString(key)) || !consume(":")) {
      error = "malformed header key";
      return failure();
    }
    if (key == "descr") {
      if (failed(parseString(array.descr))) {
        error = "'descr' is not a simple dtype string (structured dtypes are "
                "not supported)";
        return failure();
      }
      haveDescr = true;
    } else if (key == "fortran_order") {
      if (consume("True"))
        fortranOrder = true;
      else if (consume("False"))
        fortranOrder = false;
      else {
        error = "'fortran_order' is neither True nor False";
        return failure();
      }
      haveOrder = true;
    } else if (key == "shape") {
      if (failed(parseShape(array.shape))) {
        error = "'shape' is not a tuple of non-negative integers";
        return failure();
      }
      haveShape = true;
    } else {
      error = "unknown header key '" + key + "'";
      return failure();
    }
    if (!consume(",")) {
      if (!consume("}")) {
        error = "malformed header dict";
        return failure();
      }
      break;
    }
  }
  if (!haveDescr || !haveOrder || !haveShape) {
    error = "header lacks one of 'descr', 'fortran_order' and 'shape'";
    return failure();
  }
  return success();
}

/// Normalizes byte order: `=` is the host's (little-endian here), one-byte
/// types get `|`. Returns false for big-endian or unsupported dtypes.
static bool normalizeDescr(std::string &descr, std::string &error) {
  if (descr.size() < 3) {
    error = "unsupported dtype '" + descr + "'";
    return false;
  }
  char order = descr[0], kind = descr[1];
  unsigned size = 0;
  if (StringRef(descr).drop_front(2).getAsInteger(10, size)) {
    error = "unsupported dtype '" + descr + "'";
    return false;
  }
  bool okKind = (kind == 'f' && (size == 2 || size == 4 || size == 8)) ||
                ((kind == 'i' || kind == 'u') &&
                 (size == 1 || size == 2 || size == 4 || size == 8)) ||
                (kind == 'b' && size == 1);
  if (!okKind ||
      (order != '<' && order != '>' && order != '|' && order != '=')) {
    error = "unsupported dtype '" + descr +
            "' (supported: <f2 <f4 <f8 |b1 |i1 |u1 <i2 <u2 <i4 <u4 <i8 <u8)";
    return false;
  }
  if (order == '>' && size != 1) {
    error = "big-endian dtype '" + descr + "' is not supported";
    return false;
  }
  descr = std::string(1, size == 1 ? '|' : '<') + kind + std::to_string(size);
  return true;
}

unsigned mlir::quire::getNpyItemSize(StringRef descr) {
  unsigned size = 0;
  if (descr.size() < 3 || descr.drop_front(2).getAsInteger(10, size))
    return 0;
  return size;
}

LogicalResult mlir::quire::parseNpy(StringRef bytes, NpyArray &array,
                                    std::string &error) {
  array = NpyArray();
  if (!bytes.starts_with(StringRef(kMagic, 6))) {
    error = "not a .npy file (bad magic)";
    return failure();
  }
  if (bytes.size() < 10) {
    error = "truncated .npy header";
    return failure();
  }
  unsigned major = static_cast<unsigned char>(bytes[6]);
  size_t headerLen, headerStart;
  auto byteAt = [&](size_t i) -> size_t {
    return static_cast<unsigned char>(bytes[i]);
  };
  if (major == 1) {
    headerLen = byteAt(8) | (byteAt(9) << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) {
      error = "truncated .npy header";
      return failure();
    }
    headerLen =
        byteAt(8) | (byteAt(9) << 8) | (byteAt(10) << 16) | (byteAt(11) << 24);
    headerStart = 12;
  } else {
    error = "unsupported .npy version " + std::to_string(major) + "." +
            std::to_string(static_cast<unsigned char>(bytes[7]));
    return failure();
  }
  if (bytes.size() < headerStart + headerLen) {
    error = "truncated .npy header";
    return failure();
  }
  bool fortranOrder = false;
  HeaderParser parser(bytes.substr(headerStart, headerLen));
  std::string why;
  if (failed(parser.parse(array, fortranOrder, why))) {
    error = "malformed .npy header: " + why;
    return failure();
  }
  if (fortranOrder) {
    error = "fortran_order arrays are not supported; save a C-order array "
            "(numpy.ascontiguousarray)";
    return failure();
  }
  if (!normalizeDescr(array.descr, error))
    return failure();
  uint64_t count = 1;
  for (int64_t dim : array.shape) {
    if (dim != 0 && count > (uint64_t(1) << 48) / static_cast<uint64_t>(dim)) {
      error = "array is too large";
      return failure();
    }
    count *= static_cast<uint64_t>(dim);
  }
  uint64_t dataBytes = count * getNpyItemSize(array.descr);
  StringRef data = bytes.drop_front(headerStart + headerLen);
  if (data.size() != dataBytes) {
    error = "data has " + std::to_string(data.size()) +
            " bytes but the header "
            "promises " +
            std::to_string(dataBytes);
    return failure();
  }
  array.data.assign(data.begin(), data.end());
  return success();
}

LogicalResult mlir::quire::readNpy(StringRef path, NpyArray &array,
                                   std::string &error) {
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false);
  if (!file) {
    error = "cannot read '" + path.str() + "': " + file.getError().message();
    return failure();
  }
  std::string why;
  if (failed(parseNpy((*file)->getBuffer(), array, why))) {
    error = "'" + path.str() + "': " + why;
    return failure();
  }
  return success();
}

LogicalResult mlir::quire::writeNpy(StringRef path, const NpyArray &array,
                                    std::string &error) {
  std::string header =
      "{'descr': '" + array.descr + "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < array.shape.size(); ++i)
    header += (i ? ", " : "") + std::to_string(array.shape[i]);
  if (array.shape.size() == 1)
    header += ","; // (3,) is a tuple, (3) is not
  header += "), }";
  // Pad with spaces to a multiple of 64 bytes including the 10-byte prefix
  // and the closing newline, as NumPy does.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  if (header.size() > 0xffff) {
    error = "header of '" + path.str() + "' is too long";
    return failure();
  }

  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec) {
    error = "cannot write '" + path.str() + "': " + ec.message();
    return failure();
  }
  os.write(kMagic, 6);
  os << '\x01' << '\x00';
  os << static_cast<char>(header.size() & 0xff)
     << static_cast<char>(header.size() >> 8);
  os << header;
  os.write(array.data.data(), array.data.size());
  os.close();
  if (os.has_error()) {
    error = "cannot write '" + path.str() + "': " + os.error().message();
    os.clear_error();
    return failure();
  }
  return success();
}

std::string mlir::quire::getNpyDescr(Type type) {
  if (type.isF16())
    return "<f2";
  if (type.isF32())
    return "<f4";
  if (type.isF64())
    return "<f8";
  if (type.isBF16())
    return "<u2";
  if (isa<Float8E4M3FNType, Float8E5M2Type>(type))
    return "|u1"; // the bit patterns, as ml_dtypes' arrays view as uint8
  if (type.isSignlessInteger(1))
    return "|b1";
  if (type.isSignlessInteger(8))
    return "|i1";
  if (type.isSignlessInteger(16))
    return "<i2";
  if (type.isSignlessInteger(32))
    return "<i4";
  if (type.isSignlessInteger(64))
    return "<i8";
  return "";
}

bool mlir::quire::isNpyDescrCompatible(StringRef descr, Type type) {
  if (descr.size() < 3)
    return false;
  char kind = descr[1];
  unsigned size = getNpyItemSize(descr);
  if (type.isBF16())
    return (kind == 'u' || kind == 'i') && size == 2;
  if (isa<Float8E4M3FNType, Float8E5M2Type>(type))
    return (kind == 'u' || kind == 'i') && size == 1;
  if (isa<FloatType>(type))
    return kind == 'f' && size * 8 == type.getIntOrFloatBitWidth();
  if (type.isSignlessInteger(1))
    return kind == 'b';
  if (type.isSignlessInteger(8) || type.isSignlessInteger(16) ||
      type.isSignlessInteger(32) || type.isSignlessInteger(64))
    return (kind == 'i' || kind == 'u') &&
           size * 8 == type.getIntOrFloatBitWidth();
  return false;
}
