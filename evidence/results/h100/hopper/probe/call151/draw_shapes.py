# The shapes of probe/call151 (seed 20261153), drawn after the final tile_order rule (10%, or 5% with 8+ query tiles a head): causal
# prefill and chunked prefill (128-16384 keys, sq = skv or a chunk of it), every head dim, GQA groups 1-8;
# MOVED: sixteen whose default the rule puts on tile_order=sections (KEPT, six it leaves on heads though
# sections is valid for them, drawn too but not measured). used.txt held every
# problem string found in evidence/, scripts/ and tests/ at this commit; none of these is among them.
import random, math, subprocess
used=set(open('used.txt').read().split())
root="../../../../../.."
def default(problem):
    r=subprocess.run(["build/cli/evotune","compile","--problem",problem,"--target","sm_90a","--config","default"],
                     capture_output=True,text=True,cwd=root)
    return r.stdout.split("\n")[0]
rng=random.Random(20261153); moved=[]; kept=[]
while len(moved)<16 or len(kept)<6:
    d=rng.choice([64,64,128,128,256])
    hq=rng.choice([8,12,16,24,28,32,40,48,64]); g=rng.choice([g for g in [1,1,2,4,8] if hq%g==0])
    skv=int(math.exp(rng.uniform(math.log(128),math.log(16384))))
    sq=skv if rng.random()<0.75 else rng.randint(128,skv)
    b=rng.randint(1,min(64,max(1,int(4e-3*5e14/(2*hq*sq*skv*d)))))
    k=f"b={b},hq={hq},hkv={hq//g},sq={sq},skv={skv},d={d},causal=1"
    if k in used: continue
    p=k+",dtype="+rng.choice(['fp16','bf16'])
    c=default(p)
    if not c.startswith("mma=wgmma"): continue
    if "tile_order=sections" in c and len(moved)<16:
        used.add(k); moved.append(p)
    elif "tile_order=heads" in c and "splits=1," in c and ("scheduler=grid" in c or "scheduler=dynamic" in c) and len(kept)<6:
        used.add(k); kept.append(p)
print('MOVED="'+" ".join(moved)+'"')
print('KEPT="'+" ".join(kept)+'"')
