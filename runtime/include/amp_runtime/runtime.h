/*===- runtime.h - the amp-mlir runtime C API --------------------*- C -*-===*
 *
 * Devices, streams, buffers and arenas for compiled training steps, in the
 * style of IREE's runtime: every call that can fail returns an amp_status_t
 * (NULL on success) carrying a code, a message and the file and line that
 * made it; objects come from *_create and go to *_destroy; results are
 * returned through out_* parameters; nothing throws.
 *
 * Two device kinds: AMP_DEVICE_HOST (plain memory, loops) and
 * AMP_DEVICE_CUDA (device memory and streams). A CUDA device on a machine
 * without a GPU, or in a build without the CUDA toolkit, is AMP_UNAVAILABLE.
 *
 *===----------------------------------------------------------------------===*/

#ifndef AMP_RUNTIME_RUNTIME_H
#define AMP_RUNTIME_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*===-- Status ------------------------------------------------------------===*/

typedef enum amp_status_code_e {
  AMP_OK = 0,
  AMP_INVALID_ARGUMENT = 1, /* a null pointer, a bad size, a mismatch */
  AMP_OUT_OF_RANGE = 2,     /* an offset or size beyond a buffer or arena */
  AMP_OUT_OF_MEMORY = 3,
  AMP_UNAVAILABLE = 4,  /* no such device in this build or machine */
  AMP_DEVICE_ERROR = 5, /* a CUDA call failed */
  AMP_IO_ERROR = 6,
  AMP_DATA_LOSS = 7,         /* a corrupt file (bad checksum) */
  AMP_DEADLINE_EXCEEDED = 8, /* a collective's peers did not answer in time */
} amp_status_code_t;

/* NULL means success; otherwise the caller owns it (amp_status_free). */
typedef struct amp_status_s *amp_status_t;

amp_status_code_t amp_status_code(amp_status_t status);
/* "ok" for NULL. Valid until amp_status_free. */
const char *amp_status_message(amp_status_t status);
const char *amp_status_file(amp_status_t status);
int amp_status_line(amp_status_t status);
/* "AMP_INVALID_ARGUMENT", ... */
const char *amp_status_code_name(amp_status_code_t code);
void amp_status_free(amp_status_t status);

/* A status with `code` and `message` (copied, truncated to the status's
 * buffer), made at file:line; for code outside the runtime, such as the
 * kernels of a compiled step. */
amp_status_t amp_status_make(amp_status_code_t code, const char *file, int line,
                             const char *message);

/*===-- Devices and streams -----------------------------------------------===*/

typedef enum amp_device_kind_e {
  AMP_DEVICE_HOST = 0,
  AMP_DEVICE_CUDA = 1,
} amp_device_kind_t;

typedef struct amp_device_s amp_device_t;
typedef struct amp_stream_s amp_stream_t;

/* `ordinal` selects the GPU for AMP_DEVICE_CUDA; it must be 0 for the host. */
amp_status_t amp_device_create(amp_device_kind_t kind, int ordinal,
                               amp_device_t **out_device);
void amp_device_destroy(amp_device_t *device);
amp_device_kind_t amp_device_kind(const amp_device_t *device);
/* Whether this build and machine can create a device of `kind`. */
int amp_device_available(amp_device_kind_t kind);

/* Work on a stream runs in order; on the host, immediately. */
amp_status_t amp_stream_create(amp_device_t *device, amp_stream_t **out_stream);
void amp_stream_destroy(amp_stream_t *stream);
/* Waits until everything queued on the stream has finished. */
amp_status_t amp_stream_synchronize(amp_stream_t *stream);

/* The device kind of `stream`, and its native handle: the cudaStream_t of a
 * CUDA stream (for launching kernels on it), NULL on the host. */
amp_device_kind_t amp_stream_device_kind(const amp_stream_t *stream);
void *amp_stream_native_handle(amp_stream_t *stream);

/* Device memory the stream owns for the kernels queued on it, which use it
 * one after another (cuBLASLt's workspace, a long reduction's partial
 * results); its size in *out_bytes. NULL and 0 on the host. */
void *amp_stream_workspace(amp_stream_t *stream, size_t *out_bytes);

/* Counters the stream owns for the kernels queued on it (amprt::
 * kReduceCounters of them, launch_grid.h), zero whenever no kernel runs:
 * a kernel that counts on one (a reduction's slices finishing) returns it
 * to zero before it ends. NULL on the host. */
unsigned *amp_stream_counters(amp_stream_t *stream);

