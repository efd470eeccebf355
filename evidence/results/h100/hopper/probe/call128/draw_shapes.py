# The shapes of probe/call128 (seed 20261130): non-causal GQA prefill shapes whose problem-aware default
# (build/cli/evotune compile --config default, at with_packed_gqa's commit) packs the group's query heads,
# eight at d=64 and eight at d=128, drawn as call115's prefill shapes are. used.txt held every problem string
# found in evidence/, scripts/ and tests/ at 6f491df and those of call125-127; none of these is among them.
import random, math, subprocess
used=set(open('used.txt').read().split())
rng=random.Random(20261130)
out={64:[],128:[]}
def packs(problem):
    r=subprocess.run(["build/cli/evotune","compile","--problem",problem,"--target","sm_90a","--config","default"],
                     capture_output=True,text=True,cwd="../../../../../..")
    return ",pack_gqa=on," in r.stdout.split("\n")[0]
while len(out[64])<8 or len(out[128])<8:
    d=rng.choice([64,128])
    hq=rng.choice([8,12,16,24,28,32,40,48,64])
    g=rng.choice([g for g in [2,4,8] if hq%g==0])
    sq=int(math.exp(rng.uniform(math.log(192),math.log(8192))))
    if rng.random()<0.5: sq=(sq//64)*64
    skv=sq if rng.random()<0.8 else int(sq*rng.choice([2,3,4,1.5]))
    bmax=max(1,int(1.5e-3*5e14/(4*hq*sq*skv*d)))
    b=rng.randint(1,min(bmax,64))
    key=f"b={b},hq={hq},hkv={hq//g},sq={sq},skv={skv},d={d},causal=0"
    if key in used or len(out[d])>=8: continue
    used.add(key)
    p=key+",dtype="+rng.choice(['fp16','bf16'])
    if packs(p): out[d].append(p)
print(" ".join(out[64]+out[128]))
