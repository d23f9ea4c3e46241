#!/usr/bin/env python3
"""Result paths that are not plain files. Each run happens in its own mount namespace with a
private /dev (a tmpfs with the nodes it needs), so no test can touch the host's device nodes
(a run as root once replaced a host's /dev/full with a regular file):
- -x /dev/full fails with exit 1 and the node stays a device; -O /dev/full too (a lost log);
- -x, -j, --json to /dev/null succeed and /dev/null stays a device; --json /dev/stdout prints;
- a symlinked result path keeps its link and replaces its target;
- a result path in a missing directory is refused before the test (exit 2)."""
import os
import shutil
import subprocess

from xttcp_e2e import SkipTest, check, free_port_block, run_cases, scratch_dir

# Builds the private /dev, runs xttcp, then prints each node's type (stat -c %F) after it.
NAMESPACE_SCRIPT = r"""
set -e
mount -t tmpfs -o mode=755 xttcp-dev /dev
mknod -m 666 /dev/null c 1 3
mknod -m 666 /dev/full c 1 7
ln -s /proc/self/fd/1 /dev/stdout
set +e
"$@"
echo "exit=$?" >&2
for node in /dev/null /dev/full /dev/stdout; do echo "$node: $(stat -c %F "$node")" >&2; done
"""


def in_private_dev(args, cwd=None):
    """Runs args in a new mount namespace with a private /dev; (exit code, stdout, stderr)."""
    if shutil.which("unshare") is None:
        raise SkipTest("unshare (util-linux) is not installed")
    if os.geteuid() != 0:
        raise SkipTest("a private /dev needs root (mount namespace and mknod)")
    done = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c",
                           NAMESPACE_SCRIPT, "sh", *args],
                          capture_output=True, text=True, timeout=60, cwd=cwd)
    lines = done.stderr.splitlines()
    codes = [line for line in lines if line.startswith("exit=")]
    check(codes, f"the namespace did not run xttcp:\n{done.stderr}")
    nodes = dict(line.split(": ", 1) for line in lines if line.startswith("/dev/"))
    check(nodes.get("/dev/null") == "character special file" and
          nodes.get("/dev/full") == "character special file" and
          nodes.get("/dev/stdout") == "symbolic link",
          f"a device node was replaced: {nodes}")
    return int(codes[-1][5:]), done.stdout, done.stderr


def local_run(xttcp, *options):
    # A free port, not the default 5001: another test or program may hold that one.
    return [xttcp, "--local", "-P", "1", "-n", "1", "-t", "1", "-Q",
            "-p", str(free_port_block(1)), *options]


def full_device(xttcp, started):
    code, _, err = in_private_dev(local_run(xttcp, "-x", "/dev/full"))
    check(code == 1, f"-x /dev/full exited {code}, expected 1")
    check("cannot write /dev/full: No space left on device" in err, f"no clear error:\n{err}")
    code, _, err = in_private_dev(local_run(xttcp, "-O", "/dev/full"))
    check(code == 1, f"-O /dev/full exited {code}, expected 1 (the log was lost)")
    check("-O: cannot write log file /dev/full: No space left on device" in err,
          f"no clear error for the log:\n{err}")


def null_and_stdout(xttcp, started):
    code, _, err = in_private_dev(
        local_run(xttcp, "-x", "/dev/null", "-j", "/dev/null", "--json", "/dev/null"))
    check(code == 0, f"results to /dev/null exited {code}:\n{err}")
    code, out, err = in_private_dev(local_run(xttcp, "--json", "/dev/stdout"))
    check(code == 0, f"--json /dev/stdout exited {code}:\n{err}")
    check('"schema": "xttcp-result"' in out, "the native JSON did not reach stdout")
    code, out, err = in_private_dev([xttcp, "--dialect", "windows", "-s", "-m", "1,*,127.0.0.1",
                                     "-t", "1", "-xml", "/dev/stdout", "--connect-timeout", "1",
                                     "-p", str(free_port_block(1))])
    check("cannot write" not in err, f"-xml /dev/stdout was refused:\n{err}")


def symlink(xttcp, started):
    work = scratch_dir()
    os.symlink("real.xml", os.path.join(work, "latest.xml"))
    code, _, err = in_private_dev(local_run(xttcp, "-x", "latest.xml"), cwd=work)
    check(code == 0, f"-x through a symlink exited {code}:\n{err}")
    check(os.path.islink(os.path.join(work, "latest.xml")), "the symlink was replaced")
    with open(os.path.join(work, "real.xml")) as f:
        check("<ntttcps" in f.read(), "the link's target did not get the XML")


def missing_directory(xttcp, started):
    for option in ("-x", "-j", "--json"):
        done = subprocess.run(local_run(xttcp, option, "/nonexistent-xttcp/dir/r.out"),
                              capture_output=True, text=True, timeout=30)
        check(done.returncode == 2, f"{option} in a missing directory exited {done.returncode}")
        check(f"{option}: cannot write /nonexistent-xttcp/dir/r.out: No such file or directory "
              "(its directory does not exist)" in done.stderr, f"no clear error:\n{done.stderr}")
        check("Network activity" not in done.stdout, f"{option}: the test ran before the check")


CASES = {
    "full-device": full_device,
    "null-and-stdout": null_and_stdout,
    "symlink": symlink,
    "missing-directory": missing_directory,
}

if __name__ == "__main__":
    raise SystemExit(run_cases(CASES))
