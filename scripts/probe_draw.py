#!/usr/bin/env python3
"""Random attention problems for a probe call (lab/h100/hopper/probe/callNN/ while it is open; the closed ones
are archived in lab/h100/hopper/probe.tar.xz, lab/README.md), drawn so that no problem measured before is drawn
again: every problem string in evidence/, lab/ (its archives' members included), scripts/ and tests/ (at a git
revision, or in the working tree) counts as used.

  python3 scripts/probe_draw.py survey --seed N [--count 60] [--short 16] [--rev REV] [--exclude-dir DIR]

prints SURVEY="b=..,hq=..,...,dtype=.. ..." (a shell assignment for run.sh to source). The survey draw is
the one of probe/call137, call145, call153 and call158: prefill shapes of 192-8192 queries (half of them
multiples of 64, a fifth with 1.5-4x more keys than queries) and then `--short` decode-like or short chunks
(1-127 queries over 512-32768 keys), head dims 64/128/256 weighted 0.4/0.45/0.15, GQA groups 1/2/4/7/8, the
batch sized to ~1.5 ms of work at most. A seed and the revision a call drew at give that call's problems
again (call158: --seed 20261158 --rev e691b13).

A call whose draw keeps only the problems some rule moves imports this module for `used_problems`,
`default_config`, `draw`, `decode_steps`, `fields` and `unsplit_ctas` (see their docstrings); its own
draw_shapes.py stays in the call's folder as the record of what ran.
"""
import argparse
import gzip
import io
import math
import random
import re
import subprocess
import sys
import tarfile
from pathlib import Path, PurePosixPath

ROOT = Path(__file__).resolve().parent.parent
PROBLEM = re.compile(r"b=[0-9]+,hq=[0-9]+,hkv=[0-9]+,sq=[0-9]+,skv=[0-9]+,d=[0-9]+,causal=[01]")
SEARCHED = ("evidence", "lab", "scripts", "tests")


def used_problems(rev=None, exclude_dir=None):
    """The problem keys (no dtype) in evidence/, lab/, scripts/ and tests/: at git revision `rev`, or in the
    working tree (then leaving out any folder named `exclude_dir`, the call's own). Gzipped record files
    (NAME.jsonl.gz, as the closed probe calls keep their probe.jsonl) are read too: grep skips them as
    binary. So are lab/'s archives (NAME.tar.xz, the closed probe calls), member by member as if unpacked."""
    if rev is not None:
        command = ["git", "-C", str(ROOT), "grep", "-I", "-h", "-o", "-E", PROBLEM.pattern, rev, "--",
                   *SEARCHED]
        out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
        ls_tree = ["git", "-C", str(ROOT), "ls-tree", "-r", "--name-only", rev, "--", *SEARCHED]
        listed = subprocess.run(ls_tree, capture_output=True, text=True, check=True).stdout.split()
        show = lambda path: subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:{path}"], capture_output=True,
                                           check=True).stdout
        gzipped = [show(path) for path in listed if path.endswith(".jsonl.gz")]
        archives = [show(path) for path in listed if path.endswith(".tar.xz")]
        return set(out.split()) | problems_in_gzipped(gzipped) | problems_in_archives(archives)
    command = ["grep", "-r", "-h", "-o", "-E", "--binary-files=without-match"]
    if exclude_dir:
        command.append(f"--exclude-dir={exclude_dir}")
    present = [folder for folder in SEARCHED if (ROOT / folder).is_dir()]
    out = subprocess.run(command + [PROBLEM.pattern, *present], cwd=ROOT, capture_output=True, text=True)
    if out.returncode > 1:
        sys.exit(f"probe_draw: grep failed: {out.stderr.strip()}")
    outside = lambda path: not (exclude_dir and exclude_dir in path.relative_to(ROOT).parts)
    gzipped = [path.read_bytes() for folder in SEARCHED for path in (ROOT / folder).rglob("*.jsonl.gz")
               if outside(path)]
    archives = [path.read_bytes() for folder in SEARCHED for path in (ROOT / folder).rglob("*.tar.xz")
                if outside(path)]
    return set(out.stdout.split()) | problems_in_gzipped(gzipped) | problems_in_archives(archives, exclude_dir)


def problems_in_gzipped(contents):
    """The problem keys in gzipped files, given their bytes."""
    return {key for data in contents for key in PROBLEM.findall(gzip.decompress(data).decode())}


def problems_in_archives(contents, exclude_dir=None):
    """The problem keys in xz-compressed tar archives (lab/'s), given their bytes, read as grep and
    used_problems read the files unpacked: a gzipped record member (NAME.jsonl.gz) decompressed, any other
    member as text unless it is binary (a NUL byte, or not UTF-8: grep skips it), leaving out members under a
    folder named `exclude_dir`."""
    keys = set()
    for data in contents:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:xz") as tar:
            for member in tar:
                if not member.isfile() or (exclude_dir and exclude_dir in PurePosixPath(member.name).parts):
                    continue
                text = tar.extractfile(member).read()
                if member.name.endswith(".jsonl.gz"):
                    text = gzip.decompress(text)
                elif b"\0" in text:
                    continue
                try:
                    keys.update(PROBLEM.findall(text.decode()))
                except UnicodeDecodeError:
                    continue
    return keys


