use clap::{Parser, Subcommand};
use schrodinger::cli::{self, ExportArgs, MountArgs, TranslateArgs, UnmountArgs};

/// Mount a Python checkout as a different but equivalent repository.
#[derive(Parser)]
#[command(name = "schrodinger", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Mount the view of ORIGINAL at MOUNTPOINT (returns once the view is ready).
    Mount(MountArgs),
    /// Flush, unmount and wait for the daemon to exit.
    Unmount(UnmountArgs),
    /// Write the view of ORIGINAL into OUTDIR as a plain directory (no FUSE needed).
    Export(ExportArgs),
    /// Build the view's bundle offline: summary of what is renamed and frozen, `--out` saves it.
    Map(cli::map::MapArgs),
    /// Scan a Python environment into the scan cache ahead of any mount (at image build time).
    #[command(name = "scan-env")]
    ScanEnv(cli::scan_env::ScanEnvArgs),
    /// A guided tour: mount a sample project's view, grep it, run its tests, edit through it.
    Demo(cli::demo::DemoArgs),
    /// Translate text on standard input (a problem statement, a traceback, a test id).
    Translate(TranslateArgs),
    /// Summarize or compare traces of what agents did in views (`mount --trace`).
    Trace(cli::trace::TraceArgs),
    /// Translate a diff in git's format between the view's and the original's coordinates.
    Patch(cli::patch::PatchArgs),
    /// Run a test command on ORIGINAL and on its view and compare outcomes test by test.
    Verify(cli::verify::VerifyArgs),
    /// Replace a Python environment's editable install of ORIGINAL with one of the VIEW.
    Repoint(cli::repoint::RepointArgs),
    /// Run an agent command on the view of REPO, walled off from the original; write its patch.
    Run(cli::run::RunArgs),
    /// Run a command inside the agent's namespaces of a running `run` (for `docker exec`).
    Enter(cli::run::enter::EnterArgs),
    /// Internal: the agent's namespace (started by `run`).
    #[command(name = "run-agent", hide = true)]
    RunAgent { spec: String },
}

/// Caps glibc's malloc arenas at two (unless `MALLOC_ARENA_MAX` says otherwise). By default
/// glibc gives each busy thread an arena of its own, up to eight per core; the daemon's FUSE
/// and scan threads free views in one arena and allocate in another, and memory freed that
/// way is not given back. On the 10x scale tree the mount daemon's peak RSS after its
/// background scan and three rounds of `grep -rn`, `find` and `cat` of every `.py` was
/// 1,221 MB with the default and 825 MB with two arenas (docs/scale.md).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn limit_malloc_arenas() {
    if std::env::var_os("MALLOC_ARENA_MAX").is_none() {
        // SAFETY: `mallopt` only sets an allocator parameter; it is called before any other
        // thread exists, and M_ARENA_MAX with a positive value is a documented setting.
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, 2);
        }
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn limit_malloc_arenas() {}

fn main() {
    limit_malloc_arenas();
    let cli = Cli::parse();
    // The mount daemon logs to its state directory; every other command logs to standard
    // error when RUST_LOG asks for it.
    if !matches!(cli.command, Command::Mount(_)) {
        if let Ok(filter) = tracing_subscriber::EnvFilter::try_from_default_env() {
            let _ = tracing_subscriber::fmt()
                .with_env_filter(filter)
                .with_writer(std::io::stderr)
                .try_init();
        }
    }
    let result = match &cli.command {
        Command::Run(a) => match cli::run::run(a) {
            Ok(status) => std::process::exit(status),
            Err(e) => {
                // Not 1: that is an agent's status too often to mean "run failed".
                eprintln!("schrodinger run: {e}");
                std::process::exit(cli::run::agent::SETUP_FAILED);
            }
        },
        Command::Enter(a) => match cli::run::enter::enter(a) {
            Ok(status) => std::process::exit(status),
            Err(e) => {
                eprintln!("schrodinger enter: {e}");
                std::process::exit(cli::run::agent::SETUP_FAILED);
            }
        },
        Command::RunAgent { spec } => std::process::exit(cli::run::agent::main(spec)),
        Command::Mount(a) => cli::mount::mount(a),
        Command::Unmount(a) => cli::mount::unmount(a),
        Command::Export(a) => cli::export::export(a),
        Command::Translate(a) => cli::translate::translate(a),
        Command::Trace(a) => cli::trace::trace(a),
        Command::Patch(a) => cli::patch::patch(a),
        Command::Demo(a) => cli::demo::demo(a),
        Command::Map(a) => cli::map::map(a),
        Command::ScanEnv(a) => cli::scan_env::scan_env(a),
        Command::Verify(a) => cli::verify::verify(a),
        Command::Repoint(a) => cli::repoint::repoint(a),
    };
    if let Err(e) = result {
        eprintln!("schrodinger: {e}");
        std::process::exit(1);
    }
}
