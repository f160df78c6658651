//! `audit --fleet`: bundles of every kind (a folder, a .tar.gz with a top
//! folder, a .zip, a broken archive) audited at once into one Parquet
//! table; its rows are the single audits' decision points plus one row per
//! bundle that could not be audited, and the shards of the list together
//! make the same table.
#![cfg(feature = "frame")]

use polars::prelude::{ParquetReader, SerReader};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

fn boinc_audit() -> Command {
    Command::new(env!("CARGO_BIN_EXE_boinc-audit"))
}

fn files_below(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("read dir").flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(files_below(&path));
        } else {
            out.push(path);
        }
    }
    out.sort();
    out
}

fn copy_dir(from: &Path, to: &Path) {
    for file in files_below(from) {
        let target = to.join(file.strip_prefix(from).expect("below"));
        std::fs::create_dir_all(target.parent().expect("parent")).expect("mkdir");
        std::fs::copy(&file, &target).expect("copy");
    }
}

fn tar_gz(from: &Path, top: &str, to: &Path) {
    let file = std::fs::File::create(to).expect("create");
    let gz = flate2::write::GzEncoder::new(file, flate2::Compression::fast());
    let mut tar = tar::Builder::new(gz);
    tar.append_dir_all(top, from).expect("tar");
    tar.into_inner().and_then(|gz| gz.finish()).expect("finish");
}

fn zip(from: &Path, to: &Path) {
    let file = std::fs::File::create(to).expect("create");
    let mut zip = zip::ZipWriter::new(file);
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for path in files_below(from) {
        let name = path
            .strip_prefix(from)
            .expect("below")
            .to_string_lossy()
            .into_owned();
        zip.start_file(name, options).expect("entry");
        zip.write_all(&std::fs::read(&path).expect("read"))
            .expect("write");
    }
    zip.finish().expect("finish");
}

/// Decision points of a single audit of `trace`.
fn single_points(trace: &Path) -> usize {
    let output = boinc_audit()
        .arg("audit")
        .arg(trace)
        .args(["--format", "json"])
        .output()
        .expect("run");
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("json");
    json["decision_points"].as_u64().expect("decision_points") as usize
}

fn fleet(list: &Path, out: &Path, extra: &[&str]) -> (Option<i32>, String) {
    let output = boinc_audit()
        .arg("audit")
        .arg("--fleet")
        .arg(list)
        .args(["--jobs", "2", "--output"])
        .arg(out)
        .args(extra)
        .output()
        .expect("run");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

fn read(path: &Path) -> polars::prelude::DataFrame {
    ParquetReader::new(std::fs::File::open(path).expect("parquet"))
        .finish()
        .expect("read parquet")
}

/// The rows as comparable text, sorted.
fn rows(frame: &polars::prelude::DataFrame) -> Vec<String> {
    let mut out: Vec<String> = (0..frame.height())
        .map(|i| {
            frame
                .columns()
                .iter()
                .map(|c| c.get(i).map(|v| v.to_string()).unwrap_or_default())
                .collect::<Vec<_>>()
                .join("|")
        })
        .collect();
    out.sort();
    out
}

#[test]
fn fleet_rows_are_the_single_audits_and_shards_add_up() {
    let root = std::env::temp_dir().join(format!("boinc-audit-fleet-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let bundles = root.join("bundles");
    std::fs::create_dir_all(&bundles).expect("mkdir");
    let seed = Path::new("traces/valid/seed_cpu_gpu_two_projects");
    let excerpt = Path::new("traces/field/vx-3drender-backoff-no-project-chosen");
    let real = Path::new("traces/field/gh1615-c-idle-ram-limit-atlas-runs");
    copy_dir(seed, &bundles.join("a-seed"));
    tar_gz(excerpt, "vx-3drender", &bundles.join("b-excerpt.tar.gz"));
    zip(real, &bundles.join("c-gh1615.zip"));
    std::fs::write(
        bundles.join("d-broken.tar.gz"),
        b"\x1f\x8b\x08\x00 not gzip",
    )
    .expect("write");
    let expected = single_points(seed) + single_points(excerpt) + single_points(real) + 1;

    let all = root.join("all.parquet");
    let (code, summary) = fleet(&bundles, &all, &[]);
    assert_eq!(code, Some(2), "a bundle failed: {summary}");
    assert!(summary.contains("Hosts by agreement"), "{summary}");
    assert!(summary.contains("d-broken.tar.gz"), "{summary}");
    let frame = read(&all);
    assert_eq!(frame.height(), expected);
    let errors = frame.column("error").expect("error column");
    assert_eq!(errors.len() - errors.null_count(), 1, "one failed bundle");

    let mut parts = Vec::new();
    for i in 1..=3 {
        let part = root.join(format!("part{i}.parquet"));
        fleet(&bundles, &part, &["--shard", &format!("{i}/3")]);
        parts.extend(rows(&read(&part)));
    }
    parts.sort();
    assert_eq!(parts, rows(&frame), "the shards make the same table");
    let _ = std::fs::remove_dir_all(&root);
}

/// The README shows the batch files CI runs, as they are.
#[test]
fn readme_shows_the_batch_files_as_they_are() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    for file in ["tools/fleet.sbatch", "tools/fleet-indexed-job.yaml"] {
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        assert!(
            readme.contains(&text),
            "README.md no longer shows {file} as it is"
        );
    }
}
