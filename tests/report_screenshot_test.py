#!/usr/bin/env python3
"""ReportScreenshot: the report of the committed H100 search, rendered by headless Chromium, really shows
its charts.

usage: report_screenshot_test.py EVOTUNE_BINARY SOURCE_DIR

Each chart of the report draws one signature colour that nothing else on the page uses (the run's
best-so-far line, the winner's column in the tunable panels, the roofline). The screenshot must show
each of them over a real area, in the order of the page, with text on the page and the whole page
captured. Python standard library only: the PNG is decoded here.

Exit 0: pass; 1: fail; 77: skipped, because chromium is not installed (a failure instead when
EVOTUNE_REQUIRE_CHROMIUM=1).
"""
import collections
import itertools
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

SKIP = 77

# The signature colours of report.cpp (namespace colour), top of the page to bottom.
SIGNATURES = [
    ("convergence chart (run line)", (0x25, 0x63, 0xEB)),
    ("tunable panels (winner column)", (0xFF, 0xF1, 0xE6)),
    ("roofline chart (roof)", (0x0F, 0x76, 0x6E)),
]
TOLERANCE = 2  # per channel: anti-aliasing aside, Chromium paints these colours exactly (sRGB profile)
MIN_PIXELS = 250
PAGE_BACKGROUND = (0xF4, 0xF5, 0xF7)


def decode_png(data):
    """(width, height, rows): rows of (r, g, b) byte triples, for 8-bit RGB or RGBA, non-interlaced."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    position, idat, header = 8, [], None
    while position < len(data):
        (length,) = struct.unpack(">I", data[position:position + 4])
        kind = data[position + 4:position + 8]
        body = data[position + 8:position + 8 + length]
        position += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    width, height, depth, colour_type, _, _, interlace = header
    if depth != 8 or colour_type not in (2, 6) or interlace != 0:
        raise ValueError(f"unsupported PNG: depth {depth}, colour type {colour_type}, interlace {interlace}")
    channels = 3 if colour_type == 2 else 4
    stride = width * channels
    raw = zlib.decompress(b"".join(idat))
    previous = bytearray(stride)
    rows = []
    for y in range(height):
        start = y * (stride + 1)
        kind = raw[start]
        line = bytearray(raw[start + 1:start + 1 + stride])
        if kind == 1:  # Sub
            for i in range(channels, stride):
                line[i] = (line[i] + line[i - channels]) & 0xFF
        elif kind == 2:  # Up
            line = bytearray((a + b) & 0xFF for a, b in zip(line, previous))
        elif kind == 3:  # Average
            for i in range(stride):
                left = line[i - channels] if i >= channels else 0
                line[i] = (line[i] + ((left + previous[i]) >> 1)) & 0xFF
        elif kind == 4:  # Paeth
            for i in range(stride):
                a = line[i - channels] if i >= channels else 0
                b = previous[i]
                c = previous[i - channels] if i >= channels else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        elif kind != 0:
            raise ValueError(f"bad PNG filter {kind} in row {y}")
        rows.append(bytes(line) if channels == 3 else bytes(b for i, b in enumerate(line) if i % 4 != 3))
        previous = line
    return width, height, rows


def percentile(sorted_values, fraction):
    return sorted_values[min(len(sorted_values) - 1, int(fraction * len(sorted_values)))]


def check(width, height, rows):
    """The list of failures; empty when the screenshot shows the report as it should."""
    failures = []
    # Every pixel within TOLERANCE of a signature colour, mapped to that signature's name.
    signature_of = {}
    for name, colour in SIGNATURES:
        for offsets in itertools.product(range(-TOLERANCE, TOLERANCE + 1), repeat=3):
            signature_of[tuple(c + o for c, o in zip(colour, offsets))] = name
    signature_rows = {name: [] for name, _ in SIGNATURES}
    dark_pixels = 0
    background_row = bytes(PAGE_BACKGROUND) * width
    for y, row in enumerate(rows):
        if row == background_row:
            continue
        # Counting a row's distinct colours runs in C; the loop below sees a few hundred, not 1280.
        for pixel, count in collections.Counter(zip(row[0::3], row[1::3], row[2::3])).items():
            if sum(pixel) < 3 * 110:
                dark_pixels += count
            name = signature_of.get(pixel)
            if name is not None:
                signature_rows[name].extend([y] * count)
    if dark_pixels < 20000:
        failures.append(f"only {dark_pixels} dark pixels: the page shows little or no text")
    previous_name, previous_bottom = None, -1
    for name, colour in SIGNATURES:
        found = sorted(signature_rows[name])
        hex_colour = "#" + "".join(f"{c:02x}" for c in colour)
        print(f"{name}: {len(found)} pixels of {hex_colour}" +
              (f", rows {percentile(found, 0.05)}-{percentile(found, 0.95)}" if found else ""))
        if len(found) < MIN_PIXELS:
            failures.append(f"{name}: {len(found)} pixels of {hex_colour}, expected at least {MIN_PIXELS}")
            continue
        top, bottom = percentile(found, 0.05), percentile(found, 0.95)
        if top <= previous_bottom:
            failures.append(f"{name} (rows {top}-{bottom}) is not below {previous_name} (down to row {previous_bottom})")
        previous_name, previous_bottom = name, bottom
    # The window was tall enough for the whole page: its last rows are plain page background.
    for y in range(height - 40, height):
        if rows[y] != background_row:
            failures.append(f"row {y} of {height} is not page background: the page did not fit in the screenshot")
            break
    return failures


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    evotune, source = sys.argv[1], sys.argv[2]
    if shutil.which("chromium") is None:
        if os.environ.get("EVOTUNE_REQUIRE_CHROMIUM") == "1":
            print("FAIL: chromium is not installed and EVOTUNE_REQUIRE_CHROMIUM=1", file=sys.stderr)
            return 1
        print("SKIP: chromium is not installed (scripts/setup.sh installs it); cannot render the report")
        return SKIP

    work = tempfile.mkdtemp(prefix="evotune-report-screenshot-")
    database = os.path.join(work, "search.db")
    shutil.copyfile(os.path.join(source, "evidence/results/h100/issue4-search/search_fp16/search.db"), database)
    report, screenshot = os.path.join(work, "report.html"), os.path.join(work, "report.png")
    steps = [
        [evotune, "report", "--db", database, "--run", "1", "-o", report],
        [os.path.join(source, "scripts/report_screenshot.sh"), report, screenshot],
    ]
    for command in steps:
        result = subprocess.run(command, capture_output=True, text=True, timeout=180)
        if result.returncode != 0:
            print(f"FAIL: {' '.join(command)} exited {result.returncode}\n{result.stdout}{result.stderr}", file=sys.stderr)
            return 1
    with open(screenshot, "rb") as f:
        width, height, rows = decode_png(f.read())
    print(f"screenshot {width}x{height}")
    failures = check(width, height, rows)
    if failures:
        print("FAIL:\n  " + "\n  ".join(failures) + f"\n(files kept in {work})", file=sys.stderr)
        return 1
    shutil.rmtree(work)
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
