#!/usr/bin/env python3
"""--backend auto by measurement (docs/data-paths.md, "How auto chooses"): without a record auto
takes its rule and says so on the console and in the result; `xttcp calibrate` measures each
kernel data path on loopback and records the faster per workload shape; a run of a measured
shape takes the recorded path and says why; a record whose figures favour the other path is
followed (so the choice is the record's, not the rule's); a damaged record is said and ignored;
under --defaults ntttcp the console stays the original's while the result still says it.
Each case has a cache directory of its own (XDG_CACHE_HOME). Cases: auto_measured_test.py XTTCP
[CASE...]"""
import copy
import json
import os
import subprocess

from xttcp_e2e import (Failure, SkipTest, check, load_json, run_cases, scratch_dir,
                       socket_backends)

ONE_CONNECTION = ["-P", "1", "-n", "1", "-l", "1"]


def env_with_cache(cache):
    env = dict(os.environ)
    env["XDG_CACHE_HOME"] = cache
    return env


def run(args, cache, timeout=120):
    done = subprocess.run(args, capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL, env=env_with_cache(cache))
    return done


def local_run(xttcp, cache, extra=()):
    """A one-second --local run: its auto line (or None), its result and its exit code."""
    out = scratch_dir()
    result = os.path.join(out, "local.json")
    done = run([xttcp, "--local", "-t", "1", *extra, "--json", result], cache)
    check(done.returncode == 0, f"--local exited {done.returncode}:\n{done.stdout}{done.stderr}")
    lines = [line for line in (done.stdout + done.stderr).splitlines()
             if "--backend auto: " in line]
    check(len(lines) <= 1, f"the auto line is said {len(lines)} times:\n{done.stdout}")
    return (lines[0].split("--backend auto: ", 1)[1] if lines else None), load_json(result)


def record_path(cache):
    return os.path.join(cache, "xttcp", "auto-backend.json")


def rule_without_record(xttcp, started):
    cache = scratch_dir()
    said, result = local_run(xttcp, cache)
    check(said is not None, "no '--backend auto:' line on the console")
    check(": the rule for this build" in said and "not measured on this host" in said,
          f"the line does not say it is the rule, and why: {said}")
    check(said.startswith(result["backend"] + ": "), f"the line names another backend: {said}")
    choice = result.get("backend_choice")
    check(choice == {"asked": "auto", "why": said}, f"the result's backend_choice: {choice}")
    check(not os.path.exists(record_path(cache)), "a run without calibrate wrote a record")
    named, named_result = local_run(xttcp, cache, ["--backend", result["backend"]])
    check(named is None and "backend_choice" not in named_result,
          "a named backend is said to be auto's choice")


def calibrate(xttcp, cache):
    done = run([xttcp, "calibrate", "-t", "1", "--repeat", "1"], cache, timeout=300)
    check(done.returncode == 0, f"calibrate exited {done.returncode}:\n{done.stdout}{done.stderr}")
    with open(record_path(cache), encoding="utf-8") as f:
        record = json.load(f)
    check(record["schema"] == "xttcp-auto-backend" and record["schema_version"] == 3,
          f"the record's schema: {record.get('schema')} {record.get('schema_version')}")
    return done, record


_CALIBRATED = {}


def calibrated(xttcp):
    """One calibration of this host for every case that needs one (about a minute under a
    sanitizer, with calibrate's warm-ups: two made the test outrun its time): (cache, calibrate's
    output, its record). The cases only read that cache; one that changes a record writes its
    own copy elsewhere."""
    if "run" not in _CALIBRATED:
        cache = scratch_dir()
        _CALIBRATED["run"] = (cache, *calibrate(xttcp, cache))
    return _CALIBRATED["run"]


def entry(record, shape):
    found = [e for e in record["entries"] if e["shape"] == shape]
    check(len(found) == 1, f"{len(found)} entries for {shape} in the record")
    return found[0]


