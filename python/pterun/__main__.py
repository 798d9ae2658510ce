"""python -m pterun: where the C SDK lives, and the pterun CLI.

    python -m pterun --cmake-dir         # pass to CMake as -Dpterun_DIR=...
    python -m pterun --prefix            # or add to CMAKE_PREFIX_PATH
    python -m pterun --pkg-config-path   # add to PKG_CONFIG_PATH
    python -m pterun --include-dir
    python -m pterun --lib-dir
    python -m pterun run model.pte ...   # the bundled pterun CLI
"""
import os
import sys

_PKG = os.path.dirname(os.path.abspath(__file__))

_DIRS = {
    "--prefix": _PKG,
    "--cmake-dir": os.path.join(_PKG, "lib", "cmake", "pterun"),
    "--cmakedir": os.path.join(_PKG, "lib", "cmake", "pterun"),
    "--pkg-config-path": os.path.join(_PKG, "lib", "pkgconfig"),
    "--include-dir": os.path.join(_PKG, "include"),
    "--lib-dir": os.path.join(_PKG, "lib"),
    "--bin-dir": os.path.join(_PKG, "bin"),
}


def cli_main() -> None:
    """Run the bundled pterun CLI with this process's arguments."""
    exe = os.path.join(_PKG, "bin", "pterun")
    if not os.path.exists(exe):
        sys.exit(f"pterun: the CLI is missing from this installation ({exe})")
    os.execv(exe, [exe] + sys.argv[1:])


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in _DIRS:
        print(_DIRS[argv[0]])
        return 0
    if argv and argv[0] in ("-h", "--help") or not argv:
        print(__doc__.strip())
        return 0
    if argv[0] == "--version":
        from . import __version__
        print(__version__)
        return 0
    exe = os.path.join(_PKG, "bin", "pterun")
    os.execv(exe, [exe] + argv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
