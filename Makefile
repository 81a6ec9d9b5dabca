# amp-mlir: the two commands of the README, and the steps they share.
#   make demo   install what is missing, build, run the main job
#   make test   install what is missing, build, run every test
# Both may be run on a fresh Debian 12 machine (as root, or with sudo).

BUILD_DIR ?= build
BUILD_TYPE ?= Release
CMAKE_FLAGS ?=

.PHONY: all deps configure build test test-sanitize demo docs format clean

all: build

deps:
	@./scripts/install-deps.sh

configure: deps
	@if [ ! -f $(BUILD_DIR)/build.ninja ]; then \
	  cmake -G Ninja -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_FLAGS); \
	fi

build: configure
	@cmake --build $(BUILD_DIR)

# The tests also need PyTorch, in the project's own virtual environment
# (.venv; scripts/install-torch.sh), for the importer's tests. It installs
# (mostly a download) while the build compiles; its output is shown if it
# fails.
test: deps
	@./scripts/install-torch.sh > .venv-install.log 2>&1 & torch=$$!; \
	  $(MAKE) --no-print-directory build || { wait $$torch; exit 1; }; \
	  wait $$torch || { cat .venv-install.log; exit 1; }; \
	  cat .venv-install.log
	@cmake --build $(BUILD_DIR) --target check-amp

demo: build
	@./scripts/demo.sh $(BUILD_DIR)

# Every test (GoogleTest and lit) on a build with AddressSanitizer and
# UndefinedBehaviorSanitizer; any report fails it. Debian's LLVM and MLIR
# libraries are built without ASan, but LLVM's headers poison the slabs of
# BumpPtrAllocator in code compiled with it; an allocator function the
# linker then takes from our objects poisons memory the uninstrumented
# library writes to. -U__SANITIZE_ADDRESS__ compiles the headers in their
# non-ASan form, like the libraries (the instrumentation stays). -g1's line
# tables and function names are all the sanitizers' stack traces need
# (full -g makes the build several times larger and slower). The runtime's
# CUDA backend is left out: nvcc's device code is not instrumented, its
# cuDNN frontend is one large header library, and `make test` builds both
# and runs their tests.
SANITIZE_DIR ?= build-sanitize
SANITIZE_OPT_FLAGS = -O2 -g1 -DNDEBUG
SANITIZE_FLAGS = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
SANITIZE_COMPILE_FLAGS = $(SANITIZE_FLAGS) -U__SANITIZE_ADDRESS__
test-sanitize: deps
	@if [ ! -f $(SANITIZE_DIR)/build.ninja ]; then \
	  cmake -G Ninja -S . -B $(SANITIZE_DIR) -DCMAKE_BUILD_TYPE=Release \
	    -DCMAKE_C_FLAGS_RELEASE="$(SANITIZE_OPT_FLAGS)" -DCMAKE_CXX_FLAGS_RELEASE="$(SANITIZE_OPT_FLAGS)" \
	    -DCMAKE_C_FLAGS="$(SANITIZE_COMPILE_FLAGS)" -DCMAKE_CXX_FLAGS="$(SANITIZE_COMPILE_FLAGS)" \
	    -DCMAKE_EXE_LINKER_FLAGS="$(SANITIZE_FLAGS)" \
	    -DCMAKE_SHARED_LINKER_FLAGS="$(SANITIZE_FLAGS)" -DAMP_RUNTIME_CUDA=OFF; \
	fi
	@ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  cmake --build $(SANITIZE_DIR) --target check-amp

# Formats the C and C++ sources (LLVM style); `make test` checks them.
format: deps
	@./scripts/format.py

clean:
	rm -rf $(BUILD_DIR) $(SANITIZE_DIR) build-fuzz out
