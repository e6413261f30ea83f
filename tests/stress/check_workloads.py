#!/usr/bin/env python3
"""dalstress and workload files that are wrong (docs/workloads.md).

Stdlib only.  Usage: check_workloads.py DALSTRESS WORKLOAD_DIR [EXTRA DALSTRESS ARGS...]

  - a copy of a shipped workload with one wrong expected value: dalstress
    reports a wrong answer naming the request id and the differing path,
    and exits 2;
  - bad files (not JSON, a missing key, an unknown variable, a division by
    zero) and an unknown workload name: exit 2 with a clear message before
    the first query (no report on stdout);
  - --workload-file with a file of any name runs it;
  - a NAME.json dropped into stress/workloads/ (a copy of the directory, under
    the current directory) is --workload NAME with no code change, and is
    listed among the names an unknown name's message offers.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

failures = []


EXTRA = []  # passed to every run (e.g. the ASan build's lifted rss limit)


def run(dalstress, args, timeout=240, cwd=None):
    p = subprocess.run([dalstress, "--progress", "off"] + args + EXTRA, capture_output=True, text=True,
                       timeout=timeout, cwd=cwd)
    return p.returncode, p.stdout, p.stderr


def expect(name, cond, out="", err=""):
    if cond:
        print("ok   " + name)
        return
    failures.append(name)
    print("FAIL " + name)
    print("---- stdout (last 20 lines) ----\n" + "\n".join(out.splitlines()[-20:]))
    print("---- stderr (last 20 lines) ----\n" + "\n".join(err.splitlines()[-20:]))


def corrupted(dalstress, tmp, src, edit, name, must):
    with open(src) as f:
        w = json.load(f)
    edit(w)
    path = os.path.join(tmp, name + ".json")
    with open(path, "w") as f:
        json.dump(w, f)
    code, out, err = run(dalstress, ["--workload", path, "--queries", "2000", "--max-errors", "3"])
    expect(name + ": exit 2", code == 2, out, err)
    for m in must:
        expect(name + ": stderr has " + m, m in err, out, err)


def main():
    dalstress, wdir = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])  # runs below change directory
    EXTRA.extend(sys.argv[3:])
    with tempfile.TemporaryDirectory(prefix="dalstress-workloads-") as tmp:
        # rows: the price of every row is expected at double its value.
        def rows_price(w):
            w["steps"][0]["expect"]["r"]["$repeat"]["item"][4]["over"] = 2
        corrupted(dalstress, tmp, os.path.join(wdir, "rows.json"), rows_price, "rows-wrong-price",
                  ["wrong answer to request 4294967296 (thread 0, query 0, step 0): at .r[0][4]: "
                   "got 1.25 (float64), expected 2.5 (float64)", "wrong answer(s)"])

        # write: the Tx's last insert id is expected one too high (step 4).
        def write_li(w):
            w["steps"][4]["expect"]["li"] = {"$": "rid + 1"}
        corrupted(dalstress, tmp, os.path.join(wdir, "write.json"), write_li, "write-wrong-li",
                  ["wrong answer to request 4294967300 (thread 0, query 4, step 4): at .li: "
                   "got 1000000, expected 1000001"])

        # Bad files: exit 2 before the first query, the message names the problem.
        with open(os.path.join(wdir, "rows.json")) as f:
            rows_text = f.read()
        bad = {
            "not-json": ('{"format": 1, "name": ', "not valid JSON"),
            "missing-steps": ('{"format": 1, "name": "x", "db": "x.db"}', "steps: missing"),
            "unknown-variable": (rows_text.replace('"(n * 37 + t * 11) % 100"', '"(n * 37 + q) % 100"'),
                                 "unknown variable 'q'"),
            "division-by-zero": (rows_text.replace('"(n * 37 + t * 11) % 100"', '"n / t"'),
                                 "division by zero"),
        }
        for name, (text, message) in bad.items():
            path = os.path.join(tmp, name + ".json")
            with open(path, "w") as f:
                f.write(text)
            code, out, err = run(dalstress, ["--workload", path, "--queries", "1000"])
            expect(name + ": exit 2", code == 2, out, err)
            expect(name + ": message", message in err and ("workload " + path) in err, out, err)
            expect(name + ": no query ran", out == "" and "queries" not in err, out, err)

        code, out, err = run(dalstress, ["--workload", "nosuch", "--queries", "1000"])
        expect("unknown name: exit 2", code == 2 and "unknown workload 'nosuch'" in err and out == "", out, err)

        # --workload-file: any file name, here the reference workload as ref.txt.
        ref = os.path.join(tmp, "ref.txt")
        with open(os.path.join(wdir, "reference.json")) as src, open(ref, "w") as dst:
            dst.write(src.read())
        code, out, err = run(dalstress, ["--workload-file", ref, "--queries", "5000"])
        expect("--workload-file: exit 0", code == 0 and "workload reference" in out, out, err)

        # A new workload is a file: a copy of the directory (dalstress looks
        # in stress/workloads/ under the current directory after its own
        # workloads/) with one more file, run by its name.
        tree = os.path.join(tmp, "tree")
        shutil.copytree(wdir, os.path.join(tree, "stress", "workloads"))
        with open(os.path.join(wdir, "reference.json")) as f:
            w = json.load(f)
        w["name"] = "dropped-in"
        with open(os.path.join(tree, "stress", "workloads", "dropped-in.json"), "w") as f:
            json.dump(w, f)
        code, out, err = run(dalstress, ["--workload", "dropped-in", "--queries", "5000"], cwd=tree)
        expect("dropped-in workload: exit 0", code == 0 and "workload dropped-in" in out, out, err)
        code, out, err = run(dalstress, ["--workload", "nosuch", "--queries", "1000"], cwd=tree)
        shipped = sorted(n[:-5] for n in os.listdir(wdir) if n.endswith(".json"))
        expect("unknown name lists every file", code == 2 and "unknown workload 'nosuch' (expected " +
               ", ".join(sorted(shipped + ["dropped-in"])) + ", or a .json file path)" in err, out, err)

    if failures:
        print("%d check(s) failed: %s" % (len(failures), ", ".join(failures)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
