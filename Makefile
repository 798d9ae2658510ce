# The two commands of the README:
#   make demo   build everything, run a bundled example model
#   make test   build everything, run every test (what CI runs)
# Other targets are the steps of `make test`.

# Every tool comes from the environment tools/deps.sh sets up, never from the
# caller's PATH: tools/toolchain.py resolves them (pip's tools in .venv,
# Debian's compilers in /usr/bin), checks their versions and links them into
# $(TOOLBIN), and every recipe and every process it starts (auditwheel
# looking for patchelf, scikit-build-core for cmake) runs with $(TOOLBIN)
# first on a PATH of system folders only.
VENV    := $(CURDIR)/.venv
TOOLBIN := $(VENV)/toolchain
PY      := $(VENV)/bin/python
CMAKE   := $(TOOLBIN)/cmake
CTEST   := $(TOOLBIN)/ctest
export PATH := $(TOOLBIN):/usr/sbin:/usr/bin:/sbin:/bin
unexport VIRTUAL_ENV PYTHONPATH PYTHONHOME CMAKE_PREFIX_PATH PKG_CONFIG_PATH CC CXX
CONFIGURE = $(CMAKE) -G Ninja -DCMAKE_MAKE_PROGRAM=$(TOOLBIN)/ninja
BUILD   ?= build
JOBS    ?= $(shell nproc)
FUZZ_SECONDS ?= 30
# 0: a new random seed per run (exploring); fixed for the gate (fuzz/run_fuzzers.sh)
FUZZ_SEED ?= 1
EXAMPLE ?= zoo/models/mobilenet_v2_tiny

.PHONY: demo test deps pydeps toolchain build test-format test-c test-conformance test-clang test-sanitize fuzz \
        test-static test-python pyinstall test-et test-et-full test-aarch64 wheel wheel-aarch64 clean bench bench-quick realdeps realsize test-realsize

deps:
	tools/deps.sh
	$(PY) tools/toolchain.py --quiet

pydeps: deps
	tools/deps.sh --python

# Prints what was resolved (make test starts with it).
toolchain: pydeps
	$(PY) tools/toolchain.py --test

build: deps
	CC=$(TOOLBIN)/gcc $(CONFIGURE) -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release
	$(CMAKE) --build $(BUILD) -j $(JOBS)

demo: build
	@echo "== $(EXAMPLE) (portable kernels)"
	$(BUILD)/cli/pterun run $(EXAMPLE)/model.pte --input $(EXAMPLE)/inputs/0.npy --iterations 50 --warmup 5
	@if [ -f zoo/xnnpack/$(notdir $(EXAMPLE))/model.pte ] && $(BUILD)/cli/pterun backends | grep -q XnnpackBackend; then \
	  echo "== $(EXAMPLE) delegated to XNNPACK"; \
	  $(BUILD)/cli/pterun run zoo/xnnpack/$(notdir $(EXAMPLE))/model.pte --input $(EXAMPLE)/inputs/0.npy --iterations 50 --warmup 5; fi

# C sources as .clang-format says (tools/format.sh rewrites them).
test-format: deps
	tools/format.sh --check

test-c: build
	$(CTEST) --test-dir $(BUILD) --output-on-failure -j $(JOBS)

# The second run takes the portable kernels alone: the reference must pass
# every case by itself, not only where the optimized kernels decline.
test-conformance: build pydeps
	$(PY) tools/conformance.py --pterun $(BUILD)/cli/pterun zoo
	$(PY) tools/conformance.py --no-executorch -q --arg=--disable --arg=kernels_optimized --pterun $(BUILD)/cli/pterun zoo

# The real-size benchmark models come from transformers model classes, whose
# pins clash with .venv's (tokenizers): tools/deps_real.sh makes .venv-real
# beside it (it sees .venv's torch and executorch). make test checks one
# reduced-size model (BERT-style, 1 layer, 32 wide) against eager through the
# CLI, both forms, and its ONNX export against ONNX Runtime.
REAL_PY := $(CURDIR)/.venv-real/bin/python
realdeps: pydeps
	tools/deps_real.sh $(VENV) $(CURDIR)/.venv-real

