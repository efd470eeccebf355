# The shapes of probe/call141 (seed 20261141): short query chunks of 17-47 queries on the mma.sync path
# (one query head per KV head, or a group whose packed rows do not fill a 128-row tile or that does not
# divide 64), every head dim, causal or not, 256-16384 keys, grids of at least 66 query-head CTAs (the
# short-chunk guard's half of the SMs), where this build's default is an mma.sync config. For each, the
# default of its twin with 48 queries (the same problem otherwise), which short_chunk_unpacked sends to
# 64-row wgmma tiles: what lowering that rule's 48-query bound would run. used.txt held every problem string
# found in evidence/, scripts/ and tests/ at 82e7a75; none of these is among them.
import random, math, subprocess
used=set(open('used.txt').read().split())
root="../../../../../.."
def default(problem):
    r=subprocess.run(["build/cli/evotune","compile","--problem",problem,"--target","sm_90a","--config","default"],
                     capture_output=True,text=True,cwd=root)
    return r.stdout.split("\n")[0]
rng=random.Random(20261141); out=[]
while len(out)<12:
    d=[64,128,256][len(out)%3]
    hq=rng.choice([8,12,16,24,28,32,40,48,64]); g=rng.choice([g for g in [1,1,1,2,3,6,7] if hq%g==0])
    sq=rng.randint(17,47); skv=int(math.exp(rng.uniform(math.log(256),math.log(16384))))
    c=rng.randint(0,1)
    bmax=max(1,int(2e-3*5e14/(4*hq*sq*skv*d)))
    b=rng.randint(1,min(64,bmax))
    if b*hq<66: continue
    k=f"b={b},hq={hq},hkv={hq//g},sq={sq},skv={skv},d={d},causal={c}"
    if k in used: continue
    p=k+",dtype="+rng.choice(['fp16','bf16'])
    if not default(p).startswith("mma=mma_sync"): continue
    twin=default(p.replace(f",sq={sq},",",sq=48,"))
    if not twin.startswith("mma=wgmma,block_m=64,") or ",pack_gqa=off," not in twin: continue
    used.add(k); out.append((p,twin))
for p,twin in out: print(p, twin)
