#!/usr/bin/env python3
"""Hold the wheel's ELF files to a glibc baseline (2.28: manylinux_2_28).

Built on a newer glibc (Debian 12 has 2.36), a library binds some functions
to the version that glibc introduced them under: pthread_once@GLIBC_2.34
(libpthread merged into libc), exp@GLIBC_2.29 (a faster libm entry), ...
Such a reference cannot load on an older glibc, although the function exists
there under its older default version. For the functions in BASELINE, whose
baseline default is the same function under the same name (only the library
that holds it or the error-handling wrapper differs), the reference is made
unversioned: the dynamic linker then binds it to the default version of
whatever glibc runs it, searching every loaded library (an unversioned
lookup names no file), and the library the baseline keeps it in is added to
DT_NEEDED so that it is loaded. Any other reference newer than the baseline
is an error: its function does not exist there.

  glibc_baseline.py [--patchelf P] [--max 2.28] PATH...    patch in place
  glibc_baseline.py --check [--max 2.28] PATH...           list, exit 1 if any
(a folder PATH: every ELF file under it)

Vendored third-party libraries go through the same step: Debian's source
packages are the way to rebuild them against an old glibc, and the registry
this project builds from serves their binary packages only.
"""
import argparse
import os
import struct
import subprocess
import sys

# function -> the library glibc 2.28 keeps its default version in
_PTHREAD = ("pthread_create pthread_join pthread_detach pthread_once pthread_key_create pthread_key_delete "
            "pthread_getspecific pthread_setspecific pthread_rwlock_init pthread_rwlock_destroy "
            "pthread_rwlock_rdlock pthread_rwlock_wrlock pthread_rwlock_unlock pthread_mutex_trylock "
            "pthread_mutexattr_init pthread_mutexattr_destroy pthread_mutexattr_settype pthread_attr_setstacksize "
            "pthread_kill pthread_sigmask pthread_setaffinity_np pthread_getaffinity_np sem_init sem_destroy "
            "sem_post sem_wait")
_DL = "dlopen dlsym dlclose dlerror dladdr dlinfo dlvsym"
_M = "exp exp2 log log2 pow hypot"
BASELINE = {**{f: "libpthread.so.0" for f in _PTHREAD.split()},
            **{f: "libdl.so.2" for f in _DL.split()},
            **{f: "libm.so.6" for f in _M.split()},
            # An executable's start: crt1 of glibc 2.34 and later passes no
            # constructor runner, which the 2.34 entry does not need and an
            # older one skips, so only executables without constructors of
            # their own qualify (checked in unversion()).
            "__libc_start_main": "libc.so.6"}
GLIBC_SONAMES = {"libc.so.6", "libm.so.6", "libpthread.so.0", "libdl.so.2", "librt.so.1"}

SHT_DYNSYM, SHT_DYNAMIC = 11, 6
SHT_GNU_VERNEED, SHT_GNU_VERSYM = 0x6FFFFFFE, 0x6FFFFFFF
DT_NULL, DT_NEEDED, DT_VERNEEDNUM = 0, 1, 0x6FFFFFFF
DT_INIT_ARRAYSZ, DT_FINI_ARRAYSZ, DT_PREINIT_ARRAYSZ = 27, 28, 33


class ElfError(Exception):
    pass


def _version(name):
    """GLIBC_2.34 -> (2, 34); None for other version names."""
    if not name.startswith("GLIBC_") or not name[6:7].isdigit():
        return None
    try:
        return tuple(int(p) for p in name[6:].split("."))
    except ValueError:
        return None


