#!/usr/bin/env python3
"""libdalkit_tracer.so exports its hooks and its C ABI, and nothing else.

Usage: exports_check.py LIBRARY HEADER VERSION_SCRIPT

The dynamic symbol table (nm -D --defined-only) must hold exactly the
functions dalkit_tracer.h declares with DALKIT_TRACER_API plus the wrapped
libc functions named in the version script's global section.  Anything else
exported could bind to code in the host process (the tracer is preloaded, so
it comes first in every lookup); anything missing is a hook that does not
interpose or an ABI function the monitor cannot find.  Exit 0 when both
hold, 1 with the offending names, 2 on usage or tool errors.
"""
import re
import subprocess
import sys

DECLARATION = re.compile(r"\bDALKIT_TRACER_API\b[^;(]*?\b([A-Za-z_][A-Za-z0-9_]*)\s*\(", re.S)
TOOLCHAIN = {"_init", "_fini", "__bss_start", "_edata", "_end"}


def declared(header, script):
    with open(header, encoding="utf-8") as f:
        text = f.read()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"^\s*#\s*define[^\n]*", " ", text, flags=re.M)
    names = {m.group(1) for m in DECLARATION.finditer(text)}
    with open(script, encoding="utf-8") as f:
        text = re.sub(r"/\*.*?\*/", " ", f.read(), flags=re.S)
    glob = re.search(r"global:(.*?)local:", text, re.S)
    if not glob:
        return names
    names.update(n for n in re.findall(r"([A-Za-z_][A-Za-z0-9_*]*)\s*;", glob.group(1)) if "*" not in n)
    return names


def exported(library):
    try:
        out = subprocess.run(["nm", "-D", "--defined-only", library], check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"exports_check: nm failed on {library}: {e}", file=sys.stderr)
        sys.exit(2)
    return {line.split()[2].split("@")[0] for line in out.splitlines() if len(line.split()) >= 3} - TOOLCHAIN


def main(argv):
    if len(argv) != 4:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    want = declared(argv[2], argv[3])
    have = exported(argv[1])
    if not any(n.startswith("dalkit_tracer_") for n in want) or "malloc" not in want:
        print("exports_check: found no declarations or no hooks", file=sys.stderr)
        return 2
    extra, missing = sorted(have - want), sorted(want - have)
    for title, names in (("exported but neither a hook nor declared", extra), ("declared but not exported", missing)):
        if names:
            print(f"{argv[1]}: {len(names)} {title}: {' '.join(names)}")
    return 1 if extra or missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
