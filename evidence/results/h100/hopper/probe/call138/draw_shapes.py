# The shapes of probe/call138 (seed 20261136): decode steps (1-4 queries) over short K/V ranges (512-2048
# keys) with enough KV heads x batch that the unsplit grid is tens of CTAs or more (like call137's
# b15 hq48 hkv6 sq1 skv831 d128 causal bf16, 0.639x cuDNN), every head dim and group; and (seed 20261137)
# packed d=64 short chunks whose rows take fewer 192-row tiles than 128-row ones (the 192-row side of
# finish_wgmma_heuristic's tile choice), held out. used.txt held every problem string found in evidence/,
# scripts/ and tests/ at the commit of this call's run.sh; none of these is among them.
import random, math, subprocess
used=set(open('used.txt').read().split())
rng=random.Random(20261136); dec=[]
while len(dec)<7:
    d=rng.choice([64,128,128,256]); hq=rng.choice([8,16,24,32,40,48,64]); g=rng.choice([g for g in [1,2,4,8] if hq%g==0])
    sq=rng.choice([1,1,2,4]); skv=int(math.exp(rng.uniform(math.log(512),math.log(2048))))
    b=rng.randint(4,64); c=rng.randint(0,1)
    if b*(hq//g)<40: continue
    k=f"b={b},hq={hq},hkv={hq//g},sq={sq},skv={skv},d={d},causal={c}"
    if k in used: continue
    used.add(k); dec.append(k+",dtype="+rng.choice(['fp16','bf16']))
rng=random.Random(20261137); pad=[]
while len(pad)<4:
    hq=rng.choice([8,16,24,32,40,48,64]); g=rng.choice([g for g in [2,4,8] if hq%g==0])
    sq=rng.randint(16,127); rows=sq*g
    t128,t192=-(-rows//128),-(-rows//192)
    if rows<128 or not (t128>t192 and t128*128<t192*192): continue
    skv=int(math.exp(rng.uniform(math.log(1024),math.log(16384)))); b=rng.randint(8,64)
    k=f"b={b},hq={hq},hkv={hq//g},sq={sq},skv={skv},d=64,causal=0"
    if k in used: continue
    used.add(k); pad.append(k+",dtype="+rng.choice(['fp16','bf16']))
print('DEC="b=15,hq=48,hkv=6,sq=1,skv=831,d=128,causal=1,dtype=bf16 '+" ".join(dec)+'"'); print('PAD="'+" ".join(pad)+'"')
