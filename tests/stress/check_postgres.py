#!/usr/bin/env python3
"""check_postgres.py -- the stress drivers on PostgreSQL (--postgres URL|local).

  check_postgres.py workloads QUERIES -- DRIVER [ARG...]
      Run under `scripts/lib/pg-cluster.sh run --no-replica --` (one server
      for every run): each shipped workload through DRIVER with --postgres
      $DALKIT_PG_URL and QUERIES queries.  Each must exit 0 (every answer
      checked: a wrong one is exit 2) with the report's mode saying
      "workload W on postgres"; afterwards no run's schema may be left.

  check_postgres.py local -- DRIVER [ARG...]
      DRIVER --postgres local: exit 0, and the server it started is gone
      (its directory removed, no process of it, its port closed).

  check_postgres.py sigint -- DRIVER [ARG...] [--- DRIVER [ARG...]]...
      Each DRIVER --postgres local, at the same time: SIGINT to the driver's
      own process (as a kill, not a terminal's Ctrl-C to the group) once it
      is querying; each must exit 130 with an interrupted report, and leave
      no server.

  check_postgres.py bad-url -- DRIVER [ARG...]
      An unreachable server (a URL with a password), a malformed
      --postgres value and --postgres local without PostgreSQL's binaries:
      exit 2, a message naming the problem (and how to install them), and
      the password nowhere in the output.
"""
import glob
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time

WORKLOADS = ["reference", "rows", "write", "mixed"]
SERVER = re.compile(r"--postgres local: a throwaway server at (postgres://\S+) in (\S+),")


