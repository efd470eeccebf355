# The shapes of probe/call137. used.txt held every problem string found in evidence/, scripts/ and tests/ at
# 6e50e19; none of these is among them.
# (1) seed 20261134: packed short chunks at d=64 whose rows (queries x group) pad fewer rows in 128-row tiles
#     than in 192-row ones, where the default now takes 128 rows (finish_wgmma_heuristic).
# (2) seed 20261135: a fifth survey, call125's draw with short chunks among the decode-like shapes (1-127
#     queries), 44 prefill and 16 decode-like or chunk shapes.
import random, math, subprocess
used=set(open('used.txt').read().split())
root="../../../../../.."
def default(problem):
    r=subprocess.run(["build/cli/evotune","compile","--problem",problem,"--target","sm_90a","--config","default"],
                     capture_output=True,text=True,cwd=root)
    return r.stdout.split("\n")[0]
rng=random.Random(20261134); pad=[]
while len(pad)<6:
    hq=rng.choice([8,16,24,32,40,48,64]); g=rng.choice([g for g in [2,4,8] if hq%g==0])
    sq=rng.randint(16,127); rows=sq*g
    if rows<128 or -(-rows//128)*128 >= -(-rows//192)*192: continue
    skv=int(math.exp(rng.uniform(math.log(1024),math.log(16384)))); c=rng.randint(0,1)
    b=rng.randint(8,64)
    k=f"b={b},hq={hq},hkv={hq//g},sq={sq},skv={skv},d=64,causal={c}"
    if k in used: continue
    p=k+",dtype="+rng.choice(['fp16','bf16'])
    if default(p).startswith("mma=wgmma,block_m=128,"): used.add(k); pad.append(p)
rng=random.Random(20261135); out=[]
def add(key, dtype):
    if key in used: return False
    used.add(key); out.append(key+f",dtype={dtype}"); return True
while len(out)<60:
    decode = len(out) >= 44
    d=rng.choices([64,128,256],[0.4,0.45,0.15])[0]
    causal=rng.random()<0.5
    dtype=rng.choice(['fp16','bf16'])
    hq=rng.choice([8,12,16,24,28,32,40,48,64])
    g=rng.choice([g for g in [1,2,4,7,8] if hq%g==0])
    if decode:
        sq=rng.choice([1,2,4,8,16,24,32,48,64,80,100,127])
        skv=int(math.exp(rng.uniform(math.log(512),math.log(32768))))
        b=rng.randint(1,64)
    else:
        sq=int(math.exp(rng.uniform(math.log(192),math.log(8192))))
        if rng.random()<0.5: sq=(sq//64)*64
        skv=sq if rng.random()<0.8 else int(sq*rng.choice([2,3,4,1.5]))
        flops=4*hq*sq*skv*d*(0.5 if causal else 1)
        b=rng.randint(1,min(max(1,int(1.5e-3*5e14/flops)),64))
    add(f"b={b},hq={hq},hkv={hq//g},sq={sq},skv={skv},d={d},causal={int(causal)}", dtype)
print('PAD="'+" ".join(pad)+'"'); print('SURVEY="'+" ".join(out)+'"')
