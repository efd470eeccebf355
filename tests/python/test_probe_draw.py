"""scripts/probe_draw.py, the random problems of a probe call: the same seed gives the same problems, none
of them already in evidence/, lab/, scripts/ or tests/ (gzipped record files and lab/'s archives included),
prefill first and then the short ones; the command line prints one shell assignment and refuses a bad count; a
draw's grid count matches the family's; the decode-step maker draws as the calls' own did. And the probe
calls' records read alike plain or gzipped, or from a call archived in lab/ (scripts/bench_records.py's
read_jsonl and call_folder, which probe_table.py uses).

    python3 tests/python/test_probe_draw.py
"""

import gzip
import io
import json
import subprocess
import sys
import tarfile
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

import bench_records  # noqa: E402
import probe_draw  # noqa: E402


def fields(problem):
    return {k: int(v) if v.isdigit() else v for k, v in (kv.split("=") for kv in problem.split(","))}


class UnsplitCtas(unittest.TestCase):
    """The grid a draw filters on, counted as the family counts it (attention_family.cpp's unsplit_ctas)."""

    def test_packed_gqa_counts_kv_heads_and_the_groups_rows(self):
        hole = "b=18,hq=32,hkv=4,sq=1,skv=26578,d=64,causal=0,dtype=bf16"  # 8 rows of one 16-row tile
        self.assertEqual(probe_draw.unsplit_ctas(hole, "mma=mma_sync,block_m=16,pack_gqa=on"), 72)
        self.assertEqual(probe_draw.unsplit_ctas(hole, "block_m=16,pack_gqa=off"), 18 * 32)
        # 3 queries x 8 heads = 24 rows: two 16-row tiles, one 32-row tile.
        three = "b=5,hq=16,hkv=2,sq=3,skv=900,d=128,causal=1"
        self.assertEqual(probe_draw.unsplit_ctas(three, "block_m=16,pack_gqa=on"), 5 * 2 * 2)
        self.assertEqual(probe_draw.unsplit_ctas(three, "block_m=32,pack_gqa=on"), 5 * 2)

    def test_fields_keep_strings(self):
        self.assertEqual(probe_draw.fields("b=2,mma=wgmma"), {"b": "2", "mma": "wgmma"})


