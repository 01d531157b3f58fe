# The two commands of the README:
#   make run    installs the dependencies, builds, and opens Spyglass on a bundled example
#   make test   installs the dependencies, builds, runs every test (GUI tests under Xvfb), builds the .deb, runs the
#               whole suite again built with ASan+UBSan (`make test-asan`, build-asan/), then runs the fuzzers for a
#               bounded time. See the Hardening section of README.md for what each costs.
BUILD ?= build
JOBS  ?= 2
XVFB  := xvfb-run -a -s "-screen 0 1600x1000x24"
EXAMPLE ?= resources/examples/qft4.qasm

.PHONY: deps configure build build-app run test package fuzz test-asan clean bench-peers

deps:
	bash scripts/install-deps.sh

configure: deps
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo

build: configure
	cmake --build $(BUILD) -j$(JOBS)

# Only what the app needs (the two programs and their libraries), not the tests and benchmarks.
build-app: configure
	cmake --build $(BUILD) -j$(JOBS) --target spyglass spyglass-cli

run: build-app
	$(BUILD)/app/spyglass $(EXAMPLE)

test: build
	$(XVFB) ctest --test-dir $(BUILD) --output-on-failure --no-tests=error -j$(JOBS)
	$(MAKE) --no-print-directory package
	$(MAKE) --no-print-directory test-asan
	$(MAKE) --no-print-directory fuzz

# libFuzzer targets (clang) for the parsers of untrusted files, FUZZ_SECONDS each (default 60); fails on any finding.
fuzz: deps
	JOBS=$(JOBS) bash scripts/run-fuzzers.sh

# The whole CTest suite built with AddressSanitizer + UndefinedBehaviorSanitizer (build-asan/, the asan preset).
# In `make test` it runs before the fuzzers: its result is the same on every run, the fuzzers' is not, so a failure
# here is reported first and is reproducible with `make test-asan` alone.
test-asan: deps
	JOBS=$(JOBS) bash scripts/run-asan-tests.sh

package:
	cd $(BUILD) && cpack -G DEB
	bash scripts/check-package.sh $(BUILD)

# The quantum simulator side by side with qsim, qulacs and QuEST (bench/peers, BENCHMARKS.md): installs the headers
# qulacs needs (only here, never in `make test`), builds the peers into $(BUILD)/peers and runs every circuit in
# interleaved rounds (report in $(BUILD)/peers/report.md). The cache variables PEERS_ROUNDS and PEERS_*_SOURCE
# of bench/peers/CMakeLists.txt set the rounds and where the sources come from.
bench-peers: build
	bash scripts/install-deps.sh --peers
	cmake --build $(BUILD) --target bench-peers

clean:
	rm -rf $(BUILD) build-asan build-fuzz
