# The shapes of probe/call157 (seed 20261157), to hold out two rules build against build: the rules' build
# (NEW) against the one before them (BASE, d821a02). used.txt held every problem string in evidence/,
# scripts/ and tests/ at the rules' commit (call155-156's shapes among them).
#   TAILS: d=64 MHA chunks of 17-64 queries, 529-659 of them (b x hq), causal or not, 400-16000 keys, whose
#     default the chunk-tail rule moves to the 128-row chunk config.
#   GRIDS: non-causal d=64 prefill (128-4096 queries, as many keys or 1.5-4x more) whose default is a plain
#     grid that the store rule moves to o_store=tma; PACKED: two packed chunks (17-127 queries, GQA) it moves.
import math, random, subprocess, sys
used = set(open(sys.argv[1]).read().split())
base, new = sys.argv[2], sys.argv[3]
rng = random.Random(20261157)

def default(problem, binary):
    r = subprocess.run([binary, "compile", "--problem", problem, "--target", "sm_90a", "--config", "default"],
                       capture_output=True, text=True, check=True)
    return r.stdout.splitlines()[0]

def draw(count, make, wanted):
    out = []
    while len(out) < count:
        key, dtype = make()
        if key in used: continue
        problem = key + f",dtype={dtype}"
        if not wanted(default(problem, base), default(problem, new)): continue
        used.add(key); out.append(problem)
    return out

def tail():
    sq = rng.randint(17, 64); causal = rng.random() < 0.5
    skv = int(math.exp(rng.uniform(math.log(400), math.log(16000))))
    while True:
        hq = rng.choice([8, 12, 16, 24, 28, 32, 40, 48, 64])
        tiles = rng.randint(529, 659)
        if tiles % hq == 0 and tiles // hq <= 64: break
    return f"b={tiles // hq},hq={hq},hkv={hq},sq={sq},skv={skv},d=64,causal={int(causal)}", rng.choice(["fp16", "bf16"])

def grid():
    hq = rng.choice([8, 12, 16, 24, 28, 32, 40, 48, 64])
    g = rng.choice([g for g in [1, 2, 4, 7, 8] if hq % g == 0])
    sq = int(math.exp(rng.uniform(math.log(128), math.log(4096))))
    skv = sq if rng.random() < 0.5 else int(sq * rng.choice([1.5, 2, 3, 4]))
    b = rng.randint(1, min(64, max(1, int(0.5e-3 * 5e14 / (4 * hq * sq * skv * 64)))))
    return f"b={b},hq={hq},hkv={hq // g},sq={sq},skv={skv},d=64,causal=0", rng.choice(["fp16", "bf16"])

def packed():
    hq = rng.choice([16, 24, 32, 40, 48, 64])
    g = rng.choice([g for g in [2, 4, 8] if hq % g == 0])
    sq = rng.randint(17, 127)
    skv = int(math.exp(rng.uniform(math.log(512), math.log(16384))))
    b = rng.randint(1, 64)
    return f"b={b},hq={hq},hkv={hq // g},sq={sq},skv={skv},d=64,causal=0", rng.choice(["fp16", "bf16"])

to_128 = lambda old, new: "min_ctas=4" in old and "block_m=128," in new
to_tma = lambda old, new: "scheduler=grid" in new and "o_store=threads" in old and "o_store=tma" in new
print('TAILS="' + " ".join(draw(8, tail, to_128)) + '"')
print('GRIDS="' + " ".join(draw(8, grid, to_tma)) + '"')
print('PACKED="' + " ".join(draw(2, packed, to_tma)) + '"')
