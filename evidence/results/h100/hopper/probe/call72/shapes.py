import random, math
random.seed(20261126)
out=[]
while len(out)<32:
    b=random.choice([1,1,2,2,4,8,16])
    hq=random.choice([8,12,16,24,32,40,64])
    g=random.choice([1,1,2,4,8])
    if hq%g: continue
    hkv=hq//g
    d=random.choice([64,128])
    causal=random.choice([0,1])
    skv=random.choice([random.randint(200,1200), random.randint(1200,4200), random.randint(4200,9000)])
    sq=skv if random.random()<0.8 else random.choice([256,512,1024])
    if sq>skv: continue
    dtype=random.choice(['fp16','bf16'])
    fl=4*b*hq*sq*skv*d*(0.5 if causal else 1)
    if fl<3e9 or fl>1.5e12: continue
    out.append(f"b={b},hq={hq},hkv={hkv},sq={sq},skv={skv},d={d},causal={causal},dtype={dtype}")
print(" ".join(out))