class DecodeSteps(unittest.TestCase):
    """The decode-step maker draws as the calls' own makers did: probe/call184's DECODE (seed 20261188, every
    head dim, 1000+ keys, batch up to 160) began with these three problems."""

    def test_call184s_first_decode_steps(self):
        import random
        make = probe_draw.decode_steps(random.Random(20261188), [64, 128, 256], 1000, 160)
        self.assertEqual([make() for _ in range(3)], [
            ("b=30,hq=4,hkv=1,sq=1,skv=5107,d=64,causal=1", "fp16"),
            ("b=103,hq=16,hkv=8,sq=8,skv=2484,d=64,causal=1", "bf16"),
            ("b=122,hq=8,hkv=8,sq=7,skv=2107,d=64,causal=1", "bf16")])

    def test_fields_stay_in_their_ranges(self):
        import random
        make = probe_draw.decode_steps(random.Random(7), [256], 2000, 105, max_queries=4, groups=(1, 8))
        for _ in range(200):
            key, dtype = make()
            p = fields(key)
            self.assertTrue(1 <= p["b"] <= 105 and 1 <= p["sq"] <= 4 and 2000 <= p["skv"] <= 32000, key)
            self.assertIn(p["hq"] // p["hkv"], (1, 8))
            self.assertEqual(p["d"], 256)
            self.assertIn(dtype, ("fp16", "bf16"))


class GzippedRecords(unittest.TestCase):
    RECORDS = [{"problem": "b=3,hq=5,hkv=5,sq=7,skv=11,d=64,causal=1,dtype=fp16", "config": "x", "round": r}
               for r in (1, 2)]

    def test_read_jsonl_reads_the_gzipped_copy_alike(self):
        text = "".join(json.dumps(r) + "\n" for r in self.RECORDS)
        with tempfile.TemporaryDirectory() as plain, tempfile.TemporaryDirectory() as zipped:
            (Path(plain) / "probe.jsonl").write_text(text)
            (Path(zipped) / "probe.jsonl.gz").write_bytes(gzip.compress(text.encode()))
            self.assertEqual(bench_records.read_jsonl(Path(plain) / "probe.jsonl"), self.RECORDS)
            self.assertEqual(bench_records.read_jsonl(Path(zipped) / "probe.jsonl"), self.RECORDS)

    @staticmethod
    def archive(files):
        """An xz-compressed tar archive of {name: bytes}, as lab/'s are made (members under probe/callNN/)."""
        out = io.BytesIO()
        with tarfile.open(fileobj=out, mode="w:xz") as tar:
            for name, data in files.items():
                info = tarfile.TarInfo(name)
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
        return out.getvalue()

    def test_problems_in_gzipped_files_count_as_used(self):
        data = gzip.compress("".join(json.dumps(r) + "\n" for r in self.RECORDS).encode())
        self.assertEqual(probe_draw.problems_in_gzipped([data]), {"b=3,hq=5,hkv=5,sq=7,skv=11,d=64,causal=1"})
        # The closed probe calls' records are gzipped, in lab/'s archives; their problems are among the used ones.
        with tarfile.open(ROOT / "lab" / "h100" / "hopper" / "probe.tar.xz") as tar:
            member = next(m for m in tar if m.name.endswith("/probe.jsonl.gz"))
            some = tar.extractfile(member).read()
        self.assertLessEqual(probe_draw.problems_in_gzipped([some]), probe_draw.used_problems())

    def test_problems_in_archives_read_as_unpacked(self):
        plain, zipped, other = ("b=1,hq=2,hkv=2,sq=3,skv=4,d=64,causal=0", "b=5,hq=2,hkv=2,sq=3,skv=4,d=64,causal=1",
                                "b=6,hq=2,hkv=2,sq=3,skv=4,d=64,causal=1")
        data = self.archive({
            "probe/call7/run.sh": f"HOPPER_PROBLEMS={plain},dtype=fp16\n".encode(),
            "probe/call7/p/probe.jsonl.gz": gzip.compress(json.dumps({"problem": zipped}).encode()),
            "probe/call7/bench.db": b"SQLite format 3\0" + other.encode(),  # binary: skipped, as grep skips it
            "probe/call8/shapes.txt": other.encode()})
        self.assertEqual(probe_draw.problems_in_archives([data]), {plain, zipped, other})
        self.assertEqual(probe_draw.problems_in_archives([data], exclude_dir="call8"), {plain, zipped})

    def test_a_call_folder_reads_from_its_archive(self):
        text = "".join(json.dumps(r) + "\n" for r in self.RECORDS)
        with tempfile.TemporaryDirectory() as lab:
            (Path(lab) / "probe.tar.xz").write_bytes(self.archive({
                "probe/call7/p/hopper/probe.jsonl.gz": gzip.compress(text.encode()),
                "probe/call70/p/hopper/probe.jsonl": b""}))
            (Path(lab) / "probe" / "call7" / "p").mkdir(parents=True)
            (Path(lab) / "probe" / "call7" / "p" / "hopper.db.gz").write_bytes(b"kept beside the archive")
            folder = bench_records.call_folder(f"{lab}/probe.tar.xz:call7/p/hopper")
            self.assertEqual(bench_records.read_jsonl(folder / "probe.jsonl"), self.RECORDS)
            whole = bench_records.call_folder(f"{lab}/probe.tar.xz:call7")
            self.assertEqual(sorted(p.relative_to(whole).as_posix() for p in whole.rglob("*") if p.is_file()),
                             ["p/hopper.db.gz", "p/hopper/probe.jsonl.gz"])
            with self.assertRaises(FileNotFoundError):
                bench_records.call_folder(f"{lab}/probe.tar.xz:call9")
        self.assertEqual(bench_records.call_folder("some/folder"), Path("some/folder"))


class Survey(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.used = probe_draw.used_problems()

    def test_finds_the_problems_the_repository_holds(self):
        # The README's main problem and the rows are in evidence/ and tests/.
        self.assertIn("b=4,hq=16,hkv=16,sq=4096,skv=4096,d=128,causal=0", self.used)
        self.assertGreater(len(self.used), 1000)

    def test_same_seed_same_problems_none_used(self):
        first = probe_draw.survey(20261199, set(self.used), count=30, short=8)
        again = probe_draw.survey(20261199, set(self.used), count=30, short=8)
        self.assertEqual(first, again)
        self.assertNotEqual(first, probe_draw.survey(20261200, set(self.used), count=30, short=8))
        self.assertEqual(len(set(first)), 30)
        for problem in first:
            self.assertRegex(problem, probe_draw.PROBLEM.pattern + r",dtype=(fp16|bf16)$")
            self.assertNotIn(problem.rsplit(",dtype=", 1)[0], self.used)
        sq = [fields(p)["sq"] for p in first]
        self.assertTrue(all(q >= 192 for q in sq[:22]), sq)
        self.assertTrue(all(q <= 127 for q in sq[22:]), sq)

    def test_a_used_problem_is_never_drawn_again(self):
        drawn = probe_draw.survey(7, set(self.used), count=10, short=2)
        blocked = set(self.used) | {drawn[0].rsplit(",dtype=", 1)[0]}
        self.assertNotIn(drawn[0], probe_draw.survey(7, blocked, count=10, short=2))

    def test_draw_keeps_what_is_wanted(self):
        keys = iter([("b=1,hq=8,hkv=8,sq=1,skv=1,d=64,causal=0", "fp16"),
                     ("b=2,hq=8,hkv=8,sq=1,skv=1,d=64,causal=0", "bf16"),
                     ("b=3,hq=8,hkv=8,sq=1,skv=1,d=64,causal=0", "fp16")])
        used = {"b=1,hq=8,hkv=8,sq=1,skv=1,d=64,causal=0"}
        kept = probe_draw.draw(1, lambda: next(keys), lambda p: p.startswith("b=3"), used)
        self.assertEqual(kept, ["b=3,hq=8,hkv=8,sq=1,skv=1,d=64,causal=0,dtype=fp16"])
        self.assertIn("b=3,hq=8,hkv=8,sq=1,skv=1,d=64,causal=0", used)

    def test_command_line(self):
        script = str(ROOT / "scripts" / "probe_draw.py")
        survey = [sys.executable, script, "survey", "--seed", "3"]
        out = subprocess.run(survey + ["--count", "4", "--short", "1"],
                             capture_output=True, text=True, check=True).stdout
        self.assertRegex(out, r'^SURVEY="(\S+ ){3}\S+"\n$')
        bad = subprocess.run(survey + ["--count", "2", "--short", "5"], capture_output=True, text=True)
        self.assertEqual(bad.returncode, 2)
        self.assertIn("--short", bad.stderr)


if __name__ == "__main__":
    unittest.main()