test-realsize: build realdeps
	$(REAL_PY) bench/realsize.py --small --models bert --out $(BUILD)/realsize-ci
	$(PY) tools/conformance.py --no-executorch -q --pterun $(BUILD)/cli/pterun $(BUILD)/realsize-ci

# The five real-size models (large: under $(BUILD)/realsize, never committed).
realsize: realdeps
	$(REAL_PY) bench/realsize.py --out $(BUILD)/realsize

test-clang: deps
	CC=$(TOOLBIN)/clang $(CONFIGURE) -S . -B $(BUILD)-clang -DCMAKE_BUILD_TYPE=Release
	$(CMAKE) --build $(BUILD)-clang -j $(JOBS)
	$(CTEST) --test-dir $(BUILD)-clang --output-on-failure -j $(JOBS) -E test_hostile

test-sanitize: deps pydeps
	CC=$(TOOLBIN)/clang $(CONFIGURE) -S . -B $(BUILD)-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DPTERUN_SANITIZE=address,undefined -DPTERUN_BUILD_FUZZERS=ON
	$(CMAKE) --build $(BUILD)-asan -j $(JOBS)
	$(CTEST) --test-dir $(BUILD)-asan --output-on-failure -j $(JOBS)
	$(PY) tools/conformance.py --no-executorch -q --pterun $(BUILD)-asan/cli/pterun zoo

fuzz: test-sanitize
	PYTHON=$(PY) FUZZ_SEED=$(FUZZ_SEED) fuzz/run_fuzzers.sh $(BUILD)-asan $(FUZZ_SECONDS)

test-static: deps
	CC=$(TOOLBIN)/gcc $(CONFIGURE) -S . -B $(BUILD)-static -DCMAKE_BUILD_TYPE=Release -DPTERUN_BUILD_SHARED=OFF
	$(CMAKE) --build $(BUILD)-static -j $(JOBS)
	$(CTEST) --test-dir $(BUILD)-static --output-on-failure -j $(JOBS) -E test_hostile
	rm -rf $(BUILD)-static/prefix $(BUILD)-static/consumer
	$(CMAKE) --install $(BUILD)-static --prefix $(BUILD)-static/prefix
	CC=$(TOOLBIN)/gcc $(CONFIGURE) -S tests/static -B $(BUILD)-static/consumer -Dpterun_DIR=$(CURDIR)/$(BUILD)-static/prefix/lib/cmake/pterun
	$(CMAKE) --build $(BUILD)-static/consumer
	@if readelf -d $(BUILD)-static/consumer/static_consumer | grep -q libpterun; then \
	  echo "static consumer links a shared pterun" >&2; exit 1; fi
	$(BUILD)-static/consumer/static_consumer zoo/models/mlp

