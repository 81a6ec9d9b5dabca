# amp-mlir: the two commands of the README, and the steps they share.
#   make demo   install what is missing, build, run the main job
#   make test   install what is missing, build, run every test
# Both may be run on a fresh Debian 12 machine (as root, or with sudo).

BUILD_DIR ?= build
BUILD_TYPE ?= Release
CMAKE_FLAGS ?=

.PHONY: all deps configure build test demo docs clean

all: build

deps:
	@./scripts/install-deps.sh

configure: deps
	@if [ ! -f $(BUILD_DIR)/build.ninja ]; then \
	  cmake -G Ninja -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_FLAGS); \
	fi

build: configure
	@cmake --build $(BUILD_DIR)

test: build
	@cmake --build $(BUILD_DIR) --target check-amp

demo: build
	@./scripts/demo.sh $(BUILD_DIR)

clean:
	rm -rf $(BUILD_DIR) out
