# The shapes of probe/call190 (seed 20261192), drawn with scripts/probe_draw.py (2026-11-27, eighth session):
# the holdout of the lone-last-wave split rule (heuristic_config, after probe/call188-189): a d=128 decode grid
# of the 16-row tile (two an SM, 264 slots) of 2-6 waves whose last wave holds 34-131 CTAs runs in 2 chunks of
# 1024+ keys, two stages deep.
# LONE: ten decode steps (1-8 queries, 2048-32000 keys; two thirds MHA of 8-40 heads, a third GQA packed
#   into 16 rows; a third causal) whose default the rule moves from unsplit to 2 chunks.
# EDGE: four such steps the rule leaves whole: a last wave of 132+ or of 33 or fewer, or past 6 waves.
# Each step's K/V bytes at most 6 GB (~2 ms at 3 TB/s).
# Configs (run.sh): the default; unsplit (splits=1, the default's stages: the previous default on LONE); 2
# chunks (on EDGE).
# Predictions, written before any measurement:
#   LONE: the default faster than unsplit on at least 8 of 10, by 2%+ on at least 5, and more than 1% slower
#     on none
#   LONE: the default at or above the stronger library (cuDNN, or flash where causal) on at least 9 of 10
#   EDGE: 2 chunks not 1.5%+ faster than whole on more than one of the 4
# Usage, from the repository root: draw_shapes.py BINARY (a build with the rule).
import math, random, sys
sys.path.insert(0, "scripts")
from probe_draw import used_problems, default_config, draw, fields, unsplit_ctas

binary = sys.argv[1]
used = used_problems(exclude_dir="call190")
rng = random.Random(20261192)


def one():
    if rng.random() < 2 / 3:
        hkv = hq = rng.choice([8, 12, 16, 24, 32, 40])
        sq = rng.randint(1, 8)
    else:
        hkv = rng.choice([2, 4, 8])
        group = rng.choice([2, 4, 8])
        hq = hkv * group
        sq = rng.randint(1, 16 // group)
    skv = int(math.exp(rng.uniform(math.log(2048), math.log(32000))))
    key = f"b={rng.randint(1, 200)},hq={hq},hkv={hkv},sq={sq},skv={skv},d=128,causal={int(rng.random() < 0.3)}"
    return key, rng.choice(["fp16", "bf16"])


def small(problem):
    p = fields(problem)
    return int(p["b"]) * int(p["hkv"]) * int(p["skv"]) * int(p["d"]) * 4 <= 6e9


def lone(problem):
    c = fields(default_config(binary, problem))
    return small(problem) and c["mma"] == "mma_sync" and c["block_m"] == "16" and c["splits"] == "2" and \
        unsplit_ctas(problem, ",".join(f"{k}={v}" for k, v in c.items())) > 264


def edge(problem):
    config = default_config(binary, problem)
    c = fields(config)
    if not (small(problem) and c["mma"] == "mma_sync" and c["block_m"] == "16" and c["splits"] == "1"):
        return False
    ctas = unsplit_ctas(problem, config)
    last = ctas % 264
    return ctas > 264 and (last >= 132 or last <= 33 or ctas > 6 * 264)


print('LONE="' + " ".join(draw(10, one, lone, used)) + '"')
print('EDGE="' + " ".join(draw(4, one, edge, used)) + '"')
