//===- status.h - building amp_status_t values ------------------*- C++ -*-===//

#ifndef AMP_RUNTIME_SRC_STATUS_H
#define AMP_RUNTIME_SRC_STATUS_H

#include "amp_runtime/runtime.h"

#include <cstring>

namespace amprt {

/// The integer a C caller put in an enum: C allows any int there, C++ only
/// the enumerators' range, so the bytes are read rather than the enum.
template <typename Enum> int rawEnum(const Enum &value) {
  static_assert(sizeof(Enum) == sizeof(int), "C enums are int-sized");
  int raw;
  std::memcpy(&raw, &value, sizeof raw);
  return raw;
}

/// A status with `code` and a printf-style message, made at file:line.
amp_status_t makeStatus(amp_status_code_t code, const char *file, int line,
                        const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/// `status` with `prefix` put before its message ("epoch 1, step 3: ..."),
/// its code and origin kept; null stays null.
amp_status_t prefixStatus(amp_status_t status, const char *prefix);

} // namespace amprt

#define AMP_STATUS(code, ...)                                                  \
  ::amprt::makeStatus((code), __FILE__, __LINE__, __VA_ARGS__)

/// Returns from the enclosing function when `expr` fails.
#define AMP_RETURN_IF_ERROR(expr)                                              \
  do {                                                                         \
    amp_status_t amp_status_ = (expr);                                         \
    if (amp_status_)                                                           \
      return amp_status_;                                                      \
  } while (0)

#endif // AMP_RUNTIME_SRC_STATUS_H
