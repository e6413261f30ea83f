#!/usr/bin/env python3
"""Ctrl-C (SIGINT) or SIGTERM during a dalstress run stops the workers and
finishes the report as an interrupted run.  Stdlib only.

Usage: check_interrupt.py SIGINT|SIGTERM /path/to/dalstress [dalstress args...]

Starts a 100,000,000-query run (warm-up 0, a sample every 10,000 queries,
so a short run has enough samples for a partial verdict), waits until the
progress line shows at least 100,000 queries done, sends the signal, and
checks:
  - dalstress exits by itself with code 2 (not killed by the signal);
  - stdout has the report, saying "interrupted (<signal>) after N of
    100,000,000 planned queries", and its verdict line ends "(exit code 2)";
  - the JSON report is written: verdict.interrupted, interrupt_cause, partial,
    exit_code 2, 0 errors, fewer queries than planned, and every native layer
    judged "no leak" marked partial;
  - the temporary data directory is removed.
"""
import json
import os
import re
import select
import signal
import subprocess
import sys
import tempfile
import time

NATIVE_LAYERS = ["rss", "malloc", "go_heap", "sqlite", "dal_buffers", "shim_buffers", "statements"]
PLANNED = 100000000
MIN_DONE = 100000


def fail(msg, out="", err=""):
    print("FAIL: " + msg)
    if out:
        print("---- stdout (last 40 lines) ----\n" + "\n".join(out.splitlines()[-40:]))
    if err:
        print("---- stderr (last 20 lines) ----\n" + "\n".join(err.replace("\r", "\n").splitlines()[-20:]))
    sys.exit(1)


def main():
    signame, exe, extra = sys.argv[1], sys.argv[2], sys.argv[3:]
    sig = {"SIGINT": signal.SIGINT, "SIGTERM": signal.SIGTERM}[signame]
    fd, report = tempfile.mkstemp(prefix="dalstress-int-", suffix=".json")
    os.close(fd)
    os.unlink(report)
    cmd = [exe, "--queries", str(PLANNED), "--sample-every", "10000", "--warmup-share", "0",
           "--progress", "line", "--json", report] + extra
    print("ran: " + " ".join(cmd))
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    err = b""
    done = 0
    deadline = time.monotonic() + 180
    while done < MIN_DONE:
        if time.monotonic() > deadline or p.poll() is not None:
            p.kill()
            out, rest = p.communicate()
            fail("no progress to %d queries (exit %r)" % (MIN_DONE, p.returncode), out.decode(), (err + rest).decode())
        r, _, _ = select.select([p.stderr], [], [], 1.0)
        if r:
            err += os.read(p.stderr.fileno(), 65536)
            counts = re.findall(r"([0-9][0-9,]*)/100,000,000", err.decode("utf-8", "replace"))
            if counts:
                done = int(counts[-1].replace(",", ""))
    t_sig = time.monotonic()
    p.send_signal(sig)
    try:
        out, rest = p.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        p.kill()
        out, rest = p.communicate()
        fail("still running 120 s after %s" % signame, out.decode(), (err + rest).decode())
    out = out.decode("utf-8", "replace")
    err = (err + rest).decode("utf-8", "replace")
    print("%s sent at %s queries; exit %d %.1f s later" % (signame, "{:,}".format(done), p.returncode,
                                                          time.monotonic() - t_sig))
    if p.returncode < 0:
        fail("killed by signal %d instead of stopping cleanly" % -p.returncode, out, err)
    if p.returncode != 2:
        fail("exit code %d, expected 2" % p.returncode, out, err)
    m = re.search(r"interrupted \(%s\) after ([0-9,]+) of 100,000,000 planned queries" % signame, out)
    if not m:
        fail("the report does not say it was interrupted by %s" % signame, out, err)
    lines = out.rstrip("\n").splitlines()
    if not (lines and lines[-1].startswith("VERDICT: ") and lines[-1].endswith("(exit code 2)")):
        fail("last line is not a verdict with exit code 2: %r" % (lines[-1] if lines else ""), out, err)
    if re.search(r"exit code [013-9]", out):
        fail("the report states an exit code other than 2", out, err)

    try:
        with open(report) as f:
            rep = json.load(f)
    except (OSError, ValueError) as e:
        fail("no JSON report after the interrupt: %s" % e, out, err)
    finally:
        if os.path.exists(report):
            os.unlink(report)
    v, c = rep["verdict"], rep["counts"]
    print("verdict: %s" % {k: v.get(k) for k in ("overall", "exit_code", "interrupted", "interrupt_cause", "partial")})
    print("counts: %s" % c)
    if not (v.get("interrupted") is True and v.get("interrupt_cause") == signame and v.get("exit_code") == 2
            and v.get("partial") is True):
        fail("JSON verdict is not an interrupted, partial run with exit 2: %r" % v)
    if not (MIN_DONE <= c["queries"] < PLANNED and c["errors"] == 0):
        fail("JSON counts %r: expected %d..%d queries and 0 errors" % (c, MIN_DONE, PLANNED - 1))
    if "{:,}".format(c["queries"]) != m.group(1):
        fail("text says %s queries, JSON %d" % (m.group(1), c["queries"]))
    layers = {l["layer"]: l for l in rep["layers"]}
    for name in NATIVE_LAYERS:
        l = layers.get(name, {})
        if l.get("verdict") != "no leak" or l.get("partial") is not True:
            fail("layer %s: verdict %r, partial %r; expected a partial 'no leak'" % (
                name, l.get("verdict"), l.get("partial")))

    m = re.search(r"data dir (\S+) \(temporary\)", err)
    if not m:
        fail("no temporary data directory announced", out, err)
    if os.path.exists(m.group(1)):
        fail("temporary data directory %s left behind" % m.group(1))
    print("PASS")


if __name__ == "__main__":
    main()