# Everything cross-built for aarch64 (cmake/toolchain-aarch64.cmake) against
# Debian's arm64 XNNPACK, pthreadpool and cpuinfo unpacked into the build's
# sysroot, run under qemu-aarch64: ctest, the node cases and the zoo through
# the CLI (tests/aarch64/pterun), optimized and portable kernels alone; then
# the aarch64 wheel (wheel-aarch64) and its checks (tests/aarch64/test_wheel64.py).
# Not run here: test_xnnpack_torch_* (they load the host's x86_64 torch),
# conformance_xnnpack and conformance_xnnpack_quant_* (host Python starting
# the aarch64 CLI directly; their cases run below through the emulated CLI
# instead), and as in test-clang
# and test-static test_hostile and test_hostile_args: architecture-
# independent argument checks, 14 s and 17 s natively but over 4 minutes of
# CPU each under qemu (they pass there; test-c and test-sanitize run them).
# selective_build configures a nested build of its own for the host and runs
# its CLI directly (not cross-built, not emulated; test-c runs it).
AARCH64_SKIP := test_xnnpack_torch_first|test_xnnpack_torch_last|conformance_xnnpack|conformance_xnnpack_quant_.*|test_hostile|test_hostile_args|selective_build
test-aarch64: deps pydeps
	tools/sysroot_arm64.sh $(BUILD)-aarch64/sysroot
	$(CONFIGURE) -S . -B $(BUILD)-aarch64 -DCMAKE_BUILD_TYPE=Release \
	  -DCMAKE_TOOLCHAIN_FILE=$(CURDIR)/cmake/toolchain-aarch64.cmake
	$(CMAKE) --build $(BUILD)-aarch64 -j $(JOBS)
	$(CTEST) --test-dir $(BUILD)-aarch64 --output-on-failure -j $(JOBS) -E '^($(AARCH64_SKIP))$$'
	PTERUN_AARCH64_BUILD=$(CURDIR)/$(BUILD)-aarch64 $(PY) tools/conformance.py --no-executorch -q \
	  --pterun tests/aarch64/pterun zoo tests/backend_xnnpack/cases/nodes tests/backend_xnnpack/cases/quant
	PTERUN_AARCH64_BUILD=$(CURDIR)/$(BUILD)-aarch64 $(PY) tools/conformance.py --no-executorch -q \
	  --arg=--disable --arg=kernels_optimized --pterun tests/aarch64/pterun zoo
	PYTHON=$(PY) tools/wheel_aarch64.sh $(BUILD)-aarch64 $(BUILD)-aarch64/wheelhouse
	PTERUN_AARCH64_BUILD=$(CURDIR)/$(BUILD)-aarch64 \
	  PTERUN_AARCH64_WHEEL=$$(ls $(CURDIR)/$(BUILD)-aarch64/wheelhouse/pterun-*.whl) \
	  $(PY) -m pytest -q -p no:cacheprovider tests/aarch64/test_wheel64.py

# The aarch64 wheel, cross-built (tools/wheel_aarch64.sh) against the same
# sysroot, with arm64 CPython headers: $(BUILD)-aarch64/wheelhouse.
wheel-aarch64: deps pydeps
	PYTHON=$(PY) tools/wheel_aarch64.sh $(BUILD)-aarch64 $(BUILD)-aarch64/wheelhouse

# pterun's Python package, built from this tree, installed into .venv (once
# per make run: test-python, test-et and bench use it).
pyinstall: build pydeps
	$(PY) -m pip install -q --no-build-isolation .

# The benchmark's quick run uses the installed bindings; the packaging tests
# build and install their own wheel elsewhere.
test-python: pyinstall
	$(PY) -m pytest -q tests/python tests/packaging

# ExecuTorch's own test files (from its installed wheel) on ExecuTorch's
# runtime and on pterun's: pterun must pass every test ExecuTorch passes,
# except what tests/et/exceptions.txt lists (README: "ExecuTorch's own
# tests"). test-et runs every file with XNNPACK's operator tests sampled;
# test-et-full runs every test (over an hour on 2 cores).
test-et: pyinstall
	$(PY) tests/et/run_et_tests.py

test-et-full: pyinstall
	$(PY) tests/et/run_et_tests.py --full

test: toolchain test-format test-c test-conformance test-realsize test-clang test-static test-sanitize fuzz test-python \
      test-et test-aarch64
	@echo "make test: all passed"

# The benchmark (bench/README.md): every zoo model through pterun, ExecuTorch
# and eager PyTorch; writes bench/results.md, .json and .png. pterun's Python
# bindings are installed into $(PY) first so they match this build.
BENCH_ARGS ?=
bench: pyinstall
	$(PY) bench/run.py --build $(BUILD) $(BENCH_ARGS)

# What CI runs (through tests/python/test_bench.py): mlp once per runtime.
bench-quick: build pydeps
	$(PY) bench/run.py --build $(BUILD) --quick

clean:
	rm -rf $(BUILD) $(BUILD)-clang $(BUILD)-asan $(BUILD)-static $(BUILD)-aarch64