def fail(msg):
    print(f"FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def run(cmd, timeout=240):
    print("+", " ".join(cmd), file=sys.stderr, flush=True)
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    return r.returncode, r.stdout, r.stderr


def psql():
    if os.environ.get("DALKIT_PG_BIN"):
        return os.path.join(os.environ["DALKIT_PG_BIN"], "psql")
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/psql"))
    return found[-1] if found else "psql"


def run_schemas(url):
    out = subprocess.run([psql(), "-X", "-A", "-t", "-d", url, "-c",
                          "SELECT nspname FROM pg_namespace WHERE nspname LIKE 'dalstress%'"],
                         capture_output=True, text=True, check=True).stdout
    return out.split()


def port_of(url):
    m = re.search(r"@[^:/]+:(\d+)/", url)
    return int(m.group(1)) if m else None


def assert_server_gone(url, cluster, what):
    """The server of `url` in directory `cluster` no longer exists."""
    if os.path.lexists(cluster):
        fail(f"{what}: the cluster directory {cluster} is still there")
    for cmdline in glob.glob("/proc/[0-9]*/cmdline"):
        try:
            with open(cmdline, "rb") as f:
                args = f.read().decode(errors="replace")
        except OSError:
            continue
        if cluster in args:
            fail(f"{what}: a process of the server is still running: {args.replace(chr(0), ' ')}")
    port = port_of(url)
    with socket.socket() as s:
        s.settimeout(2)
        if s.connect_ex(("127.0.0.1", port)) == 0:
            fail(f"{what}: something still listens on the server's port {port}")


def server_of(stderr, what):
    m = SERVER.search(stderr)
    if not m:
        fail(f"{what}: no 'throwaway server' line on stderr:\n{stderr[-2000:]}")
    return m.group(1), m.group(2)


def check_workloads(queries, driver):
    url = os.environ.get("DALKIT_PG_URL")
    if not url:
        fail("DALKIT_PG_URL is not set: run under scripts/lib/pg-cluster.sh run --no-replica --")
    for w in WORKLOADS:
        rc, out, err = run(driver + ["--postgres", url, "--workload", w, "--queries", str(queries), "--progress", "off"])
        if rc != 0:
            fail(f"workload {w}: exit {rc}, expected 0\n{out[-3000:]}\n{err[-3000:]}")
        if f"workload {w} on postgres" not in out:
            fail(f"workload {w}: the report does not say 'workload {w} on postgres':\n{out[:1500]}")
        if not re.search(rf"Queries: {queries:,}, errors: 0", out):
            fail(f"workload {w}: not {queries:,} queries without an error:\n{out[-2000:]}")
        print(f"ok: workload {w} on postgres, exit 0", file=sys.stderr)
    left = run_schemas(url)
    if left:
        fail(f"schemas left behind by the runs: {left}")


def check_local(driver):
    rc, out, err = run(driver + ["--postgres", "local", "--workload", "reference", "--queries", "2000",
                                 "--progress", "off"])
    if rc != 0:
        fail(f"--postgres local: exit {rc}, expected 0\n{out[-3000:]}\n{err[-3000:]}")
    url, cluster = server_of(err, "--postgres local")
    assert_server_gone(url, cluster, "--postgres local")
    print(f"ok: --postgres local exit 0, server {url} in {cluster} gone", file=sys.stderr)


def interrupt(driver, results, i):
    cmd = driver + ["--postgres", "local", "--workload", "rows", "--queries", "100000000", "--progress", "off"]
    print("+", " ".join(cmd), file=sys.stderr, flush=True)
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    err = []
    # Querying: the driver's own first line after the server's.
    for line in p.stderr:
        err.append(line)
        if re.search(r"workload rows.*postgres", line) and "throwaway" not in line:
            break
    time.sleep(2)
    p.send_signal(signal.SIGINT)
    try:
        out, rest = p.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        p.kill()
        out, rest = p.communicate()
        results[i] = f"{driver[0]}: no exit within 120 s of SIGINT"
        return
    err = "".join(err) + rest
    if p.returncode != 130:
        results[i] = f"{' '.join(driver)}: exit {p.returncode} after SIGINT, expected 130\n{out[-2000:]}\n{err[-2000:]}"
        return
    if "interrupted (SIGINT)" not in out:
        results[i] = f"{' '.join(driver)}: the report does not say it was interrupted:\n{out[-2000:]}"
        return
    results[i] = server_of(err, " ".join(driver))


def check_sigint(drivers):
    results = [None] * len(drivers)
    threads = [threading.Thread(target=interrupt, args=(d, results, i)) for i, d in enumerate(drivers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for d, r in zip(drivers, results):
        if not isinstance(r, tuple):
            fail(r or f"{d[0]}: no result")
        assert_server_gone(r[0], r[1], f"{' '.join(d)} after SIGINT")
        print(f"ok: {' '.join(d)}: SIGINT -> exit 130, server {r[0]} gone", file=sys.stderr)


def check_bad_url(driver):
    secret = "s3cret-pw-do-not-print"
    # Port 9 (discard): nothing listens there on a test machine.
    url = f"postgres://dal:{secret}@127.0.0.1:9/none?sslmode=disable&connect_timeout=3"
    rc, out, err = run(driver + ["--postgres", url, "--queries", "1000", "--progress", "off"])
    if rc != 2:
        fail(f"unreachable server: exit {rc}, expected 2\n{out}\n{err}")
    if secret in out + err:
        fail(f"unreachable server: the password is in the output:\n{out}\n{err}")
    if "127.0.0.1" not in err:
        fail(f"unreachable server: the message does not name the server:\n{err}")
    print(f"ok: unreachable server exit 2: {err.strip().splitlines()[-1]}", file=sys.stderr)
    rc, out, err = run(driver + ["--postgres", f"mysql://root:{secret}@localhost/x", "--queries", "10"])
    if rc != 2 or "--postgres" not in err or secret in out + err:
        fail(f"--postgres mysql://...: exit {rc} (expected 2 with a message about --postgres, no password)\n{err}")
    print("ok: a malformed --postgres value is exit 2", file=sys.stderr)
    # --postgres local without the server's binaries: exit 2, saying how to install them.
    env = dict(os.environ, DALKIT_PG_BIN="/nonexistent")
    r = subprocess.run(driver + ["--postgres", "local", "--queries", "10"], capture_output=True, text=True,
                       timeout=120, env=env)
    if r.returncode != 2 or "scripts/deps.sh" not in r.stderr:
        fail(f"--postgres local without PostgreSQL: exit {r.returncode} (expected 2, naming scripts/deps.sh)\n{r.stderr}")
    print("ok: --postgres local without PostgreSQL's binaries is exit 2, naming scripts/deps.sh", file=sys.stderr)


def main():
    args = sys.argv[1:]
    if len(args) < 3 or "--" not in args:
        fail(__doc__)
    mode, rest = args[0], args[args.index("--") + 1:]
    if mode == "workloads":
        check_workloads(int(args[1]), rest)
    elif mode == "local":
        check_local(rest)
    elif mode == "sigint":
        drivers, cur = [], []
        for a in rest:
            if a == "---":
                drivers.append(cur)
                cur = []
            else:
                cur.append(a)
        drivers.append(cur)
        check_sigint(drivers)
    elif mode == "bad-url":
        check_bad_url(rest)
    else:
        fail(f"unknown mode {mode}\n{__doc__}")


if __name__ == "__main__":
    main()
