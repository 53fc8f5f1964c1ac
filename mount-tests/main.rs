//! Real-mount tests: the `schrodinger` binary mounts a committed copy of `sample/` and ordinary
//! tools (ls, find, grep, python3, sed, vim, sh, truncate, mv, rm, mkdir, git) work in the
//! view. Each test owns its temp dir, mountpoint and state dir, and unmounts through a guard,
//! so tests are independent and run in parallel.
//!
//! Laws covered (docs: /DESIGN.md): 1 round trip, 2 read your writes, 7 no leak,
//! 8 determinism, 9 nothing lost; plus law 5 (same test results) on the sample.

mod bad_input;
mod edits;
mod git;
mod harness;
mod history;
mod identity;
mod install;
mod killed;
mod leak;
mod reorder;
mod rewrite;
mod round_trip;
mod run;
mod staleness;
mod startup;
mod statement;
mod trace;
mod unittest;
mod views;
mod writes;
mod xattrs;
