//! Time Level 3's analysis over every `.py` file under a directory, and hash what it plans.
//!
//!     cargo run --release --example level3_cost -- DIR [ROUNDS [analyze|plan]]
//!
//! Prints, per round, the wall time of: a tree-sitter parse alone, `reorder::analyze`, and
//! `layout::plan` (seed 7, no ordered names: analysis of the original, and for a file that
//! moves, the render and the checked inverse), then a hash of every plan, so two builds can
//! be compared for speed and for giving the same layouts.

mod common;
use common::python_files;
use std::path::{Path, PathBuf};
use std::time::Instant;

use schrodinger::transform::{layout, reorder};
use sha2::{Digest, Sha256};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(dir) = args.get(1) else {
        eprintln!("usage: level3_cost DIR [ROUNDS]");
        std::process::exit(2);
    };
    let rounds: usize = args.get(2).and_then(|r| r.parse().ok()).unwrap_or(3);
    // `analyze` or `plan` alone (for `perf stat`, whose counts do not move with the load).
    let only = args.get(3).map(String::as_str);
    let mut paths = Vec::new();
    python_files(Path::new(dir), &mut paths);
    let files: Vec<(PathBuf, Vec<u8>)> = paths
        .into_iter()
        .filter_map(|p| std::fs::read(&p).ok().map(|b| (p, b)))
        .collect();
    let bytes: usize = files.iter().map(|(_, b)| b.len()).sum();
    println!("{} files, {} bytes", files.len(), bytes);
    let ordered = Default::default();
    for round in 1..=rounds {
        if let Some(step) = only {
            let t = Instant::now();
            for (p, b) in &files {
                if step == "analyze" {
                    let _ = std::hint::black_box(reorder::analyze(b));
                } else {
                    std::hint::black_box(layout::plan(
                        p.to_string_lossy().as_bytes(),
                        b,
                        7,
                        &ordered,
                    ));
                }
            }
            println!(
                "round {round}: {step} {:.0} ms",
                t.elapsed().as_secs_f64() * 1e3
            );
            continue;
        }
        let t = Instant::now();
        for (_, b) in &files {
            let mut p = tree_sitter::Parser::new();
            p.set_language(&tree_sitter_python::LANGUAGE.into())
                .unwrap();
            std::hint::black_box(p.parse(b, None));
        }
        let parse = t.elapsed();
        let t = Instant::now();
        for (_, b) in &files {
            let _ = std::hint::black_box(reorder::analyze(b));
        }
        let analyze = t.elapsed();
        let t = Instant::now();
        let mut h = Sha256::new();
        let mut moved = 0;
        for (p, b) in &files {
            let l = layout::plan(p.to_string_lossy().as_bytes(), b, 7, &ordered);
            moved += usize::from(!l.is_identity());
            h.update(format!("{:?}", l.segments()).as_bytes());
        }
        let plan = t.elapsed();
        println!(
            "round {round}: parse {:.0} ms, analyze {:.0} ms, plan {:.0} ms ({moved} files moved), plans {:x}",
            parse.as_secs_f64() * 1e3,
            analyze.as_secs_f64() * 1e3,
            plan.as_secs_f64() * 1e3,
            h.finalize()
        );
    }
}
