# neardup top-level Makefile. `make demo` and `make test` work on a fresh Debian 12 machine as root.
# `make demo` installs only what the demo runs and builds only the `neardup` binary
# (scripts/demo: output in $(DEMO_OUT)/demo.log behind a progress line); `make test`
# installs everything and builds everything, the tests with it.
BUILD ?= build
DEMO_OUT ?= $(BUILD)/demo
JOBS ?= $(shell nproc)
# Unity builds (CMake batches of 8 sources per compiler run): about 30% off
# a cold build on 2 cores. For quick incremental builds while editing, configure
# your own tree with -DCMAKE_UNITY_BUILD=OFF (HACKING.md).
UNITY ?= -DCMAKE_UNITY_BUILD=ON
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Release -DNEARDUP_WERROR=ON $(UNITY)

FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60
ASAN_BUILD ?= build-asan
TSAN_BUILD ?= build-tsan
TIDY_BUILD ?= build-tidy
# Sanitizer builds: clang (as the fuzzers need), -O1 with line tables, no benchmarks.
SAN_CMAKE = CC=clang-14 CXX=clang++-14 cmake -S . -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_FLAGS_DEBUG="-O1" -DNEARDUP_BENCH=OFF -DNEARDUP_TESTS=ON $(UNITY)
TSAN_TARGETS = engine_test features_test index_test distributed_test server_api_test neardup_cli

.PHONY: all setup build demo test test-asan test-tsan bench clean format check-format tidy fuzz

all: build

setup:
	@scripts/setup

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS) -DNEARDUP_TESTS=ON

# The whole build, tests included (GoogleTest required). A tree the demo
# configured (tests only when found) is configured again for them.
build: setup
	@grep -qx 'NEARDUP_TESTS:STRING=ON' $(BUILD)/CMakeCache.txt 2>/dev/null || \
	  cmake -S . -B $(BUILD) $(CMAKE_FLAGS) -DNEARDUP_TESTS=ON
	cmake --build $(BUILD) -j $(JOBS)

demo:
	@JOBS=$(JOBS) CMAKE_FLAGS="$(CMAKE_FLAGS)" scripts/demo $(BUILD) $(DEMO_OUT)

test: build
	@scripts/check-format
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -LE slow

# Unit and end-to-end tests under ASan+UBSan. The same build holds the
# fuzzers (coverage instrumentation), so `make fuzz FUZZ_BUILD=$(ASAN_BUILD)`
# reuses it. The quality slice (label quality) measures F1, not memory
# safety, and takes over a minute under ASan: it runs in `make test` only.
test-asan: setup
	$(SAN_CMAKE) -B $(ASAN_BUILD) -DNEARDUP_ASAN=ON -DNEARDUP_FUZZ=ON >/dev/null
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ctest --output-on-failure -j $(JOBS) -LE 'slow|quality'

# The concurrency tests (label tsan) under ThreadSanitizer.
test-tsan: setup
	$(SAN_CMAKE) -B $(TSAN_BUILD) -DNEARDUP_TSAN=ON -DNEARDUP_STRESS_SECONDS=10 >/dev/null
	cmake --build $(TSAN_BUILD) -j $(JOBS) --target $(TSAN_TARGETS)
	cd $(TSAN_BUILD) && ctest --output-on-failure -L tsan

# libFuzzer targets of fuzz/ (clang, ASan+UBSan), each for FUZZ_SECONDS,
# JOBS at a time; see docs/reliability.md.
fuzz: setup
	@scripts/fuzz $(FUZZ_SECONDS) $(FUZZ_BUILD) $(JOBS)

bench: build
	@echo "benchmarks are in $(BUILD)/bench/; see docs/benchmarks.md for the commands"

format:
	clang-format -i $$(git ls-files '*.cc' '*.h')

check-format:
	@scripts/check-format

# The checks of .clang-tidy over the library and apps; not their unit tests
# (*_test.cc, a third of the files), which the sanitizer builds run instead.
# A unity build's compile_commands.json names only its batches, so clang-tidy
# reads those of a tree configured (not built) without them.
tidy: setup
	cmake -S . -B $(TIDY_BUILD) $(CMAKE_FLAGS) -DCMAKE_UNITY_BUILD=OFF -DNEARDUP_TESTS=ON >/dev/null
	run-clang-tidy -quiet -p $(TIDY_BUILD) -j $(JOBS) '$(CURDIR)/(src|apps)/.*(?<!_test)[.]cc$$'

clean:
	rm -rf $(BUILD)
