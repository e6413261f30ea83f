#!/usr/bin/env python3
"""libdalshim.so exports its C ABI and nothing else.

Usage: exports_check.py LIBRARY HEADER...

The dynamic symbol table (nm -D --defined-only) must hold exactly the
functions the headers declare with DALSHIM_API / DALMON_API:
  - a defined symbol outside dalshim_* / dalmon_* (a C++ symbol, a helper that
    lost its `static`, a template instance without hidden visibility) is a
    leak of the library's internals into every process that loads it, and a
    name that can clash with the host's;
  - a declared function that is not exported is an ABI break for every FFI;
  - an exported dalshim_*/dalmon_* function that no header declares is ABI
    nobody can call safely.
Exit 0 when all three hold, 1 with the offending names otherwise, 2 on usage
or tool errors.
"""
import re
import subprocess
import sys

PREFIXES = ("dalshim_", "dalmon_")
# A declaration: the export macro, a return type, the name, "(".
DECLARATION = re.compile(r"\b(?:DALSHIM_API|DALMON_API)\b[^;(]*?\b([A-Za-z_][A-Za-z0-9_]*)\s*\(", re.S)
# Symbols the toolchain itself puts in every shared object's dynamic table.
TOOLCHAIN = {"_init", "_fini", "__bss_start", "_edata", "_end"}


def declared(headers):
    names = set()
    for path in headers:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        # Comments may mention the macro (e.g. "marks ... DALSHIM_API"): drop them.
        text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
        text = re.sub(r"//[^\n]*", " ", text)
        # ... and the macros' own definitions.
        text = re.sub(r"^\s*#\s*define[^\n]*", " ", text, flags=re.M)
        names.update(m.group(1) for m in DECLARATION.finditer(text))
    return names


def exported(library):
    try:
        out = subprocess.run(["nm", "-D", "--defined-only", library], check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"exports_check: nm failed on {library}: {e}", file=sys.stderr)
        sys.exit(2)
    names = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 3:
            names.add(parts[2].split("@")[0])
    return names - TOOLCHAIN


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    library, headers = argv[1], argv[2:]
    want = declared(headers)
    have = exported(library)
    if not want:
        print(f"exports_check: no DALSHIM_API/DALMON_API declaration found in {' '.join(headers)}", file=sys.stderr)
        return 2
    foreign = sorted(n for n in have if not n.startswith(PREFIXES))
    missing = sorted(want - have)
    undeclared = sorted(n for n in have - want if n.startswith(PREFIXES))
    for title, names in (
        ("exported but not dalshim_*/dalmon_* (internals leaking out)", foreign),
        ("declared in the headers but not exported", missing),
        ("exported but declared in no header", undeclared),
    ):
        if names:
            print(f"{library}: {len(names)} {title}:")
            for n in names:
                print(f"  {n}")
    if foreign or missing or undeclared:
        return 1
    print(f"{library}: exports exactly the {len(want)} functions of {', '.join(h.split('/')[-1] for h in headers)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
