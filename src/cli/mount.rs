//! `schrodinger mount` and `schrodinger unmount`.

use super::{CliError, MountArgs, UnmountArgs};

pub fn mount(args: &MountArgs) -> Result<(), CliError> {
    let _ = args;
    Err(CliError::Msg("not implemented yet".into()))
}

pub fn unmount(args: &UnmountArgs) -> Result<(), CliError> {
    let _ = args;
    Err(CliError::Msg("not implemented yet".into()))
}
