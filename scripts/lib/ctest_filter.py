#!/usr/bin/env python3
"""Keep a ctest run readable: everything goes to LOG; the terminal gets a
progress line every STEP tests, each failed test with its output, and
ctest's own summary (from "NN% tests passed" to the end).  Stdlib only.

Usage: ctest ... 2>&1 | ctest_filter.py PHASE LOG [STEP]

Ctrl-C reaches this filter too; it ignores SIGINT and keeps reading until
ctest closes the pipe, so ctest's last words still reach the log.
"""
import re
import signal
import sys

# "12/164 Test #171: name (may hold spaces) ......   Passed    0.08 sec"; the
# result is the first word after the dot leader: Passed, ***Skipped,
# ***Failed, ***Timeout, ***Not Run, ***Exception.  A failure's reason may
# hold a newline (a required regex), so the line need not end in "sec".
STATUS = re.compile(r"^\s*(\d+)/(\d+) Test\s+#\d+: ")
RESULT = re.compile(r"\.{3,}\s*(?:\*{3})?(\w+)")
START = re.compile(r"^\s*Start\s+\d+: ")
SUMMARY = re.compile(r"^\d+% tests passed")


def main():
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    phase, log_path = sys.argv[1], sys.argv[2]
    step = int(sys.argv[3]) if len(sys.argv) > 3 else 25
    failed = 0
    showing = False   # inside a failed test's output
    summary = False   # inside ctest's closing summary
    with open(log_path, "w") as log:
        for line in sys.stdin:
            log.write(line)
            log.flush()
            if summary:
                sys.stdout.write(line)
                continue
            if SUMMARY.match(line):
                summary = True
                sys.stdout.write("\n" + line)
                continue
            m = STATUS.match(line)
            if m:
                done, total = int(m.group(1)), int(m.group(2))
                r = RESULT.search(line)
                bad = not (r and r.group(1) in ("Passed", "Skipped"))
                showing = bad
                if bad:
                    failed += 1
                    sys.stdout.write(line)
                if (done % step == 0 and not bad) or done == total:
                    sys.stdout.write("%s: %d/%d tests done, %d failed\n" % (phase, done, total, failed))
            elif START.match(line):
                showing = False
            elif showing:
                sys.stdout.write(line)
            sys.stdout.flush()
    sys.stdout.flush()


if __name__ == "__main__":
    main()