def default_config(binary, problem):
    """The sm_90a default config of `problem` as the evotune binary at `binary` gives it (no GPU needed)."""
    r = subprocess.run([binary, "compile", "--problem", problem, "--target", "sm_90a", "--config", "default"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"probe_draw: {binary} compile failed on {problem}: {r.stderr.strip()}")
    return r.stdout.splitlines()[0]


def fields(text):
    """A problem or config string's fields, as strings: "b=2,hq=8" -> {"b": "2", "hq": "8"}."""
    return dict(kv.split("=") for kv in text.split(","))


def unsplit_ctas(problem, config):
    """The CTAs of the config's grid for the problem before any split, as the family counts them (unsplit_ctas
    in families/attention/host/attention_family.cpp): query tiles x heads (KV heads when pack_gqa packs the
    group's query heads into the rows) x batch."""
    p, c = fields(problem), fields(config)
    packed = c["pack_gqa"] == "on"
    rows = int(p["sq"]) * (int(p["hq"]) // int(p["hkv"]) if packed else 1)
    heads = int(p["hkv"] if packed else p["hq"])
    return int(p["b"]) * heads * math.ceil(rows / int(c["block_m"]))


def decode_steps(rng, head_dims, low_keys, max_batch, max_queries=8, groups=(1, 2, 4, 8),
                 kv_heads=(1, 2, 4, 8), causal_share=0.3):
    """A maker for draw(): random decode steps, (key, dtype) per call, taken from rng in the order of the
    decode draws of probe/call181 and call184 (DECODE): the GQA group, the KV heads, the keys (log-uniform
    from low_keys to 32000), the head dim (no draw for a single one, as in call183 and call185), the batch
    (1-max_batch), the queries (1-max_queries), causal (a causal_share of them), the dtype."""
    def one():
        group = rng.choice(groups)
        hkv = rng.choice(kv_heads)
        skv = int(math.exp(rng.uniform(math.log(low_keys), math.log(32000))))
        d = rng.choice(head_dims) if len(head_dims) > 1 else head_dims[0]
        key = (f"b={rng.randint(1, max_batch)},hq={hkv * group},hkv={hkv},sq={rng.randint(1, max_queries)},"
               f"skv={skv},d={d},causal={int(rng.random() < causal_share)}")
        return key, rng.choice(["fp16", "bf16"])
    return one


def draw(count, make, wanted, used):
    """`count` problems from make() -> (key, dtype), each unused (then marked used) and kept only where
    wanted(problem) holds."""
    out = []
    while len(out) < count:
        key, dtype = make()
        if key in used:
            continue
        problem = f"{key},dtype={dtype}"
        if not wanted(problem):
            continue
        used.add(key)
        out.append(problem)
    return out


def survey(seed, used, count=60, short=16):
    """The survey draw (module docstring): count - short prefill problems, then short decode-like ones.
    Draws in the order of probe/call158's script, so that a seed and a used set give the same problems."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        decode = len(out) >= count - short
        d = rng.choices([64, 128, 256], [0.4, 0.45, 0.15])[0]
        causal = rng.random() < 0.5
        dtype = rng.choice(["fp16", "bf16"])
        hq = rng.choice([8, 12, 16, 24, 28, 32, 40, 48, 64])
        g = rng.choice([g for g in [1, 2, 4, 7, 8] if hq % g == 0])
        if decode:
            sq = rng.choice([1, 2, 4, 8, 16, 24, 32, 48, 64, 80, 100, 127])
            skv = int(math.exp(rng.uniform(math.log(512), math.log(32768))))
            b = rng.randint(1, 64)
        else:
            sq = int(math.exp(rng.uniform(math.log(192), math.log(8192))))
            if rng.random() < 0.5:
                sq = (sq // 64) * 64
            skv = sq if rng.random() < 0.8 else int(sq * rng.choice([2, 3, 4, 1.5]))
            flops = 4 * hq * sq * skv * d * (0.5 if causal else 1)
            b = rng.randint(1, min(max(1, int(1.5e-3 * 5e14 / flops)), 64))
        key = f"b={b},hq={hq},hkv={hq // g},sq={sq},skv={skv},d={d},causal={int(causal)}"
        if key in used:
            continue
        used.add(key)
        out.append(f"{key},dtype={dtype}")
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    s = sub.add_parser("survey", help="random problems of every kind (the module docstring's draw)")
    s.add_argument("--seed", type=int, required=True)
    s.add_argument("--count", type=int, default=60)
    s.add_argument("--short", type=int, default=16, help="of those, decode-like or short chunks (last)")
    s.add_argument("--rev", help="count as used the problems at this git revision (default: the working "
                                 "tree)")
    s.add_argument("--exclude-dir", help="a folder name whose problems do not count as used (the call's own)")
    args = parser.parse_args()
    if not 0 <= args.short <= args.count or args.count < 1:
        parser.error("need 1 <= --count and 0 <= --short <= --count")
    used = used_problems(args.rev, args.exclude_dir)
    print('SURVEY="' + " ".join(survey(args.seed, used, args.count, args.short)) + '"')


if __name__ == "__main__":
    main()
