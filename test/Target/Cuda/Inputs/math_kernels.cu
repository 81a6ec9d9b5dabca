// One kernel per software math function the generated steps call (and one
// that only copies, for the loads, stores and indexing every kernel has),
// for ptx-math.test to count their instructions.
#include "amp_runtime/scalar_math.h"

extern "C" __global__ void copyOnly(const float *x, float *y) {
  y[threadIdx.x] = x[threadIdx.x];
}
extern "C" __global__ void mathExp(const float *x, float *y) {
  y[threadIdx.x] = amprt::math::exp(x[threadIdx.x]);
}
extern "C" __global__ void mathTanh(const float *x, float *y) {
  y[threadIdx.x] = amprt::math::tanh(x[threadIdx.x]);
}
extern "C" __global__ void mathLog(const float *x, float *y) {
  y[threadIdx.x] = amprt::math::log(x[threadIdx.x]);
}
extern "C" __global__ void mathErf(const float *x, float *y) {
  y[threadIdx.x] = amprt::math::erf(x[threadIdx.x]);
}
