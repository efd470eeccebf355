#!/usr/bin/env python3
"""The configs of a gpu_hopper.sh `probe` step side by side, per problem, beside SDPA cuDNN's median (and
flash's, where flash was the faster library there: then each config's ratio to it too):
   scripts/probe_table.py FOLDER...   (each FOLDER holds probe.jsonl, or probe.jsonl.gz, and, from the `sdpa`
                                      step, sdpa.csv)
A closed probe call's folder is read from its archive in lab/ as ARCHIVE:callNN/SUB, e.g.
   scripts/probe_table.py lab/h100/hopper/probe.tar.xz:call63/both/hopper
Each config (named by its tiles, CTAs per SM and scheduler, and where several configs of a problem share
that name, by the tunables in which they differ; the problem-aware default's records count under the
config it resolved to) gets its rounds' medians and their median, and cuDNN's median over it; a config
timed as a CUDA graph where cuDNN was timed with single launches, or the other way round, is marked, since
that ratio compares two ways of timing (harness/timer.h). Records of a probe with $BASE_BUILD are told
apart by their build ([new build], [base build])."""
import collections
import statistics
import sys

from bench_records import call_folder, read_jsonl, read_sdpa, read_sdpa_batches, timed_alike


def short_name(config: str) -> str:
    t = dict(item.split("=", 1) for item in config.split(","))
    flags = "".join(f" {name}" for name in ("overlap", "pingpong") if t[name] == "on")
    return f"{t['block_m']}x{t['block_n']} ctas{t['min_ctas']} {t['scheduler']}{flags} o={t['o_store']}"


def names(configs: list[str]) -> dict[str, str]:
    """A name per config: short_name, with the tunables that tell apart configs sharing it."""
    groups: dict[str, list[str]] = collections.defaultdict(list)
    for config in dict.fromkeys(configs):
        groups[short_name(config)].append(config)
    out = {}
    for short, members in groups.items():
        tunables = [dict(item.split("=", 1) for item in m.split(",")) for m in members]
        differ = [k for k in tunables[0] if len({t[k] for t in tunables}) > 1]
        for config, t in zip(members, tunables):
            extra = ",".join(f"{k}={t[k]}" for k in differ)
            out[config] = f"{short} {extra}" if extra else short
    return out


def main(folders: list[str]) -> None:
    for folder in map(call_folder, folders):
        sdpa, sdpa_batches = read_sdpa(folder), read_sdpa_batches(folder)  # both by (problem, backend)
        records: dict[str, list[dict]] = collections.defaultdict(list)
        for r in read_jsonl(folder / "probe.jsonl"):
            records[r["problem"]].append(r)
        for problem, rs in records.items():
            name_of = names([r["config"] for r in rs])
            runs: dict[str, list[float]] = collections.defaultdict(list)
            batches: dict[str, set[int]] = collections.defaultdict(set)
            for r in rs:
                # A probe with $BASE_BUILD ran each config on two builds: keep them apart.
                name = name_of[r["config"]] + (f" [{r['build']} build]" if "build" in r else "")
                runs[name].append(r["kernel"]["median_us"])
                batches[name].add(int(r["kernel"].get("batch", 1)))
            base, flash = sdpa.get((problem, "cudnn")), sdpa.get((problem, "flash"))
            cudnn_batch, flash_batch = sdpa_batches.get((problem, "cudnn")), sdpa_batches.get((problem, "flash"))
            # Flash, where it beat cuDNN (decode, or a lower-right causal mask SDPA gives cuDNN materialized).
            stronger_flash = flash if flash is not None and flash < (base or float("inf")) else None
            print(f"{problem}  cuDNN {base if base else '-'} us" + (f", flash {stronger_flash} us" if stronger_flash else ""))
            for name, times in runs.items():
                m = statistics.median(times)
                ratio = f"{base / m:.3f}x cuDNN" if base else ""
                ours = batches[name]
                if base and not timed_alike(sorted(ours), cudnn_batch):
                    ratio += (f" (timed differently: {'/'.join(map(str, sorted(ours)))} launches per sample, "
                              f"cuDNN {cudnn_batch})")
                if stronger_flash:
                    ratio += f", {stronger_flash / m:.3f}x flash"
                    if not timed_alike(sorted(ours), flash_batch):
                        ratio += f" (timed differently: flash {flash_batch})"
                print(f"  {name:28s} {' '.join(f'{x:.2f}' for x in times)} -> {m:.2f} us  {ratio}")

if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
