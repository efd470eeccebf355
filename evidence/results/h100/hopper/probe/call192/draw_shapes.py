# The shapes of probe/call192 (seed 20261195), drawn with scripts/probe_draw.py (2026-11-27, eighth session):
# call191's lowest decode step as a class. b113 hq8 hkv2 sq1 skv20478 d128 fp16 was 0.965x cuDNN (2.86
# against 2.97 TB/s): an unsplit grid of 226 CTAs of the 16-row d=128 tile (two an SM), one wave past the
# SMs, where 94 SMs run two CTAs and 38 one; call182's b138 hq2 hkv1 sq1 skv10383 (138 CTAs) 0.980x is one
# too. ONEWAVE: both and eight drawn decode steps (1-8 queries, 2000-32000 keys; two thirds MHA of 8-40
# heads, a third GQA packed into 16 rows; a fifth causal) whose default is such a grid, 133-263 CTAs.
# Configs (run.sh): the default (two stages); three stages; 2 chunks; 128-key blocks two deep (one CTA an
# SM: 1-2 waves of 132); the wgmma mainloop's TMA ring, 64 rows of 128-key blocks three deep (one an SM);
# 64-row wgmma tiles of 64-key blocks four deep.
# Predictions, written before any measurement:
#   the default below cuDNN on at least 5 of the 9 non-causal (the class sits 1-4% under it)
#   2 chunks slower than the default on at least 7 of 10 (call188's b41, 164 CTAs: 6.8% slower)
#   the wgmma 64x128 config faster than the default on at least 5 of the 9 non-causal (call188: TMA's ring
#     faster on 6 of 10 MHA decode grids), and 10%+ slower where its grid has a last wave under half the SMs
# Usage, from the repository root: draw_shapes.py BINARY (a build of 0ac4626 or later).
import math, random, sys
sys.path.insert(0, "scripts")
from probe_draw import used_problems, default_config, draw, fields, unsplit_ctas

binary = sys.argv[1]
used = used_problems(exclude_dir="call192")
rng = random.Random(20261195)


def one():
    if rng.random() < 2 / 3:
        hkv = hq = rng.choice([8, 12, 16, 24, 32, 40])
        sq = rng.randint(1, 8)
    else:
        hkv = rng.choice([1, 2, 4, 8])
        group = rng.choice([2, 4, 8])
        hq = hkv * group
        sq = rng.randint(1, 16 // group)
    skv = int(math.exp(rng.uniform(math.log(2000), math.log(32000))))
    key = f"b={rng.randint(1, 200)},hq={hq},hkv={hkv},sq={sq},skv={skv},d=128,causal={int(rng.random() < 0.2)}"
    return key, rng.choice(["fp16", "bf16"])


def wanted(problem):
    p = fields(problem)
    if int(p["b"]) * int(p["hkv"]) * int(p["skv"]) * int(p["d"]) * 4 > 6e9:
        return False
    config = default_config(binary, problem)
    c = fields(config)
    return (c["mma"] == "mma_sync" and c["block_m"] == "16" and c["splits"] == "1"
            and 132 < unsplit_ctas(problem, config) < 264)


shapes = ["b=113,hq=8,hkv=2,sq=1,skv=20478,d=128,causal=0,dtype=fp16",
          "b=138,hq=2,hkv=1,sq=1,skv=10383,d=128,causal=0,dtype=fp16"]
shapes += draw(8, one, wanted, used)
print('ONEWAVE="' + " ".join(shapes) + '"')
