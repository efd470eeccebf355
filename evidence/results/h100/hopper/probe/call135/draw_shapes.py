# The shapes of probe/call135 (seed 20261133): short query chunks of 48-127 queries that the unpacked
# short-chunk rule (short_chunk_unpacked) moves from the mma.sync path to the wgmma mainloop (one query head
# per KV head, or a group that does not divide 64 or whose packed rows are under 128), every head dim,
# causal or not, 512-16384 keys; kept only where this build's default differs from fed4e4b's
# (/tmp/evotune_r1, the build of fed4e4b). used.txt held every problem string found in evidence/, scripts/
# and tests/ at fed4e4b and those of probe/call134; none of these is among them.
import random, math, subprocess
used=set(open('used.txt').read().split())
root="../../../../../.."
def default(binary, problem):
    r=subprocess.run([binary,"compile","--problem",problem,"--target","sm_90a","--config","default"],
                     capture_output=True,text=True,cwd=root)
    return r.stdout.split("\n")[0]
rng=random.Random(20261133); out=[]
while len(out)<12:
    d=rng.choice([64,128,256])
    hq=rng.choice([8,12,16,24,28,32,40,48]); g=rng.choice([g for g in [1,1,2,3,6,7] if hq%g==0])
    sq=rng.randint(48,127); skv=int(math.exp(rng.uniform(math.log(512),math.log(16384))))
    c=rng.randint(0,1)
    bmax=max(1,int(2e-3*5e14/(4*hq*sq*skv*d)))
    b=rng.randint(1,min(64,bmax))
    k=f"b={b},hq={hq},hkv={hq//g},sq={sq},skv={skv},d={d},causal={c}"
    if k in used: continue
    p=k+",dtype="+rng.choice(['fp16','bf16'])
    if default("/tmp/evotune_r1",p)!=default("build/cli/evotune",p): used.add(k); out.append(p)
print('HELD="'+" ".join(out)+'"')