def calibrate_then_follow(xttcp, started):
    if len(socket_backends(xttcp)) < 2:
        raise SkipTest("one kernel data path here: nothing to choose between")
    cache, done, record = calibrated(xttcp)
    shapes = sorted(e["shape"] for e in record["entries"])
    check(shapes == ["tcp/1/copy", "tcp/1/no-copy", "tcp/many/copy", "tcp/many/no-copy"],
          f"calibrate recorded {shapes}")
    for e in record["entries"]:
        check({p["backend"] for p in e["paths"]} == set(socket_backends(xttcp)),
              f"{e['shape']} measured {[p['backend'] for p in e['paths']]}")
        check(all(p["throughput_min_gbps"] <= p["throughput_gbps"] <= p["throughput_max_gbps"]
                  and p["runs"] >= 1 and p["cpu_s_per_gb"] > 0 for p in e["paths"]),
              f"{e['shape']}: a path without figures: {e['paths']}")
        check(f"auto takes {e['chosen']}: " in done.stdout, f"calibrate did not say {e['shape']}")
        # --repeat 1: one run each says nothing of the spread, so calibrate measured more.
        check(all(p["runs"] >= 2 for p in e["paths"]), f"{e['shape']}: one run decided")
    check("the runs overlap: one more round" in done.stderr,
          f"calibrate never measured more rounds:\n{done.stderr}")
    shown = run([xttcp, "calibrate", "--show"], cache)
    check(shown.returncode == 0 and shown.stdout.count("auto takes ") == 4,
          f"calibrate --show:\n{shown.stdout}{shown.stderr}")
    backends = run([xttcp, "backends"], cache)
    check(backends.stdout.count("auto (measured):") == 4, f"xttcp backends:\n{backends.stdout}")
    said, result = local_run(xttcp, cache, ONE_CONNECTION)
    chosen = entry(record, "tcp/1/no-copy")["chosen"]
    check(result["backend"] == chosen,
          f"the run took {result['backend']}; the record says {chosen} for 1 connection")
    check(said is not None and said.startswith(f"{chosen}: ") and "measured on this host" in said,
          f"the auto line: {said}")


def record_is_followed(xttcp, started):
    """The record's figures favour the path the rule would not take: the run takes it."""
    if len(socket_backends(xttcp)) < 2:
        raise SkipTest("one kernel data path here: nothing to choose between")
    cache = scratch_dir()
    rule, _ = local_run(xttcp, cache, ONE_CONNECTION)
    rule_backend = rule.split(":", 1)[0]
    record = copy.deepcopy(calibrated(xttcp)[2])  # this host's identity, its figures rewritten
    os.makedirs(os.path.dirname(record_path(cache)), exist_ok=True)
    other = next(b for b in socket_backends(xttcp) if b != rule_backend)
    for e in record["entries"]:
        for p in e["paths"]:
            gbps = 50.0 if p["backend"] == other else 10.0
            p["throughput_gbps"] = p["throughput_min_gbps"] = p["throughput_max_gbps"] = gbps
        e["chosen"] = other
    with open(record_path(cache), "w", encoding="utf-8") as f:
        json.dump(record, f)
    said, result = local_run(xttcp, cache, ONE_CONNECTION)
    check(result["backend"] == other, f"the run took {result['backend']}, the record says {other}")
    check(f"{other}: 5.00x {rule_backend}'s throughput" in said, f"the auto line: {said}")
    # A choice its own figures do not make is not followed: the rule again, and it is said.
    record["entries"][0]["chosen"] = rule_backend
    with open(record_path(cache), "w", encoding="utf-8") as f:
        json.dump(record, f)
    said, result = local_run(xttcp, cache, ONE_CONNECTION)
    check(result["backend"] == rule_backend and "the record is ignored" in said,
          f"a tampered record: took {result['backend']}, said {said}")


