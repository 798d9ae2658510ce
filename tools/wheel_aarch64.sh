#!/usr/bin/env bash
# Cross-builds the aarch64 wheel with the host's Python and pip
# (scikit-build-core through cmake/toolchain-aarch64.cmake), against the
# sysroot of tools/sysroot_arm64.sh: Debian's arm64 XNNPACK, pthreadpool and
# cpuinfo (vendored renamed by cmake/vendor.cmake, as on x86_64) and arm64
# CPython headers for the extension modules. No aarch64 Python is needed:
# the extensions are named and the wheel tagged for aarch64 explicitly.
#   tools/wheel_aarch64.sh <build folder> <wheelhouse>
# ($PYTHON: the host Python with scikit-build-core; default python3.)
set -euo pipefail
build=${1:?usage: tools/wheel_aarch64.sh <build folder> <wheelhouse>}
wheelhouse=${2:?usage: tools/wheel_aarch64.sh <build folder> <wheelhouse>}
py=${PYTHON:-python3}
src=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$build" "$wheelhouse"
build=$(cd "$build" && pwd)
wheelhouse=$(cd "$wheelhouse" && pwd)
sysroot="$build/sysroot"
"$src/tools/sysroot_arm64.sh" "$sysroot"
# The host's Python version, whose arm64 headers the sysroot holds.
pyver=$("$py" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
inc="$sysroot/usr/include/python$pyver"
[ -f "$inc/Python.h" ] || { echo "wheel_aarch64: no arm64 headers for Python $pyver in $inc" >&2; exit 1; }
raw="$build/wheel-raw"
rm -rf "$raw"
rm -f "$wheelhouse"/pterun-*.whl
# _PYTHON_HOST_PLATFORM is how scikit-build-core (and sysconfig) learn the
# target platform when cross-compiling: it sets the wheel's platform tag.
# FindPython, cross-compiling, reads the extensions' headers and suffix from
# the arm64 python3.X-config it finds under Python3_ROOT_DIR (a relocatable
# script: it answers for the sysroot it sits in). The include folder is
# given too: scikit-build-core passes the host Python's otherwise.
# SETUPTOOLS_EXT_SUFFIX names the extension modules for aarch64's CPython
# (python/CMakeLists.txt takes it when FindPython, cross-compiling, has none).
_PYTHON_HOST_PLATFORM=linux-aarch64 \
SETUPTOOLS_EXT_SUFFIX=$("$inc/../../bin/aarch64-linux-gnu-python$pyver-config" --extension-suffix) \
SKBUILD_BUILD_DIR="$build/wheel-build" \
SKBUILD_CMAKE_ARGS="-DCMAKE_TOOLCHAIN_FILE=$src/cmake/toolchain-aarch64.cmake;-DPTERUN_AARCH64_SYSROOT=$sysroot;-DPython3_ROOT_DIR=$sysroot/usr;-DPython3_INCLUDE_DIR=$inc" \
  "$py" -m pip wheel -q --no-deps --no-build-isolation -w "$raw" "$src"
# auditwheel reads aarch64 ELFs on any host: as on x86_64 (tests/packaging's
# fixture) it gives the manylinux tag the libc symbol versions allow; it
# grafts nothing, since the third-party copies are already inside.
"$py" -m auditwheel repair -w "$wheelhouse" "$raw"/pterun-*.whl >/dev/null
ls "$wheelhouse"/pterun-*.whl
