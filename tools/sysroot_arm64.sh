#!/usr/bin/env bash
# Unpacks Debian's arm64 XNNPACK, pthreadpool, cpuinfo and the C runtime they
# need into a folder (the cross-build's sysroot), without touching the host's
# dpkg: an arm64 -dev package installed through multiarch replaces the amd64
# one (they cannot be installed side by side), which breaks the host build.
# A private apt state (its own sources, lists and cache, arm64 only) resolves
# and downloads the packages; dpkg-deb -x unpacks each into the folder.
#   tools/sysroot_arm64.sh <folder>     (idempotent: done once per folder)
set -euo pipefail
dest=${1:?usage: tools/sysroot_arm64.sh <folder>}
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
# What the build and the tests open: headers and libraries of the three, and
# the loader and libc that qemu-aarch64 -L runs the programs with.
pkgs=(libxnnpack-dev libxnnpack0 libpthreadpool-dev libpthreadpool0 libcpuinfo-dev libcpuinfo0 libc6 libgcc-s1)
# Headers alone, without their dependencies: CPython's, for the aarch64
# wheel's extension modules (they link no libpython, so nothing else of
# Python is needed; its closure would pull in the whole standard library).
headers_only=(libpython3.11-dev)
stamp="$dest/.pterun-sysroot"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "${pkgs[*]} ${headers_only[*]}" ]; then
  exit 0
fi

apt_dir="$dest.apt"
mkdir -p "$apt_dir/lists/partial" "$apt_dir/archives/partial" "$apt_dir/etc" "$apt_dir/debs"
# The host's own sources (the same Debian release and snapshot), arm64 only.
cp /etc/apt/sources.list.d/*.sources "$apt_dir/etc/" 2>/dev/null || true
[ -f /etc/apt/sources.list ] && cp /etc/apt/sources.list "$apt_dir/etc/sources.list"
touch "$apt_dir/etc/sources.list"
: >"$apt_dir/status"
apt_opts=(-o "APT::Architecture=arm64" -o "APT::Architectures::=arm64"
          -o "Dir::State=$apt_dir" -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::State::status=$apt_dir/status"
          -o "Dir::Cache=$apt_dir" -o "Dir::Cache::Archives=$apt_dir/archives"
          -o "Dir::Etc::SourceList=$apt_dir/etc/sources.list" -o "Dir::Etc::SourceParts=$apt_dir/etc"
          -o "Debug::NoLocking=1")
# As root apt downloads as _apt, which cannot write into this folder.
[ "$(id -u)" -eq 0 ] && apt_opts+=(-o "APT::Sandbox::User=root")
echo "sysroot: arm64 package lists"
apt-get "${apt_opts[@]}" -qq update
# The closure of their dependencies (Depends and Pre-Depends only).
mapfile -t all < <(apt-cache "${apt_opts[@]}" depends --recurse --no-recommends --no-suggests --no-conflicts \
                     --no-breaks --no-replaces --no-enhances "${pkgs[@]}" | grep -v '^ ' | grep -v '^<' | sort -u)
echo "sysroot: ${#all[@]} packages: ${all[*]}"
(cd "$apt_dir/debs" && apt-get "${apt_opts[@]}" -qq download "${all[@]}" "${headers_only[@]}")
for deb in "$apt_dir"/debs/*.deb; do
  dpkg-deb -x "$deb" "$dest"
done
# Absolute symlinks in the packages (e.g. lib -> usr/lib) must stay inside
# the folder: rewrite the ones that point at the host's root.
while IFS= read -r -d '' link; do
  target=$(readlink "$link")
  case "$target" in
    /*) ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" "$dest$target")" "$link" ;;
  esac
done < <(find "$dest" -type l -print0)
# Debian's pyconfig.h picks the architecture's copy through
# <aarch64-linux-gnu/python3.11/pyconfig.h>, which only an include path at
# the sysroot's usr/include would find: this sysroot is arm64 alone, so the
# arm64 copy replaces the switch (the build passes only the Python folder).
py_inc="$dest/usr/include/python3.11"
cp "$dest/usr/include/aarch64-linux-gnu/python3.11/pyconfig.h" "$py_inc/pyconfig.h"
echo "${pkgs[*]} ${headers_only[*]}" >"$stamp"
echo "sysroot: $dest"
