#!/usr/bin/env python3
"""docs/native-result.schema.json against the native results we keep: every golden native JSON
(tests/golden/**/native-*.json) validates, and files broken in the ways a renderer could break
them (a key removed, a key the schema does not know, a wrong type, another schema_version) do
not. Needs python3-jsonschema (scripts/install-deps.sh); without it, skips (77)."""
import copy
import glob
import json
import os
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SKIP = 77

try:
    import jsonschema
except ImportError:
    # Debian's python3-jsonschema is /usr/bin/python3's; another python3 first in PATH lacks it.
    if os.path.exists("/usr/bin/python3") and sys.executable != "/usr/bin/python3":
        os.execv("/usr/bin/python3", ["/usr/bin/python3", *sys.argv])
    print("SKIP: python3-jsonschema is not installed (scripts/install-deps.sh installs it)")
    sys.exit(SKIP)


def errors(validator, document):
    return [f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}"
            for e in validator.iter_errors(document)]


def main():
    schema = json.load(open(os.path.join(ROOT, "docs", "native-result.schema.json")))
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    failed = []

    goldens = sorted(glob.glob(os.path.join(ROOT, "tests", "golden", "**", "native-*.json"),
                               recursive=True))
    if len(goldens) < 5:
        failed.append(f"only {len(goldens)} golden native JSON files found under tests/golden")
    for path in goldens:
        found = errors(validator, json.load(open(path)))
        name = os.path.relpath(path, ROOT)
        print(f"{name}: {'valid' if not found else 'INVALID'}")
        failed += [f"{name}: {e}" for e in found[:5]]

    base = json.load(open(os.path.join(ROOT, "tests", "golden", "report", "native-sender.json")))
    breakages = {
        "summary.total_bytes removed": lambda d: d["summary"].pop("total_bytes"),
        "an unknown top-level key": lambda d: d.__setitem__("throughput", 1),
        "an unknown spec key": lambda d: d["spec"].__setitem__("ports_per_thread", 4),
        "schema_version 2": lambda d: d.__setitem__("schema_version", 2),
        "total_bytes as a string": lambda d: d["summary"].__setitem__("total_bytes", "12"),
        "a negative byte count": lambda d: d["threads"][0].__setitem__("bytes", -1),
        "an unknown end cause": lambda d: d["end"].__setitem__("cause", "timeout"),
        "the peer's summary removed": lambda d: d["peer"].pop("summary"),
        "a peer inside the peer": lambda d: d["peer"].__setitem__("peer", copy.deepcopy(d["peer"])),
        "a direction inside the other direction": lambda d: d.__setitem__(
            "other_direction", {**copy.deepcopy(d), "other_direction": copy.deepcopy(d)}),
    }
    # Keys a result has only sometimes: valid with them (a Linux run measures its ksoftirqd).
    additions = {
        "the host's ksoftirqd time": lambda d: d["cpu"].__setitem__("softirq_threads_s", 0.42),
    }
    for what, adding in additions.items():
        added = copy.deepcopy(base)
        adding(added)
        found = errors(validator, added)
        print(f"with {what}: {'valid' if not found else 'INVALID'}")
        failed += [f"with {what}: {e}" for e in found[:5]]
    breakages["a negative ksoftirqd time"] = lambda d: d["cpu"].__setitem__("softirq_threads_s", -1)
    for what, breaking in breakages.items():
        broken = copy.deepcopy(base)
        breaking(broken)
        rejected = bool(errors(validator, broken))
        print(f"broken ({what}): {'rejected' if rejected else 'ACCEPTED'}")
        if not rejected:
            failed.append(f"the schema accepts a result with {what}")

    if failed:
        print("FAIL:\n  " + "\n  ".join(failed))
        return 1
    print("PASS")
    return 0


sys.exit(main())
