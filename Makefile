# neardup top-level Makefile. `make demo` and `make test` work on a fresh Debian 12 machine as root.
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Release

FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60

.PHONY: all setup build demo test bench clean format fuzz

all: build

setup:
	@scripts/setup

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)

build: setup $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	@scripts/demo $(BUILD)

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -LE slow

# libFuzzer targets of fuzz/ (clang, ASan+UBSan), each for FUZZ_SECONDS,
# JOBS at a time; see docs/reliability.md.
fuzz: setup
	@scripts/fuzz $(FUZZ_SECONDS) $(FUZZ_BUILD) $(JOBS)

bench: build
	@echo "benchmarks are in $(BUILD)/bench/; see docs/benchmarks.md for the commands"

format:
	clang-format -i $$(git ls-files '*.cc' '*.h')

clean:
	rm -rf $(BUILD)
