//! schrodinger: show a Python checkout as a different but equivalent repository.
//!
//! `transform` is the pure core (no I/O, no FUSE); `fs` is the filesystem logic over a
//! store; `fuse` is the only module that talks to the kernel through fuser; `bundle` builds
//! the view definition for a tree and seed; `programs` reads the outside programs a
//! repository runs; `trace` records the requests a mount serves
//! (`mount --trace`); `cli` holds the subcommands.

pub mod bundle;
pub mod cli;
pub mod fs;
pub mod fuse;
pub mod programs;
pub mod session;
pub mod shadow;
pub mod trace;
pub mod transform;
