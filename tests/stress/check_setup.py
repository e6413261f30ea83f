#!/usr/bin/env python3
"""scripts/setup.sh, as a newcomer meets it through scripts/stress.sh and
`npm test`.  Stdlib only.

Usage: check_setup.py interrupt|configure-failure REPO_ROOT

Both cases build into a scratch directory (setup.sh's BUILD_DIR argument),
never into the repository's build/.

interrupt          A first build prints one line saying what it builds, and
                   nothing else; Ctrl-C (SIGINT to the process group, as a
                   terminal sends it) once the build is under way ends it
                   with "setup: interrupted" and exit 130, not as a failure.
configure-failure  A real configure failure (the dependencies made
                   unfindable with an empty CMAKE_FIND_ROOT_PATH) exits 2,
                   names the failed step, and shows the log, which names the
                   missing package.
"""
import os
import signal
import subprocess
import sys
import tempfile
import time


def fail(msg, err=""):
    print("FAIL: " + msg)
    if err:
        print("---- setup.sh stderr ----\n" + err)
    sys.exit(1)


def lines_of(err):
    return [l for l in err.splitlines() if l.strip()]


def main():
    case, root = sys.argv[1], sys.argv[2]
    setup = os.path.join(root, "scripts", "setup.sh")
    lock = os.path.join(root, "package-lock.json")
    installed = os.path.join(root, "node_modules", ".package-lock.json")
    if os.path.exists(lock) and (not os.path.exists(installed) or os.path.getmtime(lock) > os.path.getmtime(installed)):
        fail("node_modules is missing or older than package-lock.json: run scripts/setup.sh first "
             "(this test must not run npm ci in the repository)")
    with tempfile.TemporaryDirectory(prefix="dalkit-setup-") as tmp:
        build = os.path.join(tmp, "build")
        log = os.path.join(build, "logs", "build.log")
        if case == "interrupt":
            p = subprocess.Popen(["bash", setup, build], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 start_new_session=True)
            # Under way: CMake has written the build files and the build has started.
            deadline = time.monotonic() + 240
            while True:
                if p.poll() is not None:
                    out, err = p.communicate()
                    fail("setup.sh ended (exit %d) before the build was under way" % p.returncode, err.decode())
                if time.monotonic() > deadline:
                    os.killpg(p.pid, signal.SIGKILL)
                    fail("the build did not start within 240 s")
                try:
                    with open(log) as f:
                        if "Build files have been written" in f.read():
                            break
                except OSError:
                    pass
                time.sleep(0.2)
            time.sleep(2)
            os.killpg(p.pid, signal.SIGINT)
            try:
                out, err = p.communicate(timeout=120)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                fail("setup.sh still running 120 s after SIGINT")
            err = err.decode("utf-8", "replace")
            print("setup.sh exit %d; stderr:\n%s" % (p.returncode, err))
            if p.returncode != 130:
                fail("exit %d after Ctrl-C, expected 130" % p.returncode, err)
            ls = lines_of(err) + lines_of(out.decode("utf-8", "replace"))
            first = [l for l in ls if l.startswith("setup: first run: building ")]
            if len(first) != 1 or "the Go DAL" not in first[0] or build not in first[0]:
                fail("expected one 'setup: first run: building ... the Go DAL ... into %s' line" % build, err)
            if ls[-1] != "setup: interrupted":
                fail("last line %r, expected 'setup: interrupted'" % ls[-1], err)
            noise = [l for l in ls if not (l.startswith("setup: ") or l.startswith("deps: "))]
            if noise:
                fail("build output reached the terminal: %r" % noise[:5], err)
            if any("failed" in l for l in ls):
                fail("an interrupt was reported as a failure", err)
            if not os.path.getsize(log):
                fail("the build log is empty")
        elif case == "configure-failure":
            empty = os.path.join(tmp, "empty-root")
            os.mkdir(empty)
            p = subprocess.run(["bash", setup, build, "-DCMAKE_FIND_ROOT_PATH=" + empty,
                                "-DCMAKE_FIND_ROOT_PATH_MODE_INCLUDE=ONLY"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=240)
            err = p.stderr.decode("utf-8", "replace")
            print("setup.sh exit %d; stderr (last 15 lines):\n%s" % (p.returncode, "\n".join(err.splitlines()[-15:])))
            if p.returncode != 2:
                fail("exit %d after a failed configure, expected 2" % p.returncode, err)
            if "setup: configure (cmake) failed" not in err:
                fail("the failed step is not named", err)
            if "libmsgpack-cxx-dev" not in err:
                fail("the log shown does not name the missing package", err)
            if "build/logs/build.log" not in err and os.path.join("logs", "build.log") not in err:
                fail("the log's path is not given", err)
        else:
            fail("unknown case " + case)
    print("PASS")


if __name__ == "__main__":
    main()
