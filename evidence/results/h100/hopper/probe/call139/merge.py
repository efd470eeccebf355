# Merges the four one-round probe folders of probe/call139 into merged/hopper (run from this folder after
# unpacking all.tgz): each record's round set from its folder's name, `which` naming the build; then
#   python3 scripts/probe_table.py merged/hopper > table.txt   (from the repository root, with this path)
import json, os, shutil
os.makedirs("merged/hopper", exist_ok=True)
shutil.copy("p/hopper/sdpa.csv", "merged/hopper/sdpa.csv")
with open("merged/hopper/probe.jsonl", "w") as out:
    for round_ in (1, 2):
        for side in ("new", "base"):
            for line in open(f"r{round_}-{side}/hopper/probe.jsonl"):
                record = json.loads(line)
                record["round"], record["which"] = round_, f"default ({side} build)"
                out.write(json.dumps(record) + "\n")
