#!/usr/bin/env python3
"""Summarise one ctest run from its JUnit file (ctest --output-junit).

Prints each skipped test with the reason it gave, then one line
"<phase>: P passed, F failed, S skipped", and appends "P F S" to COUNTS so
the caller can total several runs.  Stdlib only.

Usage: ctest_summary.py PHASE JUNIT_XML COUNTS_FILE

A test counts as skipped when ctest did not run it on purpose: its output
matched SKIP_REGULAR_EXPRESSION or its exit code was SKIP_RETURN_CODE (a
GoogleTest GTEST_SKIP, a checker that cannot apply here), or it is
DISABLED.  Any other "not run" (e.g. a missing executable) is a failure, as
ctest counts it.  The reason is what the test printed: GoogleTest's
"<file>:<line>: Skipped" is followed by the message given to GTEST_SKIP().
"""
import re
import sys
import xml.etree.ElementTree as ET


def skip_reason(out, message):
    lines = [l.strip() for l in out.splitlines()]
    for i, l in enumerate(lines):
        if re.search(r":\d+: Skipped$", l) or l == "Skipped":
            msg = []
            for m in lines[i + 1:]:
                if not m or m.startswith("[  SKIPPED ]"):
                    break
                msg.append(m)
            if msg:
                return " ".join(msg)
    if message and not message.startswith("SKIP_"):
        return message
    text = [l for l in lines if l and not l.startswith("[")]
    return text[-1] if text else "(no reason printed)"


def main():
    phase, path, counts_file = sys.argv[1:4]
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as e:
        print("%s: no ctest results (%s)" % (phase, e))
        with open(counts_file, "a") as f:
            f.write("0 1 0\n")  # a phase without results is a failure
        return
    passed = failed = skipped = 0
    skips = []
    for tc in root.iter("testcase"):
        status = tc.get("status")
        sk = tc.find("skipped")
        out = tc.findtext("system-out") or ""
        if status == "run":
            passed += 1
        elif status in ("notrun", "disabled") and sk is not None and (
                (sk.get("message") or "").startswith("SKIP_") or status == "disabled"
                or "Disabled" in (sk.get("message") or "")):
            skipped += 1
            skips.append((tc.get("name"), skip_reason(out, sk.get("message") or "")))
        else:
            failed += 1
    for name, why in skips:
        print("%s: skipped %s: %s" % (phase, name, why))
    print("%s: %d passed, %d failed, %d skipped" % (phase, passed, failed, skipped))
    with open(counts_file, "a") as f:
        f.write("%d %d %d\n" % (passed, failed, skipped))


if __name__ == "__main__":
    main()
