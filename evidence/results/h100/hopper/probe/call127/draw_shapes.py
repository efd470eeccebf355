# The shapes of probe/call127 beside call126's b14 hq32 hkv8 s1024 and heldout_4e6b3ec's b4 hq16 s1024 (seed
# 20261129): non-causal d=64 over 960-1024 keys (two at 1024), 192-row tiles from 3 to 40 per SM. used.txt
# held every problem string found in evidence/, scripts/ and tests/ at 5e164fc; none of these is among them.
import random, math
used=set(open('used.txt').read().split())
rng=random.Random(20261129)
out=[]
while len(out)<6:
    hq=rng.choice([8,12,16,24,28,32,40,48,64])
    hkv=hq//rng.choice([g for g in [1,2,4,8] if hq%g==0])
    s=1024 if len(out)<3 else rng.randint(960,1023)
    b=rng.randint(1,64)
    per_sm192=b*hq*math.ceil(s/192)/132
    if not 3<=per_sm192<=40 or (len(out)%3==0) != (per_sm192<10): continue
    key=f"b={b},hq={hq},hkv={hkv},sq={s},skv={s},d=64,causal=0"
    if key in used: continue
    used.add(key); out.append(key+",dtype="+rng.choice(['fp16','bf16']))
print(" ".join(out))
