//===- status.cpp - amp_status_t ------------------------------------------===//

#include "status.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

struct amp_status_s {
  amp_status_code_t code;
  const char *file;
  int line;
  char message[512];
};

namespace {
// Returned when even the status cannot be allocated.
amp_status_s outOfMemoryStatus{AMP_OUT_OF_MEMORY, __FILE__, __LINE__,
                               "out of memory (making a status)"};
} // namespace

amp_status_t amprt::makeStatus(amp_status_code_t code, const char *file,
                               int line, const char *format, ...) {
  auto *status = new (std::nothrow) amp_status_s;
  if (!status)
    return &outOfMemoryStatus;
  status->code = code;
  status->file = file;
  status->line = line;
  va_list args;
  va_start(args, format);
  std::vsnprintf(status->message, sizeof(status->message), format, args);
  va_end(args);
  return status;
}

amp_status_t amprt::prefixStatus(amp_status_t status, const char *prefix) {
  if (!status || status == &outOfMemoryStatus || !prefix || !*prefix)
    return status;
  char message[sizeof status->message];
  std::snprintf(message, sizeof message, "%s%s", prefix, status->message);
  std::memcpy(status->message, message, sizeof message);
  return status;
}

extern "C" {

amp_status_t amp_status_make(amp_status_code_t code, const char *file, int line,
                             const char *message) {
  return amprt::makeStatus(code, file ? file : "?", line, "%s",
                           message ? message : "");
}

amp_status_code_t amp_status_code(amp_status_t status) {
  return status ? status->code : AMP_OK;
}

const char *amp_status_message(amp_status_t status) {
  return status ? status->message : "ok";
}

const char *amp_status_file(amp_status_t status) {
  return status ? status->file : "";
}

int amp_status_line(amp_status_t status) { return status ? status->line : 0; }

const char *amp_status_code_name(amp_status_code_t code) {
  switch (code) {
  case AMP_OK:
    return "AMP_OK";
  case AMP_INVALID_ARGUMENT:
    return "AMP_INVALID_ARGUMENT";
  case AMP_OUT_OF_RANGE:
    return "AMP_OUT_OF_RANGE";
  case AMP_OUT_OF_MEMORY:
    return "AMP_OUT_OF_MEMORY";
  case AMP_UNAVAILABLE:
    return "AMP_UNAVAILABLE";
  case AMP_DEVICE_ERROR:
    return "AMP_DEVICE_ERROR";
  case AMP_IO_ERROR:
    return "AMP_IO_ERROR";
  case AMP_DATA_LOSS:
    return "AMP_DATA_LOSS";
  case AMP_DEADLINE_EXCEEDED:
    return "AMP_DEADLINE_EXCEEDED";
  }
  return "AMP_UNKNOWN";
}

void amp_status_free(amp_status_t status) {
  if (status && status != &outOfMemoryStatus)
    delete status;
}

} // extern "C"
