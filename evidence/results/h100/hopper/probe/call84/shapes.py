# probe/call84's shapes: call72's generator at d=256 (seed 20261127), with a sixth of them decode-like (a few
# queries against a long cache) as d=256 models run them.
import random
random.seed(20261127)
out = []
while len(out) < 24:
    b = random.choice([1, 1, 2, 2, 4, 8, 16])
    hq = random.choice([8, 12, 16, 24, 32])
    g = random.choice([1, 1, 2, 4, 8])
    if hq % g:
        continue
    hkv = hq // g
    causal = random.choice([0, 1])
    skv = random.choice([random.randint(200, 1200), random.randint(1200, 4200), random.randint(4200, 9000)])
    r = random.random()
    sq = skv if r < 0.65 else random.choice([256, 512, 1024]) if r < 0.83 else random.choice([1, 1, 4])
    if sq > skv:
        continue
    dtype = random.choice(["fp16", "bf16"])
    fl = 4 * b * hq * sq * skv * 256 * (0.5 if causal and sq > 1 else 1)
    if sq > 4 and (fl < 3e9 or fl > 1.5e12):
        continue
    out.append(f"b={b},hq={hq},hkv={hkv},sq={sq},skv={skv},d=256,causal={causal},dtype={dtype}")
print(" ".join(out))
