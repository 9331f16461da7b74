# simtgpu top-level Makefile. The README's two commands:
#   make demo   set up everything, boot the guest, run the CUDA examples
#   make test   build and run every test, then print one summary line
# CMake does the userspace build underneath; kmd/ and QEMU have their own.

BUILD_TYPE ?= Release
BUILD_DIR ?= build
SAN_BUILD_DIR ?= build-asan
JOBS ?= $(shell nproc)
PREFIX ?= /usr/local

CMAKE_FLAGS = -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE)

.PHONY: all deps build test clean install kmd demo qemu fuzz

all: build

deps:
	@scripts/install-deps.sh

$(BUILD_DIR)/build.ninja: | deps
	cmake -S . -B $(BUILD_DIR) $(CMAKE_FLAGS)

build: deps $(BUILD_DIR)/build.ninja
	cmake --build $(BUILD_DIR) -j $(JOBS)

$(SAN_BUILD_DIR)/build.ninja: | deps
	cmake -S . -B $(SAN_BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Debug \
		-DSIMTGPU_SANITIZE=ON -DSIMTGPU_SIM_ONLY=ON -DSIMTGPU_UMD_LIBS=ON \
		-DSIMTGPU_RELEASE_BUILD_DIR=$(abspath $(BUILD_DIR))

test: build kmd $(SAN_BUILD_DIR)/build.ninja
	cmake --build $(SAN_BUILD_DIR) -j $(JOBS)
	scripts/run-tests.sh $(BUILD_DIR) $(SAN_BUILD_DIR)

# The libFuzzer targets (tests/fuzz, built with clang-16 into BUILD_DIR/fuzz)
# for as long as one likes: FUZZ_SECONDS each (default 600), over their
# corpora; new inputs stay in a scratch folder (docs/testing.md, "Fuzzing").
FUZZ_SECONDS ?= 600
FUZZ_TARGETS ?= device_image sim_config command_processor page_walk uapi
fuzz: build
	@for t in $(FUZZ_TARGETS); do \
		tests/fuzz/run-fuzzer.sh $(BUILD_DIR)/fuzz/fuzz_$$t tests/fuzz/$$t/corpus $(FUZZ_SECONDS) || exit 1; \
	done

# The kernel driver, against Debian's headers for the guest kernel.
kmd: | deps
	$(MAKE) -C kmd

# Everything, then one boot that runs the examples on the kernel driver and
# prints a summary (scripts/demo.sh does every step, timed).
demo:
	scripts/demo.sh --build $(BUILD_DIR) --jobs $(JOBS)

# A shell in the guest: driver loaded, the image's copy of $(BUILD_DIR)/bin
# (tools, examples) on PATH, the repository shared at its host path, so
# programs built on the host run as they are.
qemu: build kmd
	scripts/run-qemu.sh --build $(BUILD_DIR)

# Tools, libraries, headers and example sources under PREFIX.
install: build
	cmake --install $(BUILD_DIR) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD_DIR) $(SAN_BUILD_DIR)
