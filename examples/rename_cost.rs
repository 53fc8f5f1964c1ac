//! Time Level 2's content swap over every file of a tree, read as it is named and read as
//! text (as a temporary file with no extension is, before it is renamed onto its name).
//!
//!     cargo run --release --example rename_cost -- BUNDLE TREE [ROUNDS]
//!
//! BUNDLE is `schrodinger map --out` of TREE. Prints per round the wall time over the `.py`
//! files swapped under their own names, the same bytes swapped under a name with no
//! extension, and a hash of all outputs, so two builds can be compared for speed and output.

use std::path::Path;
use std::time::Instant;

use sha2::{Digest, Sha256};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: rename_cost BUNDLE TREE [ROUNDS]");
        std::process::exit(2);
    }
    let rounds: usize = args.get(3).and_then(|r| r.parse().ok()).unwrap_or(3);
    let (bundle, tree) =
        schrodinger::bundle::load(Path::new(&args[1]), Path::new(&args[2])).expect("bundle");
    let renamer = bundle.renamer().expect("renamer");
    let files: Vec<(Vec<u8>, Vec<u8>)> = tree
        .files
        .iter()
        .filter(|f| f.rel.extension().is_some_and(|e| e == "py"))
        .map(|f| {
            (
                f.rel.to_string_lossy().into_owned().into_bytes(),
                f.content.clone(),
            )
        })
        .collect();
    println!("{} files", files.len());
    for round in 1..=rounds {
        let mut h = Sha256::new();
        let t = Instant::now();
        for (p, b) in &files {
            h.update(renamer.swap_content(p, b));
        }
        let py = t.elapsed();
        let t = Instant::now();
        for (_, b) in &files {
            h.update(renamer.swap_content(b"tmp/sedAbC123", b));
        }
        let text = t.elapsed();
        println!(
            "round {round}: as python {:.0} ms, as text {:.0} ms, outputs {:x}",
            py.as_secs_f64() * 1e3,
            text.as_secs_f64() * 1e3,
            h.finalize()
        );
    }
}
