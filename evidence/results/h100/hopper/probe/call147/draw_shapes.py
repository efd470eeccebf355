# The shapes of probe/call147 (seed 20261150), held out at the thin end of effeee9's chunk rule: chunks of
# 17-23 queries whose default moved from the mma.sync path to wgmma (against /tmp/base-build, 241959c's
# evotune), every head dim, causal or not, 256-16384 keys. used.txt held every problem string found in
# evidence/, scripts/ and tests/ at 2cd0a6f plus probe/call146's; none of these is among them.
import random, math, subprocess
used=set(open('used.txt').read().split())
root="../../../../../.."
def default(problem, binary="build/cli/evotune"):
    r=subprocess.run([binary,"compile","--problem",problem,"--target","sm_90a","--config","default"],
                     capture_output=True,text=True,cwd=root)
    return r.stdout.split("\n")[0]
rng=random.Random(20261150); out=[]
while len(out)<10:
    d=[64,128,256][len(out)%3]
    hq=rng.choice([8,12,16,24,28,32,40,48,64]); g=rng.choice([g for g in [1,1,2,3,6] if hq%g==0])
    sq=rng.randint(17,23); skv=int(math.exp(rng.uniform(math.log(256),math.log(16384)))); c=rng.randint(0,1)
    b=rng.randint(1,min(64,max(1,int(2e-3*5e14/(4*hq*sq*skv*d)))))
    k=f"b={b},hq={hq},hkv={hq//g},sq={sq},skv={skv},d={d},causal={c}"
    if k in used: continue
    p=k+",dtype="+rng.choice(['fp16','bf16'])
    if default(p).startswith("mma=wgmma") and default(p,"/tmp/base-build/cli/evotune").startswith("mma=mma_sync"):
        used.add(k); out.append(p)
print('HELD="'+" ".join(out)+'"')