class Elf:
    """The parts of a 64-bit little-endian ELF file the version step reads."""

    def __init__(self, path):
        self.path = path
        with open(path, "rb") as f:
            self.data = bytearray(f.read())
        d = self.data
        if d[:4] != b"\x7fELF" or d[4] != 2 or d[5] != 1:
            raise ElfError(f"{path}: not a 64-bit little-endian ELF file")
        shoff, = struct.unpack_from("<Q", d, 0x28)
        shentsize, shnum = struct.unpack_from("<HH", d, 0x3A)
        if shoff == 0 or shentsize != 64 or shoff + shnum * 64 > len(d):
            raise ElfError(f"{path}: no usable section headers")
        self.sections = []
        for i in range(shnum):
            name, typ, _fl, _addr, off, size, link, _info, _al, _es = struct.unpack_from("<IIQQQQIIQQ", d, shoff + 64 * i)
            if typ != 8 and off + size > len(d):  # 8: SHT_NOBITS
                raise ElfError(f"{path}: section {i} runs past the end of the file")
            self.sections.append((typ, off, size, link))
        self.dynsym = self._one(SHT_DYNSYM)
        self.versym = self._one(SHT_GNU_VERSYM)
        self.verneed = self._one(SHT_GNU_VERNEED)
        self.dynamic = self._one(SHT_DYNAMIC)
        self.dynstr = self.sections[self.dynsym[3]] if self.dynsym else None

    def _one(self, typ):
        found = [s for s in self.sections if s[0] == typ]
        return found[0] if found else None

    def string(self, off):
        base, size = self.dynstr[1], self.dynstr[2]
        if off >= size:
            raise ElfError(f"{self.path}: string offset {off} outside .dynstr")
        end = self.data.index(b"\0", base + off)
        return self.data[base + off:end].decode()

    def needs(self):
        """[(file, [(version name, index, hash, flags, name offset)])] from .gnu.version_r."""
        out = []
        if not self.verneed:
            return out
        _t, base, size, _l = self.verneed
        at = base
        for _ in range(1 << 16):
            _ver, cnt, file_off, aux, nxt = struct.unpack_from("<HHIII", self.data, at)
            auxes, a = [], at + aux
            for _ in range(cnt):
                h, flags, other, name_off, anext = struct.unpack_from("<IHHII", self.data, a)
                auxes.append((self.string(name_off), other, h, flags, name_off))
                if not anext:
                    break
                a += anext
            out.append((self.string(file_off), file_off, auxes))
            if not nxt:
                break
            at += nxt
            if at >= base + size:
                raise ElfError(f"{self.path}: .gnu.version_r chain runs past its section")
        return out

    def symbols(self):
        """[(index, name, defined)] of .dynsym."""
        _t, off, size, _l = self.dynsym
        out = []
        for i in range(size // 24):
            name_off, _info, _other, shndx = struct.unpack_from("<IBBH", self.data, off + 24 * i)
            out.append((i, self.string(name_off), shndx != 0))
        return out

    def versym_of(self, i):
        return struct.unpack_from("<H", self.data, self.versym[1] + 2 * i)[0]

    def dynamic_tags(self):
        """{tag: value} of .dynamic (the last one of each tag)."""
        out = {}
        _t, off, size, _l = self.dynamic
        for at in range(off, off + size, 16):
            tag, val = struct.unpack_from("<qQ", self.data, at)
            if tag == DT_NULL:
                break
            out[tag] = val
        return out

    def needed(self):
        out = []
        if self.dynamic:
            _t, off, size, _l = self.dynamic
            for at in range(off, off + size, 16):
                tag, val = struct.unpack_from("<qQ", self.data, at)
                if tag == DT_NULL:
                    break
                if tag == DT_NEEDED:
                    out.append(self.string(val))
        return out

    def too_new(self, baseline):
        """[(symbol index, symbol, version name, soname)] bound to glibc versions after baseline."""
        late = {}
        for file, _fo, auxes in self.needs():
            if file not in GLIBC_SONAMES:
                continue
            for name, other, *_ in auxes:
                v = _version(name)
                if v is not None and v > baseline:
                    late[other] = (name, file)
        if not late or not self.versym:
            return []
        return [(i, sym, *late[self.versym_of(i) & 0x7FFF]) for i, sym, defined in self.symbols()
                if not defined and (self.versym_of(i) & 0x7FFF) in late]


def unversion(path, baseline, patchelf):
    elf = Elf(path)
    late = elf.too_new(baseline)
    if not late:
        return []
    unknown = [f"{sym}@{ver}" for _i, sym, ver, _f in late if sym not in BASELINE]
    if unknown:
        raise ElfError(f"{path}: needs {', '.join(sorted(set(unknown)))}, newer than glibc "
                       f"{'.'.join(map(str, baseline))} and with no older default version known to be the same "
                       f"function (cmake/glibc_baseline.py BASELINE): avoid the call or add it there")
    if any(sym == "__libc_start_main" for _i, sym, _v, _f in late):
        ctors = elf.dynamic_tags()
        if ctors.get(DT_PREINIT_ARRAYSZ, 0) or ctors.get(DT_INIT_ARRAYSZ, 0) > 8 or ctors.get(DT_FINI_ARRAYSZ, 0) > 8:
            raise ElfError(f"{path}: an executable with constructors or destructors of its own, which a glibc "
                           f"before 2.34 would not run from a crt1 built on a newer one")
    add = sorted({BASELINE[sym] for _i, sym, _v, _f in late} - set(elf.needed()))
    if add:
        cmd = [patchelf] + [a for lib in add for a in ("--add-needed", lib)] + [path]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise ElfError(f"{path}: {' '.join(cmd)} failed: {r.stderr.strip()}")
        elf = Elf(path)
        late = elf.too_new(baseline)
    drop = {ver for _i, _s, ver, _f in late}
    for i, _sym, _ver, _f in late:
        struct.pack_into("<H", elf.data, elf.versym[1] + 2 * i, 1)  # 1: VER_NDX_GLOBAL, unversioned
    # The version entries nothing refers to any more go too: the dynamic
    # linker checks every one against the running glibc. The section only
    # shrinks, so it is rewritten in place.
    kept = []
    for file, file_off, auxes in elf.needs():
        rest = [a for a in auxes if not (file in GLIBC_SONAMES and a[0] in drop)]
        if rest:
            kept.append((file_off, rest))
    _t, base, size, _l = elf.verneed
    blob = bytearray()
    for n, (file_off, auxes) in enumerate(kept):
        last = n == len(kept) - 1
        blob += struct.pack("<HHIII", 1, len(auxes), file_off, 16, 0 if last else 16 * (1 + len(auxes)))
        for k, (_name, other, h, flags, name_off) in enumerate(auxes):
            blob += struct.pack("<IHHII", h, flags, other, name_off, 0 if k == len(auxes) - 1 else 16)
    assert len(blob) <= size
    elf.data[base:base + size] = bytes(blob) + bytes(size - len(blob))
    _t, off, dsize, _l = elf.dynamic
    for at in range(off, off + dsize, 16):
        tag, _val = struct.unpack_from("<qQ", elf.data, at)
        if tag == DT_VERNEEDNUM:
            struct.pack_into("<qQ", elf.data, at, tag, len(kept))
        if tag == DT_NULL:
            break
    with open(path, "r+b") as f:
        f.write(elf.data)
    return [f"{sym}@{ver}" for _i, sym, ver, _f in late]


def _elf_files(paths):
    """The paths, a folder standing for every ELF file under it."""
    for p in paths:
        if not os.path.isdir(p):
            yield p
            continue
        for dirpath, _dirs, files in os.walk(p):
            for f in sorted(files):
                full = os.path.join(dirpath, f)
                if os.path.isfile(full) and not os.path.islink(full):
                    with open(full, "rb") as fh:
                        if fh.read(4) == b"\x7fELF":
                            yield full


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--max", default="2.28", help="the glibc baseline (default 2.28)")
    ap.add_argument("--check", action="store_true", help="only list references newer than the baseline")
    ap.add_argument("--patchelf", default="patchelf")
    args = ap.parse_args(argv)
    baseline = tuple(int(p) for p in args.max.split("."))
    status = 0
    for path in _elf_files(args.files):
        try:
            if args.check:
                late = Elf(path).too_new(baseline)
                for _i, sym, ver, file in late:
                    print(f"{path}: {sym}@{ver} ({file})")
                status |= bool(late)
            else:
                done = unversion(path, baseline, args.patchelf)
                if done:
                    print(f"{path}: unversioned {', '.join(done)}")
        except (ElfError, OSError, struct.error, ValueError) as e:
            print(f"glibc_baseline: {e}", file=sys.stderr)
            status = 2
    return status


if __name__ == "__main__":
    sys.exit(main())
