/*===- state_file.h - atomic, checked saves of a training state ----*- C -*-===*
 *
 * Everything a compiled step owns (parameters, optimizer moments, scaler
 * state) is saved as named byte ranges in one file:
 *
 *   "AMPSTATE" | u32 version (1) | u32 count |
 *   count x (u32 name length | name | u64 size | size bytes) |
 *   u32 CRC-32 (IEEE) of everything before it
 *
 * little-endian. A save writes a temporary file beside the target, flushes
 * it to disk and renames it over the target, so a crash at any point leaves
 * either the old file or the new one. A load reads a regular file only (a
 * device or a pipe is refused at once) and checks the whole file
 * (magic, version, names, sizes, checksum) before it writes any
 * destination: a bad file changes nothing.
 *
 *===----------------------------------------------------------------------===*/

#ifndef AMP_RUNTIME_STATE_FILE_H
#define AMP_RUNTIME_STATE_FILE_H

#include "amp_runtime/runtime.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One named range of host memory. */
typedef struct amp_state_entry_s {
  const char *name; /* non-empty, unique within a file */
  void *data;
  size_t size;
} amp_state_entry_t;

/* Writes `entries` to `path` atomically. AMP_IO_ERROR (with the system's
 * reason) when the directory cannot be written; the old file is kept.
 * Through a symbolic link the file it names is replaced (the link still
 * names the state); a path that exists and is no regular file (a device,
 * a directory, a pipe) is refused with AMP_INVALID_ARGUMENT. Temporaries
 * that earlier saves of the same path left when they were killed (their
 * process gone) are removed. */
amp_status_t amp_state_save(const char *path, size_t count,
                            const amp_state_entry_t *entries);
/* Checks that a save to `path` can be written, as amp_state_save would
 * write it, without writing it: for a long run, before its first step.
 * The errors are amp_state_save's. */
amp_status_t amp_state_check_path(const char *path);

/* Fills `entries` from `path`, which must hold the same names and sizes in
 * the same order: AMP_INVALID_ARGUMENT names the first difference,
 * AMP_DATA_LOSS reports a truncated or corrupted file, AMP_IO_ERROR an
 * unreadable one. On any error no destination has been written. */
amp_status_t amp_state_load(const char *path, size_t count,
                            const amp_state_entry_t *entries);

/* The CRC-32 (IEEE 802.3, as zlib's crc32) of `size` bytes, continuing from
 * `crc` (0 to start). */
uint32_t amp_crc32(uint32_t crc, const void *data, size_t size);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* AMP_RUNTIME_STATE_FILE_H */
