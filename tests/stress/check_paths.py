#!/usr/bin/env python3
"""dalstress checks its output paths and data directory before the first
query, and its verdict line never states an exit code other than the real
one.  Stdlib only.

Usage: check_paths.py /path/to/dalstress [extra dalstress args for the runs that complete]

Cases that must stop before the run are given the default 100,000,000
queries and a 60 s limit: a run that started would take ~18 minutes, so
finishing in time with exit 2, an error on stderr and no report on stdout
shows the check came first.
"""
import os
import re
import subprocess
import sys
import tempfile

FAILS = []


def run(cmd, timeout=60):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "", ""
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def check(name, ok, detail=""):
    print("%-4s %s%s" % ("ok" if ok else "BAD", name, "" if ok else "\n       " + detail.replace("\n", "\n       ")))
    if not ok:
        FAILS.append(name)


def refused_before_run(name, exe, args, stderr_has):
    rc, out, err = run([exe] + args)
    if rc is None:
        check(name, False, "still running after 60 s: the run started")
        return
    ok = rc == 2 and out == "" and stderr_has in err and " queries, via " not in err
    check(name, ok, "exit %r, stdout %d bytes, stderr:\n%s" % (rc, len(out), err.strip()))


def main():
    exe, extra = sys.argv[1], sys.argv[2:]
    with tempfile.TemporaryDirectory(prefix="dalstress-paths-") as tmp:
        # --json into a directory that does not exist.
        missing = os.path.join(tmp, "no-such-dir", "r.json")
        refused_before_run("--json in a missing directory", exe, ["--json", missing],
                           "cannot write the JSON report to '%s'" % missing)
        # --json naming a directory.
        refused_before_run("--json naming a directory", exe, ["--json", tmp], "Is a directory")
        # --html is checked the same way, before the run.
        missing_html = os.path.join(tmp, "no-such-dir", "r.html")
        refused_before_run("--html in a missing directory", exe, ["--html", missing_html],
                           "cannot write the HTML report to '%s'" % missing_html)

        # --db-dir whose parent does not exist: refused, and nothing created.
        parent = os.path.join(tmp, "absent-parent")
        leaf = os.path.join(parent, "leaf")
        refused_before_run("--db-dir with a missing parent", exe, ["--db-dir", leaf],
                           "its parent directory '%s' does not exist" % parent)
        check("--db-dir with a missing parent creates nothing", not os.path.exists(parent))

        # --db-dir naming a file.
        afile = os.path.join(tmp, "a-file")
        open(afile, "w").close()
        refused_before_run("--db-dir naming a file", exe, ["--db-dir", afile], "is not a directory")

        # A failure before the run loses nothing: an existing report at the
        # --json path is left as it was, a file the run created is removed.
        old = os.path.join(tmp, "old.json")
        with open(old, "w") as f:
            f.write("previous report\n")
        refused_before_run("early failure with an existing --json", exe, ["--json", old, "--db-dir", leaf],
                           "does not exist")
        with open(old) as f:
            check("an existing report survives an early failure", f.read() == "previous report\n")
        fresh = os.path.join(tmp, "fresh.json")
        refused_before_run("early failure with a new --json", exe, ["--json", fresh, "--db-dir", leaf],
                           "does not exist")
        check("a new --json file is not left behind by an early failure", not os.path.exists(fresh))

        # --db-dir whose parent exists: the leaf is created, used and kept.
        kept = os.path.join(tmp, "kept")
        rc, out, err = run([exe, "--db-dir", kept, "--queries", "20000", "--progress", "off"] + extra, timeout=300)
        check("--db-dir leaf created, run exits 0", rc == 0 and "(created)" in err, "exit %r\n%s" % (rc, err))
        check("--db-dir is kept, with the database in it",
              os.path.isdir(kept) and len(os.listdir(kept)) > 0, "contents: %r" % (
                  os.listdir(kept) if os.path.isdir(kept) else None))
        # ... and an existing one is used as is.
        rc, out, err = run([exe, "--db-dir", kept, "--queries", "20000", "--progress", "off"] + extra, timeout=300)
        check("existing --db-dir reused, run exits 0", rc == 0 and "(created)" not in err, "exit %r\n%s" % (rc, err))

        # The default data directory is temporary and removed at the end.
        rc, out, err = run([exe, "--queries", "20000", "--progress", "off"] + extra, timeout=300)
        m = re.search(r"data dir (\S+) \(temporary\)", err)
        check("default data dir announced as temporary", m is not None)
        if m:
            check("default data dir removed at the end", not os.path.exists(m.group(1)), m.group(1))

        # JSON write fails after the run (a full device): exit 2, and the
        # verdict line -- the last line of stdout -- says exit code 2.
        if os.path.exists("/dev/full"):
            rc, out, err = run([exe, "--json", "/dev/full", "--queries", "20000", "--progress", "off"] + extra, timeout=300)
            lines = out.rstrip("\n").splitlines()
            last = lines[-1] if lines else ""
            check("JSON write failing at the end exits 2", rc == 2, "exit %r\n%s" % (rc, err))
            check("the verdict line states exit code 2",
                  last.startswith("VERDICT: ERROR") and last.endswith("(exit code 2)") and "/dev/full" in last,
                  "last line: %r" % last)
            check("no line states another exit code", not re.search(r"exit code [013-9]", out),
                  "\n".join(l for l in lines if "exit code" in l))
        else:
            check("/dev/full exists (needed to make a write fail)", False)

        # A writable --json: written, and a valid report.
        good = os.path.join(tmp, "good.json")
        with open(good, "w") as f:
            f.write("x" * 100000)  # longer than the report: it must be replaced, not overwritten in place
        rc, out, err = run([exe, "--json", good, "--queries", "20000", "--progress", "off"] + extra, timeout=300)
        with open(good) as f:
            text = f.read()
        check("--json written over an existing longer file", rc == 0 and text.startswith("{") and
              text.rstrip().endswith("}") and "x" * 10 not in text, "exit %r, %d bytes" % (rc, len(text)))

    if FAILS:
        print("FAIL: %d check(s): %s" % (len(FAILS), "; ".join(FAILS)))
        sys.exit(1)
    print("PASS")


if __name__ == "__main__":
    main()