/* How many library calls (cuDNN's) this process has run on the runtime's
 * own kernels instead, because the library declined the call or its plan
 * wanted more workspace than the step planned: 0 in a healthy step, which
 * the compiler plans for. Each such call is also said once on stderr. */
int64_t amp_library_fallbacks(void);

/*===-- Graphs -------------------------------------------------------------===*
 *
 * A CUDA stream can record the work queued on it into a graph, replayed
 * later with one launch. Nothing a training step calls reads back to the
 * host, so a whole step can be captured. Host streams run work at once and
 * cannot capture: AMP_UNAVAILABLE.
 */
typedef struct amp_graph_s amp_graph_t;

/* From here until amp_graph_capture_end, work queued on `stream` is recorded,
 * not run. */
amp_status_t amp_graph_capture_begin(amp_stream_t *stream);
amp_status_t amp_graph_capture_end(amp_stream_t *stream,
                                   amp_graph_t **out_graph);
/* Runs the recorded work on `stream` (of the same device). */
amp_status_t amp_graph_launch(amp_graph_t *graph, amp_stream_t *stream);
void amp_graph_destroy(amp_graph_t *graph);

/*===-- Buffers -----------------------------------------------------------===*/

typedef struct amp_buffer_s amp_buffer_t;

/* Device memory of `size` bytes, aligned to 256 bytes, zero-filled. */
amp_status_t amp_buffer_allocate(amp_device_t *device, size_t size,
                                 amp_buffer_t **out_buffer);
void amp_buffer_release(amp_buffer_t *buffer);
size_t amp_buffer_size(const amp_buffer_t *buffer);
/* The device address (a host pointer on the host device). */
void *amp_buffer_data(amp_buffer_t *buffer);

/* Copies between host memory and a buffer range, queued on `stream`; the
 * host side must stay valid until the stream is synchronised. */
amp_status_t amp_buffer_write(amp_buffer_t *buffer, size_t offset,
                              const void *source, size_t size,
                              amp_stream_t *stream);
amp_status_t amp_buffer_read(amp_buffer_t *buffer, size_t offset,
                             void *destination, size_t size,
                             amp_stream_t *stream);
/* Copies between two buffers of the same device. */
amp_status_t amp_buffer_copy(amp_buffer_t *source, size_t source_offset,
                             amp_buffer_t *destination,
                             size_t destination_offset, size_t size,
                             amp_stream_t *stream);

/*===-- Arenas ------------------------------------------------------------===*/

/* One buffer from which a step's temporaries are carved at offsets a
 * buffer plan fixed ahead of time, or bumped at run time. */
typedef struct amp_arena_s amp_arena_t;

amp_status_t amp_arena_create(amp_device_t *device, size_t capacity,
                              amp_arena_t **out_arena);
void amp_arena_destroy(amp_arena_t *arena);
/* The next `size` bytes aligned to `alignment` (a power of two). */
amp_status_t amp_arena_allocate(amp_arena_t *arena, size_t size,
                                size_t alignment, void **out_pointer);
/* Forgets every allocation; the memory is reused. */
void amp_arena_reset(amp_arena_t *arena);
size_t amp_arena_used(const amp_arena_t *arena);
size_t amp_arena_capacity(const amp_arena_t *arena);
/* The address of `offset` inside the arena (planned placement). */
amp_status_t amp_arena_at(amp_arena_t *arena, size_t offset, size_t size,
                          void **out_pointer);

/*===-- Host threads ------------------------------------------------------===*/

/* The work of one thread: body(context, begin, end) handles the indices
 * [begin, end). */
typedef void (*amp_range_body_t)(void *context, int64_t begin, int64_t end);

/* Runs `body` over [0, count), cut into contiguous ranges of at least
 * `grain` indices (the whole range when it is shorter), at most four per
 * thread of the host's pool, which the threads take as they come free,
 * and returns when every range has run. The pool has AMP_NUM_THREADS
 * threads (1 to 256), else one per core this process may run on; the
 * caller is one of them. The ranges must not
 * write what another range reads or writes: then the result does not
 * depend on the number of threads. A call made from inside a body, or
 * while another thread's call runs, runs its ranges on the calling
 * thread. `body` must not throw or unwind. A malformed AMP_NUM_THREADS is
 * AMP_INVALID_ARGUMENT. */
amp_status_t amp_host_parallel_for(int64_t count, int64_t grain,
                                   amp_range_body_t body, void *context);

/* The number of threads amp_host_parallel_for runs on (1 when
 * AMP_NUM_THREADS is malformed). */
int amp_host_thread_count(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* AMP_RUNTIME_RUNTIME_H */
