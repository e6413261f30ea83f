#!/usr/bin/env python3
"""Run dalstress once and check its exit code, reports and output.

Stdlib only.  Usage:
  check_run.py [checks...] -- /path/to/dalstress [dalstress args...]

Checks:
  --exit N               expected exit code (required)
  --json                 add `--json <tmp file>` to the command and load the report
  --clean                every layer is "no leak" or "n/a"; the native layers
                         (rss malloc go_heap sqlite dal_buffers shim_buffers
                         statements) must be "no leak"; overall "no leak"
  --also-allowed L1,L2   layers that may leak besides the --leak ones; any
                         other leaking layer fails the check
  --leak LAYER           LAYER is named in verdict.leaking_layers and its verdict
                         is "leak"; overall "leak" (repeatable)
  --judged LAYER         LAYER is in the report and was judged ("leak" or
                         "no leak"), not n/a or insufficient (repeatable): with
                         --clean, a layer of the run that must be there
  --absent LAYER         LAYER is not in the report at all (repeatable): a layer
                         that does not apply to the run (pg_* on SQLite)
  --queries N            counts.queries == N and counts.errors == 0
  --bytes-per-trip N     (bytes_in + bytes_out) / queries == N exactly
  --extrapolate-mb N     floor(1e8 * bytes per trip / 2^20) == N, and the
                         "Data transferred" line of the text report matches
                         this run's own total
  --stdout-has TEXT      TEXT occurs in stdout (repeatable)
  --stderr-has TEXT      TEXT occurs in stderr (repeatable)
  --samples-every N      the samples are at query 1 (START), at every multiple
                         of N below the planned queries, and at the end (END)
  --timeout S            kill the run after S seconds (default 600)
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time

NATIVE_LAYERS = ["rss", "malloc", "go_heap", "sqlite", "dal_buffers", "shim_buffers", "statements"]


def fail(msg, out="", err=""):
    print("FAIL: " + msg)
    if out:
        print("---- stdout (last 40 lines) ----")
        print("\n".join(out.splitlines()[-40:]))
    if err:
        print("---- stderr (last 40 lines) ----")
        print("\n".join(err.splitlines()[-40:]))
    sys.exit(1)


def grouped(n):
    return "{:,}".format(n)


def main(argv):
    if "--" not in argv:
        fail("usage: check_run.py [checks...] -- command...")
    split = argv.index("--")
    opts, cmd = argv[:split], argv[split + 1:]
    want_exit = None
    use_json = clean = False
    leaks, judged, absent, stdout_has, stderr_has = [], [], [], [], []
    queries = per_trip = extrapolate = samples_every = None
    allowed = []
    timeout = 600.0
    i = 0
    while i < len(opts):
        o = opts[i]
        val = opts[i + 1] if i + 1 < len(opts) else None
        if o == "--exit": want_exit = int(val); i += 2
        elif o == "--json": use_json = True; i += 1
        elif o == "--clean": clean = use_json = True; i += 1
        elif o == "--leak": leaks.append(val); use_json = True; i += 2
        elif o == "--judged": judged.append(val); use_json = True; i += 2
        elif o == "--absent": absent.append(val); use_json = True; i += 2
        elif o == "--also-allowed": allowed.extend(val.split(",")); use_json = True; i += 2
        elif o == "--queries": queries = int(val); use_json = True; i += 2
        elif o == "--bytes-per-trip": per_trip = int(val); use_json = True; i += 2
        elif o == "--extrapolate-mb": extrapolate = int(val); use_json = True; i += 2
        elif o == "--stdout-has": stdout_has.append(val); i += 2
        elif o == "--stderr-has": stderr_has.append(val); i += 2
        elif o == "--samples-every": samples_every = int(val); use_json = True; i += 2
        elif o == "--timeout": timeout = float(val); i += 2
        else: fail("unknown check " + o)
    if want_exit is None:
        fail("--exit is required")

    tmp = None
    if use_json:
        fd, tmp = tempfile.mkstemp(prefix="dalstress-", suffix=".json")
        os.close(fd)
        os.unlink(tmp)
        cmd = cmd + ["--json", tmp]
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        fail("timed out after %.0f s: %s" % (timeout, " ".join(cmd)))
    wall = time.monotonic() - t0
    out = p.stdout.decode("utf-8", "replace")
    err = p.stderr.decode("utf-8", "replace")
    print("ran: %s\nexit %d after %.2f s" % (" ".join(cmd), p.returncode, wall))
    if p.returncode < 0:
        fail("killed by signal %d" % -p.returncode, out, err)
    if p.returncode != want_exit:
        fail("exit code %d, expected %d" % (p.returncode, want_exit), out, err)
    for t in stdout_has:
        if t not in out:
            fail("stdout lacks %r" % t, out, err)
    for t in stderr_has:
        if t not in err:
            fail("stderr lacks %r" % t, out, err)

    if use_json:
        try:
            with open(tmp) as f:
                rep = json.load(f)
        except (OSError, ValueError) as e:
            fail("cannot read JSON report %s: %s" % (tmp, e), out, err)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
        if rep.get("schema") != "dalkit-stress-report":
            fail("not a dalkit-stress-report: schema=%r" % rep.get("schema"))
        layers = {l["layer"]: l for l in rep["layers"]}
        verdict = rep["verdict"]
        summary = ", ".join("%s=%s" % (k, v["verdict"]) for k, v in layers.items())
        print("layers: " + summary)
        print("verdict: %s, exit_code %s, leaking %s, errors %s" % (
            verdict["overall"], verdict["exit_code"], verdict["leaking_layers"], verdict["errors"]))
        c = rep["counts"]
        print("counts: queries %d, bytes_in %d, bytes_out %d, errors %d; timing: %.2f s, %.0f q/s" % (
            c["queries"], c["bytes_in"], c["bytes_out"], c["errors"],
            rep["timing"]["wall_s"], rep["timing"]["queries_per_second"]))
        if verdict["exit_code"] != want_exit:
            fail("JSON exit_code %r != %d" % (verdict["exit_code"], want_exit))
        if samples_every is not None:
            planned = rep["run"]["queries_planned"]
            want = [1] + list(range(samples_every, planned, samples_every)) + [c["queries"]]
            got = [x["queries"] for x in rep["samples"]]
            if got != want:
                fail("samples at %s, expected %s" % (got, want))
        if clean:
            for name, l in layers.items():
                if l["verdict"] not in ("no leak", "n/a"):
                    fail("layer %s: %s (%s)" % (name, l["verdict"], l.get("reason", "")))
            for name in NATIVE_LAYERS:
                if name not in layers:
                    fail("layer %s missing from the report" % name)
                if layers[name]["verdict"] != "no leak":
                    fail("native layer %s is %r, expected 'no leak' (is the native stats source registered?)"
                         % (name, layers[name]["verdict"]))
            if verdict["overall"] != "no leak" or verdict["leaking_layers"]:
                fail("overall %r, leaking %r" % (verdict["overall"], verdict["leaking_layers"]))
        for name in judged:
            if layers.get(name, {}).get("verdict") not in ("leak", "no leak"):
                fail("layer %s is %r, expected a verdict" % (name, layers.get(name, {}).get("verdict", "missing")))
        for name in absent:
            if name in layers:
                fail("layer %s is in the report (%r), expected none" % (name, layers[name]["verdict"]))
        for name in leaks:
            if name not in verdict["leaking_layers"]:
                fail("layer %s not named as leaking (leaking: %r)" % (name, verdict["leaking_layers"]))
            if layers.get(name, {}).get("verdict") != "leak":
                fail("layer %s verdict %r" % (name, layers.get(name, {}).get("verdict")))
        if leaks:
            extra = set(verdict["leaking_layers"]) - set(leaks) - set(allowed)
            if extra:
                fail("layers %r named as leaking too; only %r (and maybe %r) may be" % (sorted(extra), leaks, allowed))
        if leaks and verdict["overall"] != "leak":
            fail("overall %r, expected 'leak'" % verdict["overall"])
        if queries is not None:
            if c["queries"] != queries or c["errors"] != 0:
                fail("counted %d queries and %d errors, expected %d and 0" % (c["queries"], c["errors"], queries))
        total = c["bytes_in"] + c["bytes_out"]
        if per_trip is not None:
            if c["queries"] <= 0 or total != per_trip * c["queries"]:
                fail("%d bytes over %d queries is not %d per round trip" % (total, c["queries"], per_trip))
        if extrapolate is not None:
            mb = (10 ** 8 * total // c["queries"]) // (1 << 20)
            print("data transferred at 1e8 queries: %s MB" % grouped(mb))
            if mb != extrapolate:
                fail("extrapolated to 1e8 queries: %d MB, expected %d" % (mb, extrapolate))
            own = total // (1 << 20)
            m = re.search(r"Data transferred: ([0-9,]+) MB", out)
            if not m:
                fail("no 'Data transferred: N MB' line in the text report", out)
            if m.group(1) != grouped(own):
                fail("text report says %s MB, JSON totals give %s MB" % (m.group(1), grouped(own)), out)
    print("PASS")


if __name__ == "__main__":
    main(sys.argv[1:])
