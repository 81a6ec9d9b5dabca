//===- cuda_missing.cpp - the CUDA backend of builds without CUDA ---------===//
//
// Built instead of cuda_backend.cu when the toolkit is absent: a CUDA device
// is then reported unavailable, with the reason.

#include "backend.h"
#include "status.h"

bool amprt::cudaAvailable() { return false; }

amp_status_t amprt::createCudaBackend(int, Backend **) {
  return AMP_STATUS(AMP_UNAVAILABLE,
                    "this runtime was built without the CUDA toolkit");
}
