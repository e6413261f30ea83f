#!/usr/bin/env python3
"""Every bad command line makes dalstress print its usage and exit 2;
--help prints the usage on stdout, saying what happens to the data
directory, and exits 0.  Stdlib only.

Usage: check_bad_flags.py /path/to/dalstress
"""
import subprocess
import sys

BAD = [
    ["--bogus"],
    ["--queries"],
    ["--queries", "0"],
    ["--queries", "-5"],
    ["--queries", "12abc"],
    ["--queries", "1.5"],
    ["--threads", "0"],
    ["--threads", "4", "--queries", "2"],
    ["--via", "jit"],
    ["--mode", "borrow"],
    ["--sample-every", "0"],
    ["--sample-every", "2000", "--queries", "1000"],
    ["--warmup-share", "0.95"],
    ["--warmup-share", "x"],
    ["--plant-leak", "go_heap"],
    ["--plant-leak", "rss:16"],
    ["--plant-leak", "go_heap:0"],
    ["--plant-leak", "go_heap:2000000"],
    ["--progress", "loud"],
    ["--monitor-param", "novalue"],
    ["--monitor-param", "a=1;b=2"],
    ["--monitor-param", "slope.rss= 4"],
    ["--queries", "1__000"],
    ["--queries", "0x10"],
    ["--json="],
    ["--html="],
    ["--db-dir="],
    ["positional"],
]


def main():
    exe = sys.argv[1]
    bad = 0
    for args in BAD:
        p = subprocess.run([exe] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
        err = p.stderr.decode("utf-8", "replace")
        ok = p.returncode == 2 and "usage: dalstress" in err and err.startswith("dalstress: ")
        print("%-4s exit %d  %s  | %s" % ("ok" if ok else "BAD", p.returncode, " ".join(args),
                                          err.splitlines()[0] if err else ""))
        bad += not ok
    p = subprocess.run([exe, "--help"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    # --help says what happens to the data directory (kept / removed).
    text = p.stdout.decode("utf-8", "replace")
    ok = (p.returncode == 0 and "usage: dalstress" in text and "kept after the run" in text
          and "only if its parent directory exists" in text and "temporary directory, removed at the end" in text)
    print("%-4s exit %d  --help" % ("ok" if ok else "BAD", p.returncode))
    bad += not ok
    if bad:
        print("FAIL: %d case(s)" % bad)
        sys.exit(1)
    print("PASS")


if __name__ == "__main__":
    main()
