#!/usr/bin/env python3
"""A fleet of bundles for `boinc-audit audit --fleet`, made from traces.

    tools/make-fleet.py OUT --count 500 SOURCE...

Each SOURCE is a folder holding bundles (emulator scenario folders, data
directories, folders of logs) or a single log file. Bundle i is source
i mod len(sources) under variation i // len(sources) mod 6, as volunteers
send them: the folder as is, a .tar.gz, a .zip, the log with CRLF line
ends, the log cut at 80% of its lines, a .tgz with a top folder inside.
Three more bundles are broken on purpose: a truncated .tar.gz, a .zip that
is not one, and an empty folder.

Writes OUT/bundles/ (the fleet) and OUT/manifest.tsv: for each bundle its
name, the folder with the same content unpacked (for auditing it alone), and
whether it must fail ("ok" or "fail").
"""
import argparse
import io
import os
import shutil
import tarfile
import zipfile
from pathlib import Path

# Outputs of the emulator the audit does not read.
SKIPPED = {"rec.dat", "results.dat", "summary.txt", "SCENARIO.md", "README.md",
           "source.txt", "expect.toml", "case.toml"}
VARIATIONS = ["folder", "targz", "zip", "crlf", "cut", "tgz-top"]


def candidates(source: Path):
    """The bundles a source folder holds, or the source itself."""
    if source.is_file():
        return [source]
    subs = sorted(p for p in source.iterdir() if not p.name.startswith("."))
    if (source / "outputs").is_dir() or (source / "client_state.xml").exists() \
            or (source / "stdoutdae.txt").exists():
        return [source]
    out = []
    for sub in subs:
        if sub.is_dir() or sub.suffix in (".log", ".txt") and sub.name not in SKIPPED \
                and not sub.name.endswith(".source.txt"):
            out.append(sub)
    return out


def copy_bundle(src: Path, dst: Path):
    dst.mkdir(parents=True)
    if src.is_file():
        shutil.copy(src, dst / src.name)
        return
    for root, dirs, files in os.walk(src):
        rel = Path(root).relative_to(src)
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            if name in SKIPPED or name.endswith(".source.txt"):
                continue
            target = dst / rel / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(Path(root) / name, target)


def logs(folder: Path):
    return [p for p in folder.rglob("*")
            if p.is_file() and (p.name in ("log.txt", "sim_log.txt", "stdoutdae.txt")
                                or p.suffix == ".log")]


def rewrite_logs(folder: Path, how: str):
    for log in logs(folder):
        data = log.read_bytes()
        if how == "crlf":
            data = data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
        elif how == "cut":
            lines = data.splitlines(keepends=True)
            data = b"".join(lines[: max(1, len(lines) * 8 // 10)])
        log.write_bytes(data)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("sources", type=Path, nargs="+")
    parser.add_argument("--count", type=int, default=500)
    args = parser.parse_args()
    sources = [c for s in args.sources if s.exists() for c in candidates(s)]
    if not sources:
        raise SystemExit("no source bundles found")
    bundles = args.out / "bundles"
    unpacked = args.out / "unpacked"
    for d in (bundles, unpacked):
        if d.exists():
            shutil.rmtree(d)
        d.mkdir(parents=True)
    manifest = []
    for i in range(args.count):
        src = sources[i % len(sources)]
        variation = VARIATIONS[(i // len(sources)) % len(VARIATIONS)]
        name = f"b{i:04d}-{src.stem if src.is_file() else src.name}"
        folder = unpacked / name
        copy_bundle(src, folder)
        if variation in ("crlf", "cut"):
            rewrite_logs(folder, variation)
        if variation == "targz":
            bundle = bundles / f"{name}.tar.gz"
            with tarfile.open(bundle, "w:gz", compresslevel=1) as tar:
                for p in sorted(folder.rglob("*")):
                    tar.add(p, arcname=str(p.relative_to(folder)), recursive=False)
        elif variation == "tgz-top":
            bundle = bundles / f"{name}.tgz"
            with tarfile.open(bundle, "w:gz", compresslevel=1) as tar:
                tar.add(folder, arcname=name)
        elif variation == "zip":
            bundle = bundles / f"{name}.zip"
            with zipfile.ZipFile(bundle, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
                for p in sorted(folder.rglob("*")):
                    if p.is_file():
                        z.write(p, str(p.relative_to(folder)))
        else:
            bundle = bundles / name
            shutil.copytree(folder, bundle)
        manifest.append((bundle.name, str(folder), "ok"))
    # Broken on purpose.
    broken = bundles / "zz-truncated.tar.gz"
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        tar.add(manifest[0][1], arcname="x")
    broken.write_bytes(buf.getvalue()[: len(buf.getvalue()) // 2])
    (bundles / "zz-not-a.zip").write_bytes(b"PK\x03\x04 this is not a zip archive")
    (bundles / "zz-empty").mkdir()
    for name in ("zz-truncated.tar.gz", "zz-not-a.zip", "zz-empty"):
        manifest.append((name, "", "fail"))
    with open(args.out / "manifest.tsv", "w") as f:
        for row in manifest:
            f.write("\t".join(row) + "\n")
    print(f"{len(manifest)} bundles in {bundles} ({len(sources)} sources)")


if __name__ == "__main__":
    main()
