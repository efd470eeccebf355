#!/usr/bin/env bash
# A GPU search killed with SIGKILL mid-run and resumed loses no finished trial:
#   scripts/gpu_resume.sh BUILD_DIR OUT_DIR [PROBLEM]
# The search kills itself (--test-kill-after, SIGKILL: no cleanup of any kind) after 12 newly recorded
# trials; the database is copied aside; `evotune search --resume` finishes the run; then every trial of
# the copy must be in the finished run unchanged, no config may appear twice, and the run must hold
# exactly its budget. Output: resume.txt (the story, ending in PASS or FAIL), resume.db.
set -uo pipefail
cd "$(dirname "$0")/.."
build="$1" out="$2"
problem="${3:-b=1,hq=8,sq=512,d=64,causal=1,dtype=fp16}"
mkdir -p "$out"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export EVOTUNE_CACHE_DIR="${EVOTUNE_CACHE_DIR:-/tmp/evotune-cache}"
evotune="$build/cli/evotune"
python=python3
db="$out/resume.db"
rm -f "$db" "$db"-wal "$db"-shm
{
  echo "\$ evotune search --problem $problem --budget 40 --devices 0 --db resume.db --test-kill-after 12"
  "$evotune" search --problem "$problem" --budget 40 --devices 0 --db "$db" --test-kill-after 12
  echo "exit code $? (137 = killed by SIGKILL)"
  "$evotune" runs --db "$db"
  # The copy is taken through SQLite's backup API (the WAL holds the last trials), read-only.
  "$python" -c 'import sqlite3,sys; s=sqlite3.connect(sys.argv[1]); d=sqlite3.connect(sys.argv[2]); s.backup(d)' \
    "$db" "$out/killed.db"
  echo "\$ evotune search --resume 1 --db resume.db"
  "$evotune" search --resume 1 --db "$db"
  echo "exit code $?"
  "$evotune" runs --db "$db"
  "$python" - "$out/killed.db" "$db" <<'PY'
import sqlite3, sys
cols = "seq, generation, config_key, status, median_us, min_us, p10_us, p90_us, max_abs_error"
def trials(path):
    c = sqlite3.connect(path)
    rows = c.execute(f"select {cols} from trials where run_id = 1 order by seq").fetchall()
    samples = c.execute("select count(*) from samples s join trials t on s.trial_id = t.id where t.run_id = 1").fetchone()[0]
    budget = c.execute("select budget from runs where id = 1").fetchone()[0]
    return rows, samples, budget
before, samples_before, _ = trials(sys.argv[1])
after, samples_after, budget = trials(sys.argv[2])
ok = True
def check(cond, what):
    global ok
    print(("ok   " if cond else "FAIL ") + what)
    ok &= cond
check(len(before) == 12, f"{len(before)} trials recorded before the kill (12 expected)")
check(after[:len(before)] == before, "every trial recorded before the kill is unchanged after the resume")
check(len(after) == budget, f"{len(after)} trials after the resume, budget {budget}")
check(len({r[2] for r in after}) == len(after), "no config evaluated twice")
check([r[0] for r in after] == list(range(len(after))), "trial sequence numbers 0..n-1 without gaps")
check(samples_after >= samples_before, f"raw samples kept: {samples_before} before, {samples_after} after")
print("PASS" if ok else "FAIL")
sys.exit(0 if ok else 1)
PY
} >"$out/resume.txt" 2>&1
status=$?
tail -n 8 "$out/resume.txt"
exit $status
