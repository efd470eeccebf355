# The shapes of probe/call155 (seed 20261155), two classes of d=64 shapes whose default call153 found below
# cuDNN, each drawn at random and kept only where `evotune compile --config default` (this build) gives the
# config in question. used.txt held every problem string in evidence/, scripts/ and tests/ at 289a323.
#   CHUNKS: unpacked MHA-like chunks of 17-64 queries (short_chunk_unpacked's 64-row four-CTA grid), causal
#     or not, 256-16384 keys, GQA groups that do not pack (1, 7, or too few packed rows), ~1 ms of K/V reads.
#   LONGNC: non-causal prefill of 192-4096 queries over more than 1024 keys whose default is a plain grid
#     (the 192-row walk's padding or wave bound not met), as many keys as queries or 1.5-4x more.
import math, random, subprocess, sys
used = set(open(sys.argv[1]).read().split())
evotune = sys.argv[2]
rng = random.Random(20261155)

def default(problem):
    r = subprocess.run([evotune, "compile", "--problem", problem, "--target", "sm_90a", "--config", "default"],
                       capture_output=True, text=True, check=True)
    return r.stdout.splitlines()[0]

def draw(count, make, wanted):
    out = []
    while len(out) < count:
        key, dtype = make()
        if key in used: continue
        problem = key + f",dtype={dtype}"
        if not wanted(default(problem)): continue
        used.add(key); out.append(problem)
    return out

def chunk():
    sq = rng.randint(17, 64); causal = rng.random() < 0.5
    hq = rng.choice([8, 12, 16, 24, 28, 32, 40, 48, 64])
    g = rng.choice([g for g in [1, 2, 4, 7, 8] if hq % g == 0])
    skv = int(math.exp(rng.uniform(math.log(256), math.log(16384))))
    b = rng.randint(1, min(64, max(1, int(3e9 / (hq * skv * 256)))))
    return f"b={b},hq={hq},hkv={hq // g},sq={sq},skv={skv},d=64,causal={int(causal)}", rng.choice(["fp16", "bf16"])

def longnc():
    hq = rng.choice([8, 12, 16, 24, 28, 32, 40, 48, 64])
    g = rng.choice([g for g in [1, 2, 4, 7, 8] if hq % g == 0])
    sq = int(math.exp(rng.uniform(math.log(192), math.log(4096))))
    skv = sq if rng.random() < 0.5 else int(sq * rng.choice([1.5, 2, 3, 4]))
    if skv <= 1024: return longnc()
    b = rng.randint(1, min(64, max(1, int(1.5e-3 * 5e14 / (4 * hq * sq * skv * 64)))))
    return f"b={b},hq={hq},hkv={hq // g},sq={sq},skv={skv},d=64,causal=0", rng.choice(["fp16", "bf16"])

chunks = draw(16, chunk, lambda c: "block_m=64," in c and "min_ctas=4" in c and "scheduler=grid" in c)
longs = draw(14, longnc, lambda c: "scheduler=grid" in c and "block_m=64," not in c)
print('CHUNKS="' + " ".join(chunks) + '"')
print('LONGNC="' + " ".join(longs) + '"')
