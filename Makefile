# amp-mlir: the two commands of the README, and the steps they share.
#   make demo   install what is missing, build, run the main job
#   make test   install what is missing, build, run every test
# Both may be run on a fresh Debian 12 machine (as root, or with sudo).

BUILD_DIR ?= build
BUILD_TYPE ?= Release
CMAKE_FLAGS ?=

.PHONY: all deps configure build test test-sanitize demo zoo docs format clean

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

# The model zoo (bench/zoo.py): 26 models of torchvision, transformers and
# torch.nn imported, trained 10 steps in f32, f16 and bf16 against PyTorch,
# handed back and evaluated; the table goes to bench/results/zoo-DATE.md.
# 8 to 16 minutes on two cores. `make test` runs its fast subset
# (test/Python/zoo.test).
zoo: build
	@./scripts/install-torch.sh
	@AMP_MLIR_BIN=$(BUILD_DIR)/bin .venv/bin/python bench/zoo.py \
	  --write bench/results/zoo-$$(date +%Y-%m-%d).md

# Every test (GoogleTest and lit) on a build with AddressSanitizer and
# UndefinedBehaviorSanitizer; any report fails it. Built with Debian's
# clang 19: LLVM's own sanitizers, and the instrumented build in 40% of
# GCC's time (AmpOps.cpp at -O1: 87 s of CPU, GCC 154 s, GCC at -O2 219 s;
# clang's UBSan also checks the enum loads GCC's let through). Debian's
# LLVM and MLIR libraries are built without ASan, so LLVM's headers are
# compiled in that form (cmake/llvm-asan-shim.h, included first). -g1's
# line tables and function
# names are all the sanitizers' stack traces need (full -g makes the build
# several times larger and slower). The runtime and the interpreter, where
# the tests' training loops run, at -O1, as the sanitizers' documentation
# advises; the rest at -O0, which takes a third to a half of -O1's time
# (AmpOps.cpp: 28 s of CPU against 82 s) and runs the tests' small graphs
# about as fast. The runtime's CUDA backend is left out: nvcc's device code is
# not instrumented, its cuDNN frontend is one large header library, and
# `make test` builds both and runs their tests.
SANITIZE_DIR ?= build-sanitize
SANITIZE_CC ?= clang-19
SANITIZE_CXX ?= clang++-19
SANITIZE_OPT_FLAGS = -O0 -g1 -DNDEBUG
SANITIZE_FLAGS = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
# One runtime, shared, for the programs and the libraries alike (Python
# preloads the same one): the libraries are linked with -z defs.
SANITIZE_LINK_FLAGS = $(SANITIZE_FLAGS) -shared-libasan \
  -Wl,-rpath,$$(dirname $$($(SANITIZE_CXX) -print-file-name=libclang_rt.asan-x86_64.so))
test-sanitize:
	@./scripts/install-deps.sh sanitize
	@if [ ! -f $(SANITIZE_DIR)/build.ninja ]; then \
	  cmake -G Ninja -S . -B $(SANITIZE_DIR) -DCMAKE_BUILD_TYPE=Release \
	    -DCMAKE_C_COMPILER=$(SANITIZE_CC) -DCMAKE_CXX_COMPILER=$(SANITIZE_CXX) \
	    -DCMAKE_C_FLAGS_RELEASE="$(SANITIZE_OPT_FLAGS)" -DCMAKE_CXX_FLAGS_RELEASE="$(SANITIZE_OPT_FLAGS)" \
	    -DCMAKE_C_FLAGS="$(SANITIZE_FLAGS)" \
	    -DCMAKE_CXX_FLAGS="$(SANITIZE_FLAGS) -include $(CURDIR)/cmake/llvm-asan-shim.h" \
	    -DCMAKE_EXE_LINKER_FLAGS="$(SANITIZE_LINK_FLAGS)" \
	    -DCMAKE_SHARED_LINKER_FLAGS="$(SANITIZE_LINK_FLAGS)" -DAMP_RUNTIME_CUDA=OFF \
	    -DAMP_LOOP_COMPILE_OPTIONS=-O1; \
	fi
	@ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  cmake --build $(SANITIZE_DIR) --target check-amp

# Formats the C and C++ sources (LLVM style); `make test` checks them.
format: deps
	@./scripts/format.py

clean:
	rm -rf $(BUILD_DIR) $(SANITIZE_DIR) build-fuzz out
