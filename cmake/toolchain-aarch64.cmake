# Cross-build for aarch64 with Debian's gcc-aarch64-linux-gnu (its own C
# library in /usr/aarch64-linux-gnu), against Debian's arm64 XNNPACK,
# pthreadpool and cpuinfo unpacked into a sysroot by tools/sysroot_arm64.sh
# (default <build>/sysroot; -DPTERUN_AARCH64_SYSROOT=<folder> for another).
# Programs run under qemu-aarch64 from that sysroot: ctest through
# CMAKE_CROSSCOMPILING_EMULATOR, everything else through
# tests/aarch64/run.sh. `make test-aarch64` does all of it.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

if(NOT PTERUN_AARCH64_SYSROOT)
  if(DEFINED ENV{PTERUN_AARCH64_SYSROOT})
    set(PTERUN_AARCH64_SYSROOT "$ENV{PTERUN_AARCH64_SYSROOT}")
  else()
    set(PTERUN_AARCH64_SYSROOT "${CMAKE_BINARY_DIR}/sysroot")
  endif()
endif()
# try_compile projects read this file again from another binary folder.
set(ENV{PTERUN_AARCH64_SYSROOT} "${PTERUN_AARCH64_SYSROOT}")

# Headers and libraries from the sysroot (and the cross compiler's own
# folder); programs (python, cmake) from the host.
set(CMAKE_FIND_ROOT_PATH "${PTERUN_AARCH64_SYSROOT}" /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# Linking XNNPACK (PTERUN_DLOPEN_THIRD_PARTY=OFF) finds its dependencies here.
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-Wl,-rpath-link,${PTERUN_AARCH64_SYSROOT}/usr/lib/aarch64-linux-gnu")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-Wl,-rpath-link,${PTERUN_AARCH64_SYSROOT}/usr/lib/aarch64-linux-gnu")

# The binary tools of the tests that read the libraries (symbols, sizes).
set(PTERUN_NM aarch64-linux-gnu-nm CACHE FILEPATH "nm for aarch64 objects")
set(PTERUN_SIZE aarch64-linux-gnu-size CACHE FILEPATH "size for aarch64 objects")
set(PTERUN_SIZE_TOOL aarch64-linux-gnu-size CACHE FILEPATH "size for aarch64 objects")

# The loader, libc and the three libraries opened at run time by soname all
# come from the sysroot (qemu's -L prefixes every path the program opens).
find_program(PTERUN_QEMU_AARCH64 qemu-aarch64 REQUIRED)
set(CMAKE_CROSSCOMPILING_EMULATOR "${PTERUN_QEMU_AARCH64};-L;${PTERUN_AARCH64_SYSROOT}")
