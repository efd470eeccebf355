"""call73's table: each `which` (the config text given to bench) per problem, its rounds and median, and
cuDNN's median over it (probe_table.py names configs by tiles, CTAs and scheduler, which merges several here)."""
import collections, csv, json, statistics, sys
d = sys.argv[1]
cudnn = {r["problem"]: float(r["median_us"]) for r in csv.DictReader(open(d + "/sdpa.csv")) if r["backend"] == "cudnn"}
runs = collections.defaultdict(list)
for line in open(d + "/probe.jsonl"):
    r = json.loads(line)
    runs[(r["problem"], r["which"])].append(r["kernel"]["median_us"])
last = None
for (p, w), v in runs.items():
    if p != last:
        print(p, "cuDNN", cudnn[p], "us")
        last = p
    m = statistics.median(v)
    print(f"   {w:36s} {' '.join(f'{x:.2f}' for x in v)} -> {m:8.2f} us  {cudnn[p] / m:.3f}x cuDNN")
