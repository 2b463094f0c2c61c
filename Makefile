# neardup top-level Makefile. `make demo` and `make test` work on a fresh Debian 12 machine as root.
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Release -DNEARDUP_WERROR=ON

.PHONY: all setup build demo test bench clean format check-format tidy

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
	@scripts/check-format
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -LE slow

bench: build
	@echo "benchmarks are in $(BUILD)/bench/; see docs/benchmarks.md for the commands"

format:
	clang-format -i $$(git ls-files '*.cc' '*.h')

check-format:
	@scripts/check-format

# The checks of .clang-tidy over the library and apps (needs a configured build).
tidy: $(BUILD)/CMakeCache.txt
	run-clang-tidy -quiet -p $(BUILD) -j $(JOBS) '$(CURDIR)/(src|apps)/.*[.]cc$$'

clean:
	rm -rf $(BUILD)
