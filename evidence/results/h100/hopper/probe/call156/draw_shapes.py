# The shapes of probe/call156 (seed 20261156). used.txt held every problem string in evidence/, scripts/ and
# tests/ at the rule's commit (call155's shapes among them); BASE is the build before the rule (5b28957).
#   HELDOUT: call155's draw of non-causal d=64 prefill over 1025+ keys whose default before the rule was a
#     plain grid (o_store=threads), new shapes, to hold the rule out build against build: the first twelve
#     drawn whose default the rule moves (NEW, the rule's build).
#   FOURS: five more of that draw that the rule moves to the four-CTA config (groups of one or two).
#   GRIDS: those drawn before the twelfth that it does not move (the 192-row walk's wave bound not met).
#   TAILS: MHA chunks of 17-64 queries (the four-CTA grid, 4 x 132 slots) of at least one full round whose
#     last round holds at most one tile an SM (12 shapes) or one to two (4), causal or not, 400-16000 keys.
import math, random, subprocess, sys
used = set(open(sys.argv[1]).read().split())
base, new = sys.argv[2], sys.argv[3]
rng = random.Random(20261156)

def default(problem, binary=base):
    r = subprocess.run([binary, "compile", "--problem", problem, "--target", "sm_90a", "--config", "default"],
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

def longnc():
    hq = rng.choice([8, 12, 16, 24, 28, 32, 40, 48, 64])
    g = rng.choice([g for g in [1, 2, 4, 7, 8] if hq % g == 0])
    sq = int(math.exp(rng.uniform(math.log(192), math.log(4096))))
    skv = sq if rng.random() < 0.5 else int(sq * rng.choice([1.5, 2, 3, 4]))
    if skv <= 1024: return longnc()
    b = rng.randint(1, min(64, max(1, int(1.5e-3 * 5e14 / (4 * hq * sq * skv * 64)))))
    return f"b={b},hq={hq},hkv={hq // g},sq={sq},skv={skv},d=64,causal=0", rng.choice(["fp16", "bf16"])

def tail(lo, hi):
    def make():
        sq = rng.randint(17, 64); causal = rng.random() < 0.5
        skv = int(math.exp(rng.uniform(math.log(400), math.log(16000))))
        while True:
            hq = rng.choice([8, 12, 16, 24, 28, 32, 40, 48, 64])
            rounds = rng.randint(1, 4)
            last = rng.randint(lo, hi)
            if (rounds * 528 + last) % hq == 0 and (rounds * 528 + last) // hq <= 64: break
        b = (rounds * 528 + last) // hq
        return f"b={b},hq={hq},hkv={hq},sq={sq},skv={skv},d=64,causal={int(causal)}", rng.choice(["fp16", "bf16"])
    return make

def longnc_small_groups():
    key, dtype = longnc()
    f = dict(kv.split("=") for kv in key.split(","))
    return (key, dtype) if int(f["hq"]) <= 2 * int(f["hkv"]) else longnc_small_groups()

four_cta_grid = lambda c: "block_m=64," in c and "min_ctas=4" in c and "scheduler=grid" in c
heldout, grids = [], []
while len(heldout) < 12:
    problem = draw(1, longnc, lambda c: "scheduler=grid" in c and "block_m=64," not in c)[0]
    (heldout if default(problem) != default(problem, new) else grids).append(problem)
tails = draw(12, tail(1, 132), four_cta_grid) + draw(4, tail(133, 264), four_cta_grid)
print('HELDOUT="' + " ".join(heldout) + '"')
print('TAILS="' + " ".join(tails) + '"')
fours = []
while len(fours) < 5:
    problem = draw(1, longnc_small_groups, lambda c: "scheduler=grid" in c and "block_m=64," not in c)[0]
    if "min_ctas=4" in default(problem, new): fours.append(problem)
print('FOURS="' + " ".join(fours) + '"')
print('GRIDS="' + " ".join(grids) + '"')
