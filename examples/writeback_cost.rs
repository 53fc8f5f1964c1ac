//! Time Level 3's write path on every `.py` file under a directory, as `sed -i` meets it:
//! the file's view (seed 7), one line added at its top, and the inverse of that view.
//!
//!     cargo run --release --example writeback_cost -- DIR [ROUNDS]
//!
//! Prints, per round, the wall time of the inverses alone (the plans are made first, not
//! timed), how many files are shown in their own order (an edit of those maps every line to
//! where it is, and `inverse` returns without analysing the view), and a hash of every
//! result, so two builds can be compared for speed and for giving the same originals.

mod common;
use common::python_files;
use std::path::Path;
use std::time::Instant;

use schrodinger::transform::layout;
use sha2::{Digest, Sha256};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(dir) = args.get(1) else {
        eprintln!("usage: writeback_cost DIR [ROUNDS]");
        std::process::exit(2);
    };
    let rounds: usize = args.get(2).and_then(|r| r.parse().ok()).unwrap_or(3);
    let mut paths = Vec::new();
    python_files(Path::new(dir), &mut paths);
    let ordered = Default::default();
    let cases: Vec<(Vec<u8>, layout::Layout, Vec<u8>)> = paths
        .iter()
        .filter_map(|p| std::fs::read(p).ok().map(|b| (p, b)))
        .map(|(p, original)| {
            let l = layout::plan(p.to_string_lossy().as_bytes(), &original, 7, &ordered);
            let edited = [&b"# edit\n"[..], &layout::render(&original, &l)].concat();
            (original, l, edited)
        })
        .collect();
    let own_order = cases.iter().filter(|(_, l, _)| l.is_identity()).count();
    let bytes: usize = cases.iter().map(|(o, _, _)| o.len()).sum();
    let own_bytes: usize = cases
        .iter()
        .filter(|(_, l, _)| l.is_identity())
        .map(|(o, _, _)| o.len())
        .sum();
    println!(
        "{} files, {bytes} bytes; {own_order} files ({own_bytes} bytes) shown in their own order",
        cases.len()
    );
    for round in 1..=rounds {
        let t = Instant::now();
        let mut h = Sha256::new();
        for (original, l, edited) in &cases {
            let (back, back_layout) = layout::inverse(original, l, edited);
            h.update(&back);
            h.update(format!("{:?}", back_layout.segments()).as_bytes());
        }
        println!(
            "round {round}: inverse {:.0} ms, results {:x}",
            t.elapsed().as_secs_f64() * 1e3,
            h.finalize()
        );
    }
}
