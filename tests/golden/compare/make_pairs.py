#!/usr/bin/env python3
"""Writes the golden pairs of `xttcp compare` (tests/unit/compare) from the native sender golden
file: each run is that file with its throughput set (bytes, CPU seconds, retransmits and packets
scaled with it, so only throughput moves). Run it here after changing the template; the unit
test asserts each pair's verdict, and the numbers below are chosen so the verdicts are clear."""
import copy
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
TEMPLATE = json.load(open(os.path.join(HERE, "..", "report", "native-sender.json")))


def run(gbps, **host):
    r = copy.deepcopy(TEMPLATE)
    scale = gbps * 1e9 * r["summary"]["duration_s"] / 8 / r["summary"]["total_bytes"]
    r["summary"]["total_bytes"] = int(r["summary"]["total_bytes"] * scale)
    for key in ("process_user_s", "process_system_s"):
        r["cpu"][key] = round(r["cpu"][key] * scale, 6)
    r["tcp"]["retrans_segs"] = int(r["tcp"]["retrans_segs"] * scale)
    for key in ("tx_packets", "rx_packets"):
        r["nic"][key] = int(r["nic"][key] * scale)
    r["host"].update(host)
    return r


def write(name, runs):
    if len(runs) == 1:
        doc = runs[0]
    else:  # the reader derives the statistics from the runs: they are left out here
        doc = {"schema": "xttcp-runs", "schema_version": 1,
               "tool": {"name": "xttcp", "version": TEMPLATE["tool"]["version"]},
               "repeat": {"count": len(runs), "pause_s": 0}, "runs": runs}
    with open(os.path.join(HERE, name), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


write("base.json", [run(g) for g in (10.0, 10.2, 9.9)])
write("regression.json", [run(g) for g in (8.0, 8.1, 7.9)])  # -20 %, tight: significant
write("improvement.json", [run(g) for g in (11.5, 11.7, 11.4)])  # +15 %
write("noise-base.json", [run(g) for g in (10.0, 11.5, 8.6)])
write("noise.json", [run(g) for g in (9.0, 10.8, 8.3)])  # -6.6 % but spread wide: not significant
write("environment.json", [run(g, kernel="6.19.0-new", cpu_model="AMD EPYC 9R14")
                           for g in (10.1, 9.9, 10.0)])
write("single-base.json", [run(10.0)])
write("single-regression.json", [run(9.0)])  # -10 %: only the threshold can say
write("single-same.json", [run(9.7)])  # -3 %
other = run(10.0)
other["spec"]["send_buffer"] = 65536
write("other-workload.json", [other])
