#!/usr/bin/env python3
"""Prints the operators ("name.overload", one a line, sorted, unique) that the
given ExecuTorch programs call, for the selective build
(-DPTERUN_SELECT_PROGRAMS). Reads the flatbuffer directly: it needs no
package, only Python 3.

    python3 cmake/pte_operators.py a.pte [b.pte ...]
"""
import struct
import sys


class Reader:
    def __init__(self, path):
        with open(path, "rb") as f:
            self.b = f.read()
        if len(self.b) < 8 or self.b[4:6] != b"ET":
            raise ValueError(f"{path}: not an ExecuTorch program (no ET file identifier)")

    def u32(self, p):
        if p < 0 or p + 4 > len(self.b):
            raise ValueError("offset out of range")
        return struct.unpack_from("<I", self.b, p)[0]

    def field(self, table, i):
        """Position of field i of the table at `table`, or None when absent."""
        vt = table - struct.unpack_from("<i", self.b, table)[0]
        vsize = struct.unpack_from("<H", self.b, vt)[0]
        if 4 + 2 * i + 2 > vsize:
            return None
        off = struct.unpack_from("<H", self.b, vt + 4 + 2 * i)[0]
        return table + off if off else None

    def ref(self, p):
        return p + self.u32(p)

    def vector(self, table, i):
        p = self.field(table, i)
        if p is None:
            return []
        v = self.ref(p)
        return [self.ref(v + 4 + 4 * k) for k in range(self.u32(v))]

    def string(self, table, i):
        p = self.field(table, i)
        if p is None:
            return ""
        s = self.ref(p)
        return self.b[s + 4:s + 4 + self.u32(s)].decode("utf-8")


def operators(path):
    r = Reader(path)
    program = r.ref(0)
    names = set()
    for plan in r.vector(program, 1):  # Program.execution_plan
        for op in r.vector(plan, 6):  # ExecutionPlan.operators
            name, overload = r.string(op, 0), r.string(op, 1)
            names.add(f"{name}.{overload}" if overload else name)
    return names


def main(argv):
    if not argv:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    names = set()
    for path in argv:
        try:
            names |= operators(path)
        except (OSError, ValueError, struct.error, UnicodeDecodeError) as e:
            print(f"pte_operators: {path}: {e}", file=sys.stderr)
            return 1
    for n in sorted(names):
        print(n)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
