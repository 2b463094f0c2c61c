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
# The tests' own code at -O1 (the library keeps -O2): CMakeLists.txt, NEARDUP_TEST_FLAGS.
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Release -DNEARDUP_WERROR=ON $(UNITY) -DNEARDUP_TEST_FLAGS=-O1

FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60
ASAN_BUILD ?= build-asan
TSAN_BUILD ?= build-tsan
TIDY_BUILD ?= build-tidy
# Sanitizer builds: clang (as the fuzzers need), -O1 with line tables (the
# tests' own code -O0), no benchmarks.
SAN_CMAKE = CC=clang-14 CXX=clang++-14 cmake -S . -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_FLAGS_DEBUG="-O1" -DNEARDUP_BENCH=OFF -DNEARDUP_TESTS=ON $(UNITY) \
  -DNEARDUP_TEST_FLAGS=-O0
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
# reuses it. The quality slice and the jieba agreement (label quality)
# measure F1 and agreement, not memory safety, and the browser test (label
# browser) spends its time in chromium (server_api_test drives the same server
# under ASan): they run in `make test` only.
# Two sweeps run the component code on thousands of small and random graphs
# to check its results: 30 s under ASan (1.3 s each in `make test`, which
# keeps them). The grid and the bit-reversed and shuffled chains (19 s under
# ASan) are left to `make test` as well: the chain in id order, the stars and
# Ranks/ComponentsTest run the same code under ASan. The ranked suites run
# at 1, 2 and 4 ranks (3 ranks run the code of 2 and 4; about 30 s). The
# module walls (label walls) are compile checks whose answer does not depend
# on the build: `make test` runs them.
ASAN_SKIP = ComponentsRoundsTest\.(SmallGraphsWithinTheBound|RandomGraphsMatchUnionFind|Grids|ChainBitReversed|ChainShuffled)|^Ranks/.*/2$$
test-asan: setup
	$(SAN_CMAKE) -B $(ASAN_BUILD) -DNEARDUP_ASAN=ON -DNEARDUP_FUZZ=ON >/dev/null
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ctest --output-on-failure -j $(JOBS) -LE 'slow|quality|browser|walls' \
	  -E '$(ASAN_SKIP)'

# The concurrency tests (label tsan) under ThreadSanitizer.
test-tsan: setup
	$(SAN_CMAKE) -B $(TSAN_BUILD) -DNEARDUP_TSAN=ON -DNEARDUP_STRESS_SECONDS=10 >/dev/null
	cmake --build $(TSAN_BUILD) -j $(JOBS) --target $(TSAN_TARGETS)
	cd $(TSAN_BUILD) && ctest --output-on-failure -j $(JOBS) -L tsan

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
# clang-tidy reads the unity batches of the library and app targets (each
# includes its target's .cc files, which .clang-tidy's HeaderFilterRegex
# covers) and the files kept out of batches: the headers are parsed once a
# batch, not once a file (224 -> 90 s). Its own tree is configured with
# clang, whose flags clang-tidy understands, and holds a copy of .clang-tidy,
# which clang-tidy looks for above each batch.
TIDY_FILES = '$(abspath $(TIDY_BUILD))/CMakeFiles/neardup_[a-z]+[.]dir/Unity/|$(CURDIR)/(src|apps)/.*(?<!_test)[.]cc$$'
tidy: setup
	CC=clang-14 CXX=clang++-14 cmake -S . -B $(TIDY_BUILD) $(CMAKE_FLAGS) -DNEARDUP_TESTS=ON >/dev/null
	cp .clang-tidy $(TIDY_BUILD)/.clang-tidy
	run-clang-tidy -quiet -p $(TIDY_BUILD) -j $(JOBS) $(TIDY_FILES)

clean:
	rm -rf $(BUILD)
