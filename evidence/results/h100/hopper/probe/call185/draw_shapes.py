# The shapes of probe/call185 (seed 20261189), drawn with scripts/probe_draw.py (2026-11-27, seventh session):
# the holdout of c0d2b14 (16-row d=256 tiles start the one-wave split at 55% of the SMs, 73 CTAs on the H100).
# SPLIT16: five random d=256 decode steps (1-8 queries, 2000-32000 keys) whose default is a 16-row grid of
# 73-105 CTAs that the rule splits. WHOLE16: three whose 16-row grid of 66-72 CTAs 66ad286 split and c0d2b14
# leaves whole. Configs: the default, unsplit, 3 and 8 chunks.
# Predictions, written before any measurement:
#   SPLIT16: the default 3%+ faster than unsplit on at least four of the five, more than 2% slower on none
#   WHOLE16: the default (unsplit) faster than 3 and 8 chunks, or within 1% of the faster, on all three
# Beside them (run.sh): BIMODAL, call184's survey shape b18 hq24 hkv3 sq229 skv229 d64 bf16 (its two rounds
# 26.72 and 41.94 us) in six bench processes; prediction: at least one of the six rounds 1.3x+ slower than the
# fastest (the process-level bimodality of four-CTA wgmma configs, prepare_kernel's comment).
# Usage, from the repository root: draw_shapes.py NEW_BINARY OLD_BINARY (builds of c0d2b14 and 66ad286).
import math, random, sys
sys.path.insert(0, "scripts")
from probe_draw import used_problems, default_config, draw, fields, unsplit_ctas

new_binary, old_binary = sys.argv[1], sys.argv[2]
used = used_problems(exclude_dir="call185")
rng = random.Random(20261189)


def one():
    group = rng.choice([1, 2, 4, 8])
    hkv = rng.choice([1, 2, 4, 8])
    skv = int(math.exp(rng.uniform(math.log(2000), math.log(32000))))
    key = (f"b={rng.randint(1, 105)},hq={hkv * group},hkv={hkv},sq={rng.randint(1, 8)},skv={skv},d=256,"
           f"causal={int(rng.random() < 0.3)}")
    return key, rng.choice(["fp16", "bf16"])


def sixteen_rows(problem, low, high):
    config = default_config(new_binary, problem)
    c = fields(config)
    return c["mma"] == "mma_sync" and c["block_m"] == "16" and low <= unsplit_ctas(problem, config) <= high, c


def split16(problem):
    fits, c = sixteen_rows(problem, 73, 105)
    return fits and c["splits"] != "1"


def whole16(problem):
    fits, c = sixteen_rows(problem, 66, 72)
    return fits and c["splits"] == "1" and fields(default_config(old_binary, problem))["splits"] != "1"


print('SPLIT16="' + " ".join(draw(5, one, split16, used)) + '"')
print('WHOLE16="' + " ".join(draw(3, one, whole16, used)) + '"')
