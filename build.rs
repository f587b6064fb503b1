//! Build script: the build identity `gate build-id` prints — the SHA-256 over the manifest,
//! the lock file and every file under `src/`, computed exactly as the GitHub Action's
//! `source_hash` does (scripts/gate-action.sh), so the action can tell a `gate` on PATH built
//! from its own source from a stale or different build of the same version.

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        // `find -type f`: regular files, and directories walked (symlinks neither).
        match e.file_type() {
            Ok(t) if t.is_dir() => files(&p, out),
            Ok(t) if t.is_file() => out.push(p),
            _ => {}
        }
    }
}

fn main() {
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=Cargo.toml");
    println!("cargo:rerun-if-changed=Cargo.lock");
    let mut paths = vec![PathBuf::from("Cargo.toml"), PathBuf::from("Cargo.lock")];
    files(Path::new("src"), &mut paths);
    // `LC_ALL=C sort` of the paths as text: bytewise.
    let mut names: Vec<String> = paths
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut listing = String::new();
    for name in &names {
        let bytes = std::fs::read(name).unwrap_or_default();
        listing.push_str(&format!("{}  {name}\n", hex(&Sha256::digest(&bytes))));
    }
    println!(
        "cargo:rustc-env=GATE_SOURCE_HASH={}",
        hex(&Sha256::digest(listing.as_bytes()))
    );
}
