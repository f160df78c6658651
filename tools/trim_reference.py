#!/usr/bin/env python3
"""Trimmed copy of an emulator reference scenario for traces/.

    tools/trim_reference.py SRC DST [--until HH:MM:SS] [--gzip]

Copies SRC/inputs unchanged, SRC/outputs/{inputs.txt,results.txt}, the log
(outputs/log.txt) up to the first line at or after --until (default
04:00:00, i.e. the first three simulated hours after the 01:00:00 start) and
timeline.html up to the first step row at or after the same time. With
--gzip the log is written as log.txt.gz. results.txt still describes the
whole run (simulate runs the scenario's full duration from inputs/).
"""
import argparse
import gzip
import re
import shutil
from pathlib import Path

TIME = re.compile(r"^(?:(\d+) days? )?(\d\d):(\d\d):(\d\d)")
# A step row: today's layout, or the 7.0-7.2 emulator's (`<table ...><tr><td
# width=100 valign=top>TIME</td>`).
ROW = re.compile(
    r"^(?:<tr>\s*<td valign=top>|<table border=0 cellpadding=4><tr><td width=100 valign=top>)"
    r"(?:(\d+) days? )?(\d\d):(\d\d):(\d\d)</td>"
)


def seconds(m):
    days = int(m.group(1) or 0)
    return days * 86400 + int(m.group(2)) * 3600 + int(m.group(3)) * 60 + int(m.group(4))


def cut(lines, pattern, until):
    out = []
    for line in lines:
        m = pattern.match(line)
        if m and seconds(m) >= until:
            break
        out.append(line)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("src", type=Path)
    ap.add_argument("dst", type=Path)
    ap.add_argument("--until", default="04:00:00")
    ap.add_argument("--gzip", action="store_true")
    a = ap.parse_args()
    h, m, s = (int(x) for x in a.until.split(":"))
    until = h * 3600 + m * 60 + s
    shutil.copytree(a.src / "inputs", a.dst / "inputs", dirs_exist_ok=True)
    out = a.dst / "outputs"
    out.mkdir(parents=True, exist_ok=True)
    for name in ["inputs.txt", "results.txt"]:
        if (a.src / "outputs" / name).exists():
            shutil.copy(a.src / "outputs" / name, out / name)
    log = (a.src / "outputs/log.txt").read_bytes().decode("utf-8", "surrogateescape")
    kept = "".join(cut(log.splitlines(keepends=True), TIME, until))
    data = kept.encode("utf-8", "surrogateescape")
    if a.gzip:
        with gzip.GzipFile(out / "log.txt.gz", "wb", mtime=0) as f:
            f.write(data)
    else:
        (out / "log.txt").write_bytes(data)
    timeline = a.src / "outputs/timeline.html"
    if timeline.exists():
        text = timeline.read_text(errors="surrogateescape")
        kept = cut(text.splitlines(keepends=True), ROW, until)
        (out / "timeline.html").write_text("".join(kept), errors="surrogateescape")


if __name__ == "__main__":
    main()
