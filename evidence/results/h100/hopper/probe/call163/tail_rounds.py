# The chunk-tail rule's measurements by the size of the four-CTA grid's last round (tiles - 528 on the H100),
# over every MHA chunk of 17-64 queries with 529-659 tiles measured with both configs in call157 (build
# against build) and call160-163 (both configs named). Prints one line per chunk: keys, call, tiles, tiles
# in the last round, queries, causal, query heads, dtype, and how much faster the 128-row chunk config was
# than the four-CTA grid (%, median of two rounds each; negative: slower), then the counts by keys and round.
#   cd evidence/results/h100/hopper/probe && python3 call163/tail_rounds.py > call163/tail_rounds.txt
import collections, json, statistics

rows = collections.defaultdict(lambda: collections.defaultdict(list))
for call in ["call160", "call161", "call162", "call163"]:
    for line in open(f"{call}/p/hopper/probe.jsonl"):
        r = json.loads(line)
        rows[(call, r["problem"])]["128" if "block_m=128" in r["which"] else "64"].append(r["kernel"]["median_us"])
for line in open("call157/p/hopper/probe.jsonl"):
    r = json.loads(line)
    f = dict(kv.split("=") for kv in r["problem"].split(","))
    if int(f["sq"]) <= 64 and f["hq"] == f["hkv"]:  # the tail rule's shapes there (its new build: 128 rows)
        rows[("call157", r["problem"])]["128" if r["build"] == "new" else "64"].append(r["kernel"]["median_us"])
out = []
for (call, problem), v in rows.items():
    f = dict(kv.split("=") for kv in problem.split(","))
    tiles = int(f["b"]) * int(f["hq"])
    gain = statistics.median(v["64"]) / statistics.median(v["128"]) - 1
    out.append((int(f["skv"]), call, tiles, tiles - 528, int(f["sq"]), f["causal"], int(f["hq"]), f["dtype"],
                round(100 * gain, 1)))
out.sort()
for o in out:
    print("skv %5d  %s  tiles %d  last round %3d  sq %2d  causal %s  hq %2d  %s  %+5.1f%%" % o)
print()
for name, keys in [("under 600 keys", lambda s: s < 600), ("600-1024 keys", lambda s: 600 <= s <= 1024),
                   ("past 1024 keys", lambda s: s > 1024)]:
    for rname, rounds in [("last round < 40", lambda r: r < 40), ("last round >= 40", lambda r: r >= 40)]:
        g = [o[-1] for o in out if keys(o[0]) and rounds(o[3])]
        if g:
            print(f"{name}, {rname}: 128-row faster on {sum(x > 0 for x in g)} of {len(g)}, "
                  f"mean {statistics.mean(g):+.1f}%")
