//! `schrodinger demo`: a guided tour on a sample project that ships inside the binary.
//!
//! It uses the same commands a user types (it runs this binary's `mount` and `unmount`), so
//! what the tour shows is what the product does.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use include_dir::{include_dir, Dir};

use super::{build_bundle, CliError, ViewArgs};

static SAMPLE: Dir<'_> = include_dir!("$CARGO_MANIFEST_DIR/sample");

/// `schrodinger demo`.
#[derive(Debug, Clone, clap::Args)]
pub struct DemoArgs {
    /// Seed of the view shown.
    #[arg(long, default_value_t = 7)]
    pub seed: u64,
    /// Keep the temporary directory (original, view mountpoint, state) instead of removing it.
    #[arg(long)]
    pub keep: bool,
}

/// Write the embedded sample into `dst`.
pub fn unpack_sample(dst: &Path) -> Result<(), CliError> {
    fn walk(d: &Dir<'_>, dst: &Path) -> Result<(), CliError> {
        for f in d.files() {
            let p = dst.join(f.path());
            if let Some(parent) = p.parent() {
                std::fs::create_dir_all(parent)
                    .map_err(|e| CliError::io(format!("creating {}", parent.display()), e))?;
            }
            std::fs::write(&p, f.contents())
                .map_err(|e| CliError::io(format!("writing {}", p.display()), e))?;
        }
        for sub in d.dirs() {
            walk(sub, dst)?;
        }
        Ok(())
    }
    walk(&SAMPLE, dst)
}

fn step(title: &str) {
    println!("\n\x1b[1m== {title}\x1b[0m");
}

fn run(cmd: &mut Command, what: &str) -> Result<String, CliError> {
    let out = cmd
        .stdin(Stdio::null())
        .output()
        .map_err(|e| CliError::io(format!("running {what}"), e))?;
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    if !out.status.success() {
        return Err(CliError::Msg(format!("{what} failed:\n{text}")));
    }
    Ok(text)
}

fn git(dir: &Path) -> Command {
    let mut c = Command::new("git");
    c.arg("-C")
        .arg(dir)
        .args(["-c", "user.name=demo", "-c", "user.email=demo@localhost"]);
    c
}

fn listing(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![PathBuf::new()];
    while let Some(rel) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(root.join(&rel)) else {
            continue;
        };
        let mut names: Vec<_> = rd.filter_map(Result::ok).collect();
        names.sort_by_key(|e| e.file_name());
        for e in names.into_iter().rev() {
            let name = e.file_name();
            if crate::transform::hidden_in_original(name.as_encoded_bytes()) {
                continue;
            }
            let r = rel.join(&name);
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(r);
            } else {
                out.push(r.display().to_string());
            }
        }
    }
    out.sort();
    out
}

pub fn demo(args: &DemoArgs) -> Result<(), CliError> {
    let tmp = tempfile::Builder::new()
        .prefix("schrodinger-demo-")
        .tempdir()
        .map_err(|e| CliError::io("creating a temporary directory", e))?;
    let base = tmp.path().to_path_buf();
    let original = base.join("original");
    let view = base.join("view");
    let state = base.join("state");
    for d in [&original, &view, &state] {
        std::fs::create_dir_all(d)
            .map_err(|e| CliError::io(format!("creating {}", d.display()), e))?;
    }
    unpack_sample(&original)?;
    run(git(&original).arg("init").arg("-q"), "git init")?;
    run(git(&original).args(["add", "-A"]), "git add")?;
    run(
        git(&original).args(["commit", "-qm", "sample"]),
        "git commit",
    )?;

    let exe = std::env::current_exe().map_err(|e| CliError::io("locating this program", e))?;
    step(&format!(
        "schrodinger mount --seed {} {} {}",
        args.seed,
        original.display(),
        view.display()
    ));
    run(
        Command::new(&exe)
            .arg("mount")
            .arg("--seed")
            .arg(args.seed.to_string())
            .arg("--state")
            .arg(&state)
            .arg(&original)
            .arg(&view),
        "schrodinger mount",
    )?;
    let result = tour(args, &original, &view);
    step(&format!("schrodinger unmount {}", view.display()));
    let unmounted = run(
        Command::new(&exe).arg("unmount").arg(&view),
        "schrodinger unmount",
    );
    let diff = result.and_then(|d| unmounted.map(|_| d));
    match diff {
        Ok(()) => {
            step(&format!(
                "git -C {} diff   (the agent's patch, in original names)",
                original.display()
            ));
            let d = run(git(&original).args(["diff", "--stat", "-p"]), "git diff")?;
            print!("{d}");
        }
        Err(e) => {
            if args.keep {
                let _ = tmp.keep();
            }
            return Err(e);
        }
    }
    if args.keep {
        let kept = tmp.keep();
        println!("\nkept {}", kept.display());
    } else {
        println!("\ncleaned up {}", base.display());
    }
    Ok(())
}

fn tour(args: &DemoArgs, original: &Path, view: &Path) -> Result<(), CliError> {
    step("the original tree / the view (same files, other names)");
    let a = listing(original);
    let b = listing(view);
    let w = a.iter().map(String::len).max().unwrap_or(0);
    for i in 0..a.len().max(b.len()) {
        println!(
            "  {:<w$}   {}",
            a.get(i).map_or("", String::as_str),
            b.get(i).map_or("", String::as_str)
        );
    }

    // Find names through the same map the mount uses.
    let va = ViewArgs {
        seed: Some(args.seed),
        levels: Some("2".into()),
        python: None,
        freeze: None,
        bundle: None,
        rename_pure_locals: false,
        rewrite_share: None,
        rewrite_regions: None,
        rewrite_rules: None,
        rewrite_skip: None,
    };
    let bundle = build_bundle(original, &va)?;
    let renamer = bundle.renamer()?;
    let fines_view = renamer.swap_text("bookmobile/rules/fines.py");
    let fee_view = renamer.swap_text("compute_late_fee");

    step(&format!(
        "grep -rn {fee_view} (the view's name for a function)"
    ));
    let g = run(
        Command::new("grep")
            .args(["-rn", "--include=*.py", &fee_view, "."])
            .current_dir(view),
        "grep",
    )?;
    for line in g.lines().take(6) {
        println!("  {line}");
    }

    step("python3 -m unittest (the sample's own tests, inside the view)");
    let t = run(
        Command::new("python3")
            .args(["-m", "unittest"])
            .current_dir(view)
            .env("PYTHONDONTWRITEBYTECODE", "1"),
        "python3 -m unittest",
    )?;
    for line in t
        .lines()
        .rev()
        .take(3)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
    {
        println!("  {line}");
    }

    step(&format!(
        "an edit through the view: append a function to {fines_view}"
    ));
    let path = view.join(&fines_view);
    let mut text = std::fs::read_to_string(&path)
        .map_err(|e| CliError::io(format!("reading {}", path.display()), e))?;
    let added = format!(
        "\n\ndef {fee_view}_twice(*args, **kwargs):\n    return 2 * {fee_view}(*args, **kwargs)\n"
    );
    text.push_str(&added);
    std::fs::write(&path, &text)
        .map_err(|e| CliError::io(format!("writing {}", path.display()), e))?;
    print!("{added}");
    Ok(())
}