def damaged_record(xttcp, started):
    cache = scratch_dir()
    os.makedirs(os.path.dirname(record_path(cache)))
    for content in ("not json at all", "[" * 100000, json.dumps({"schema": "other"}),
                    json.dumps({"schema": 4})):  # a number: the old binary threw and aborted
        with open(record_path(cache), "w", encoding="utf-8") as f:
            f.write(content)
        said, _ = local_run(xttcp, cache)
        check(said is not None and "the record is ignored: " in said and
              record_path(cache) in said, f"a damaged record ({content[:20]!r}): {said}")
    # The commands that read the record say so in one line too (the old binary aborted).
    backends = run([xttcp, "backends"], cache)
    check(backends.returncode == 0 and "terminate" not in backends.stderr,
          f"xttcp backends with a damaged record: {backends.returncode}\n{backends.stderr}")
    shown = run([xttcp, "calibrate", "--show"], cache)
    check(shown.returncode == 1 and len(shown.stderr.strip().splitlines()) == 1 and
          record_path(cache) in shown.stderr,
          f"calibrate --show with a damaged record: {shown.returncode}\n{shown.stderr}")
    with open(record_path(cache), "wb") as f:
        f.write(b" " * (300 * 1024))
    said, _ = local_run(xttcp, cache)
    check("over the limit" in said, f"an oversized record: {said}")


def bad_arguments(xttcp, started):
    cache = scratch_dir()
    for args, words in ((["-t", "0"], "calibrate: -t: '0' is not a whole number from 1 to 60"),
                        (["--repeat", "11"], "calibrate: --repeat: '11'"),
                        (["--show", "-t", "1"], "calibrate: --show measures nothing"),
                        (["--bogus"], "calibrate: unknown option '--bogus'"),
                        (["-t"], "calibrate: -t needs a value")):
        done = run([xttcp, "calibrate", *args], cache)
        lines = done.stderr.strip().splitlines()
        check(done.returncode == 2 and len(lines) == 1 and words in lines[0],
              f"calibrate {' '.join(args)}: exit {done.returncode}, stderr {done.stderr!r}")
        check(not os.path.exists(record_path(cache)), "a refused calibrate wrote a record")
    # A record it could not keep is said before anything is measured: exit 1, one line.
    not_a_dir = os.path.join(cache, "a-file")
    with open(not_a_dir, "w", encoding="utf-8") as f:
        f.write("x")
    os.makedirs(record_path(os.path.join(cache, "dir")))  # the record's name is a directory
    homeless = dict(os.environ)
    homeless.pop("HOME", None)
    homeless.pop("XDG_CACHE_HOME", None)
    for env, words in ((env_with_cache(not_a_dir), "calibrate: cannot create"),
                       (env_with_cache(os.path.join(cache, "dir")), "Is a directory"),
                       (homeless, "calibrate: no cache directory to keep the record in")):
        done = subprocess.run([xttcp, "calibrate"], capture_output=True, text=True, timeout=60,
                              stdin=subprocess.DEVNULL, env=env)
        lines = done.stderr.strip().splitlines()
        check(done.returncode == 1 and len(lines) == 1 and words in lines[0]
              and "round" not in done.stderr, f"calibrate without a record to keep: exit "
              f"{done.returncode}, stderr {done.stderr!r}")
    helped = run([xttcp, "calibrate", "--help"], cache)
    check(helped.returncode == 0 and "127.0.0.1 only" in helped.stdout, "calibrate --help")


def original_console_kept(xttcp, started):
    """--defaults ntttcp runs epoll as the original does; asked for auto, its console stays the
    original's and only the result says why."""
    cache = scratch_dir()
    said, result = local_run(xttcp, cache, ["--defaults", "ntttcp", "--backend", "auto"])
    check(said is None, f"--defaults ntttcp printed the auto line: {said}")
    check("the rule for this build" in result["backend_choice"]["why"],
          f"the result lacks the reason: {result.get('backend_choice')}")


CASES = {
    "rule-without-record": rule_without_record,
    "calibrate-then-follow": calibrate_then_follow,
    "record-is-followed": record_is_followed,
    "damaged-record": damaged_record,
    "bad-arguments": bad_arguments,
    "original-console-kept": original_console_kept,
}

if __name__ == "__main__":
    raise SystemExit(run_cases(CASES))
