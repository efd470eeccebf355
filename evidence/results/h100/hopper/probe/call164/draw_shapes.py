# The shapes of probe/call164 (seed 20261164), drawn with scripts/probe_draw.py (no problem measured before):
#
# (1) call163's lead held out: d=64 MHA chunks of 17-64 queries over 600+ keys, all in the chunk-tail rule
#     (the build's default: the 128-row chunk config), by the tiles in the four-CTA grid's last round
#     (b x hq - 528): LONG, 40-131 of them (568-659 tiles), and SHORT, 1-39 (529-567 tiles), 600-3000 keys
#     log-uniform each. Prediction, written before the call: the 128-row config faster on at least six of the
#     eight LONG; the four-CTA grid faster on at least five of the eight SHORT.
# (2) call153's decode below cuDNN (b15 hq16 hkv2 sq1 skv22088 d64, 0.991x) taken as a class: decode steps
#     (1-4 queries) over 8000-32000 keys whose default splits the K/V range (an unsplit grid under half the
#     SMs), GQA groups 2-8, d=64/128. The shape itself and five drawn. No prediction on which split count
#     wins; the question is whether any count or deeper ring beats auto_splits's (16 at most) by more than
#     noise on most of them.
import math, random, sys
sys.path.insert(0, "scripts")
from probe_draw import used_problems, default_config, draw

binary = sys.argv[1]
used = used_problems(exclude_dir="call164")
rng = random.Random(20261164)
CHUNK = {"mma": "wgmma", "block_m": "128", "block_n": "128", "stages": "3", "overlap": "on", "pingpong": "on",
         "scheduler": "dynamic", "o_store": "tma"}


def chunk(lo_tiles, hi_tiles):
    def make():
        sq = rng.randint(17, 64)
        skv = int(math.exp(rng.uniform(math.log(600), math.log(3000))))
        while True:
            hq = rng.choice([8, 12, 16, 24, 28, 32, 40, 48, 64])
            tiles = rng.randint(lo_tiles, hi_tiles)
            if tiles % hq == 0:
                break
        key = f"b={tiles // hq},hq={hq},hkv={hq},sq={sq},skv={skv},d=64,causal={int(rng.random() < 0.5)}"
        return key, rng.choice(["fp16", "bf16"])
    return make


def in_rule(problem):
    config = dict(kv.split("=") for kv in default_config(binary, problem).split(","))
    return all(config[k] == v for k, v in CHUNK.items())


long_tail = draw(8, chunk(568, 659), in_rule, used)
short_tail = draw(8, chunk(529, 567), in_rule, used)


def decode():
    d = rng.choice([64, 128])
    group = rng.choice([2, 4, 7, 8])
    hkv = rng.choice([1, 2, 4, 8])
    b = rng.randint(1, max(1, 65 // hkv))
    skv = int(math.exp(rng.uniform(math.log(8000), math.log(32000))))
    key = f"b={b},hq={hkv * group},hkv={hkv},sq={rng.randint(1, 4)},skv={skv},d={d},causal={int(rng.random() < 0.3)}"
    return key, rng.choice(["fp16", "bf16"])


splits = lambda problem: "splits=1," not in default_config(binary, problem)
decodes = ["b=15,hq=16,hkv=2,sq=1,skv=22088,d=64,causal=0,dtype=fp16"] + draw(5, decode, splits, used)
print('LONG="' + " ".join(long_tail) + '"')
print('SHORT="' + " ".join(short_tail) + '"')
print('DECODE="' + " ".join(decodes) + '"')
