//! Shared by the benchmarks: the real traces of `../shared/traces`, and large replicas of them (rewritten cookies,
//! tokens and timestamps, `ftl::synth::replicate`) built once under `target/bench-data/`.
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// `../shared/traces/<name>`; panics with the directory's name when the real traces are missing.
pub fn real_trace(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/traces");
    assert!(
        dir.is_dir(),
        "the benchmarks need real traces in {}",
        dir.display()
    );
    dir.join(name)
}

/// A replica of `source` of at least `min_bytes` (uncompressed), gzip-compressed if `gzip`, under
/// `target/bench-data/`. Copies are 60 s apart with ids 2³² apart; built copy by copy, so building a 1 GiB replica
/// needs no 1 GiB buffer. Reused when present.
pub fn replica(source: &Path, min_bytes: u64, gzip: bool) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-data");
    std::fs::create_dir_all(&dir).expect("create target/bench-data");
    let raw = std::fs::read(source).expect("read real trace");
    let copies = min_bytes.div_ceil(raw.len() as u64);
    let stem = source.file_stem().unwrap_or_default().to_string_lossy();
    let path = dir.join(format!(
        "{stem}_x{copies}.pftrace{}",
        if gzip { ".gz" } else { "" }
    ));
    if path.exists() {
        return path;
    }
    eprintln!("building {} ...", path.display());
    let tmp = path.with_extension("partial");
    let file = BufWriter::new(File::create(&tmp).expect("create bench trace"));
    let mut out: Box<dyn Write> = if gzip {
        Box::new(flate2::write::GzEncoder::new(
            file,
            flate2::Compression::default(),
        ))
    } else {
        Box::new(file)
    };
    ftl::synth::replicate(&raw, copies, 60_000_000_000, 1 << 32, &mut out).expect("write replica");
    drop(out);
    std::fs::rename(&tmp, &path).expect("rename bench trace");
    path
}
