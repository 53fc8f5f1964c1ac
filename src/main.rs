use clap::{Parser, Subcommand};
use schrodinger::cli::{self, MountArgs, UnmountArgs};

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
}

fn main() {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Mount(a) => cli::mount::mount(a),
        Command::Unmount(a) => cli::mount::unmount(a),
    };
    if let Err(e) = result {
        eprintln!("schrodinger: {e}");
        std::process::exit(1);
    }
}
