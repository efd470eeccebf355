# How non-causal MHA d=128 decode (sq <= 16, skv >= 1000) stood in the probe tables before probe/call188: each
# shape's first config row (the default in most calls), against the stronger library. Run from the
# repository root: python3 evidence/results/h100/hopper/probe/call188/class_so_far.py
import glob, re

ratios = {}
for path in sorted(glob.glob("evidence/results/h100/hopper/probe/call*/table*.txt")):
    problem, first = None, False
    for line in open(path):
        if line.startswith("b="):
            problem, first = line.split()[0], True
            continue
        if problem and first and "x cuDNN" in line:
            first = False
            p = dict(kv.split("=") for kv in problem.split(","))
            if (p["hq"] == p["hkv"] and p["d"] == "128" and p["causal"] == "0" and int(p["sq"]) <= 16
                    and int(p["skv"]) >= 1000):
                m = re.search(r"([\d.]+)x cuDNN(?:, ([\d.]+)x flash)?", line)
                ratios[problem] = min(float(m.group(1)), float(m.group(2) or "inf"))
values = sorted(ratios.values())
print(f"{len(values)} shapes, {sum(v < 1 for v in values)} below the stronger library "
      f"({values[0]:.3f}-{max(v for v in values if v < 1):.3f}x), median {values[len(values) // 2]:.3f}x")
