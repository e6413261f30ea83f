#!/usr/bin/env python3
"""A shared library exports exactly what its headers and version script say.

Usage: exports_check.py LIBRARY VERSION_SCRIPT HEADER...

The dynamic symbol table (nm -D --defined-only) must hold exactly
  - the functions the headers declare with an export macro (any identifier
    ending in _API, e.g. DALSHIM_API, DALMON_API, DALKIT_TRACER_API), and
  - the literal names of the version script's global section (the tracer's
    wrapped libc functions; patterns such as dalshim_* only limit what may
    leave the library, they name nothing that must).
Checked both ways:
  - an export nobody declared (a C++ symbol, a helper that lost its
    `static`, a libstdc++ template instance, which -fvisibility=hidden does
    not hide) leaks the library's internals into every process that loads it
    and can bind to another copy there -- for a preloaded library, to code of
    the host itself;
  - a declared function that is not exported is an ABI break for every FFI
    (or a hook that does not interpose).
Used by the ctests dalshim_exports (libdalshim.so) and tracer_exports
(libdalkit_tracer.so).  Exit 0 when both hold, 1 with the offending names,
2 on usage or tool errors.
"""
import re
import subprocess
import sys

# A declaration: an export macro, a return type, the name, "(".
DECLARATION = re.compile(r"\b[A-Z][A-Z0-9_]*_API\b[^;(]*?\b([A-Za-z_][A-Za-z0-9_]*)\s*\(", re.S)
# Symbols the toolchain itself puts in every shared object's dynamic table.
TOOLCHAIN = {"_init", "_fini", "__bss_start", "_edata", "_end"}


def without_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def declared(headers):
    names = set()
    for path in headers:
        with open(path, encoding="utf-8") as f:
            text = without_comments(f.read())
        # The macros' own definitions are not declarations.
        text = re.sub(r"^\s*#\s*define[^\n]*", " ", text, flags=re.M)
        names.update(m.group(1) for m in DECLARATION.finditer(text))
    return names


def script_names(path):
    with open(path, encoding="utf-8") as f:
        text = without_comments(f.read())
    section = re.search(r"global:(.*?)(?:local:|\})", text, re.S)
    if not section:
        return set()
    return {n for n in re.findall(r"([A-Za-z_][A-Za-z0-9_*]*)\s*;", section.group(1)) if "*" not in n}


def exported(library):
    try:
        out = subprocess.run(["nm", "-D", "--defined-only", library], check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"exports_check: nm failed on {library}: {e}", file=sys.stderr)
        sys.exit(2)
    names = {line.split()[2].split("@")[0] for line in out.splitlines() if len(line.split()) >= 3}
    return names - TOOLCHAIN


def main(argv):
    if len(argv) < 4:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    library, script, headers = argv[1], argv[2], argv[3:]
    from_headers = declared(headers)
    if not from_headers:
        print(f"exports_check: no *_API declaration found in {' '.join(headers)}", file=sys.stderr)
        return 2
    want = from_headers | script_names(script)
    have = exported(library)
    extra, missing = sorted(have - want), sorted(want - have)
    for title, names in (("exported but declared nowhere (internals leaking out)", extra),
                         ("declared but not exported", missing)):
        if names:
            print(f"{library}: {len(names)} {title}:")
            for n in names:
                print(f"  {n}")
    if extra or missing:
        return 1
    print(f"{library}: exports exactly the {len(want)} declared functions")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
