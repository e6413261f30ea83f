#!/usr/bin/env python3
"""Configure the kit with its dependencies out of reach; configuring must
fail, before any build, naming each missing dependency's Debian package.

Stdlib only.  The dependencies are made unfindable the way a machine that
lacks them is, with the real find commands:
  headers  CMAKE_FIND_ROOT_PATH=<empty dir>, ..._MODE_INCLUDE=ONLY: find_path
           (msgpack.hpp, sqlite3.h) searches only the empty dir.
  all      also ..._MODE_LIBRARY=ONLY and ..._MODE_PACKAGE=ONLY (libraries,
           CMake packages such as GTest), PKG_CONFIG_LIBDIR=<empty dir>
           (libffi), and PATH without the directories holding `go`.
The compilers and the build tool are passed by absolute path, so only the
dependencies are out of reach.

Usage: check_missing_deps.py --missing all|headers --cmake CMAKE --source DIR
         --generator G --make-program P --c-compiler CC --cxx-compiler CXX
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

# What each case must name, and what it must not.
EXPECT = {
    "all": (["libmsgpack-cxx-dev", "nlohmann-json3-dev", "libsqlite3-dev", "libffi-dev", "libgtest-dev", "Go >= 1."], []),
    "headers": (["libmsgpack-cxx-dev", "nlohmann-json3-dev", "libsqlite3-dev"], ["libgtest-dev", "libffi-dev", "Go >= 1."]),
}


def main():
    ap = argparse.ArgumentParser()
    for a in ("--missing", "--cmake", "--source", "--generator", "--make-program", "--c-compiler",
              "--cxx-compiler"):
        ap.add_argument(a, required=True)
    a = ap.parse_args()
    must, must_not = EXPECT[a.missing]
    must = list(must)
    if a.missing == "all" and os.path.exists(os.path.join(a.source, "addon", "CMakeLists.txt")):
        must.append("npm ci")  # the addon's headers come from node_modules

    with tempfile.TemporaryDirectory(prefix="dalkit-deps-") as tmp:
        empty = os.path.join(tmp, "empty-root")
        build = os.path.join(tmp, "build")
        os.mkdir(empty)
        cmd = [a.cmake, "-S", a.source, "-B", build, "-G", a.generator,
               "-DCMAKE_MAKE_PROGRAM=" + a.make_program,
               "-DCMAKE_C_COMPILER=" + a.c_compiler, "-DCMAKE_CXX_COMPILER=" + a.cxx_compiler,
               "-DCMAKE_FIND_ROOT_PATH=" + empty, "-DCMAKE_FIND_ROOT_PATH_MODE_INCLUDE=ONLY"]
        env = dict(os.environ)
        if a.missing == "all":
            cmd += ["-DCMAKE_FIND_ROOT_PATH_MODE_LIBRARY=ONLY", "-DCMAKE_FIND_ROOT_PATH_MODE_PACKAGE=ONLY"]
            env["PKG_CONFIG_LIBDIR"] = empty
            env.pop("PKG_CONFIG_PATH", None)
            path = [d for d in env.get("PATH", "").split(os.pathsep)
                    if d and not os.access(os.path.join(d, "go"), os.X_OK)]
            env["PATH"] = os.pathsep.join(path)
            if shutil.which("go", path=env["PATH"]):
                print("FAIL: could not take Go off PATH")
                sys.exit(1)
            if not shutil.which("pkg-config", path=env["PATH"]):
                # Go shares a directory with pkg-config here; point CMake at it directly.
                pc = shutil.which("pkg-config")
                if pc:
                    cmd.append("-DPKG_CONFIG_EXECUTABLE=" + pc)
        print("ran: " + " ".join(cmd))
        p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=150)
        out = p.stdout.decode("utf-8", "replace")
        built = os.path.exists(os.path.join(build, "build.ninja")) or os.path.exists(os.path.join(build, "Makefile"))

    def fail(msg):
        print("FAIL: " + msg)
        print("---- cmake output (last 60 lines) ----")
        print("\n".join(out.splitlines()[-60:]))
        sys.exit(1)

    if p.returncode == 0:
        fail("configuring succeeded with the dependencies out of reach")
    if built:
        fail("a build system was generated although configuring failed")
    if "dalkit: missing build dependencies" not in out:
        fail("configuring failed, but not at the kit's dependency check")
    for text in must:
        if text not in out:
            fail("the message does not name %r" % text)
    for text in must_not:
        if text in out:
            fail("the message names %r, which is installed" % text)
    print("\n".join(l for l in out.splitlines() if " -- " in l or "apt-get" in l))
    print("PASS")


if __name__ == "__main__":
    main()
