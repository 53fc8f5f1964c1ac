//! `schrodinger translate`: text from one coordinate system to the other.
//!
//! Level 2 is an involution, so both directions apply the same map; `--to` says which way the
//! user means, which matters once layouts (Level 3) take part.

use std::io::{Read, Write};

use super::{build_bundle, CliError, TranslateArgs};

pub fn translate(args: &TranslateArgs) -> Result<(), CliError> {
    let bundle = build_bundle(&args.original, &args.view)?;
    let renamer = bundle.renamer()?;
    let mut input = Vec::new();
    std::io::stdin()
        .read_to_end(&mut input)
        .map_err(|e| CliError::io("reading standard input", e))?;
    let text = String::from_utf8(input)
        .map_err(|_| CliError::Msg("standard input is not UTF-8 text".into()))?;
    let _ = args.to;
    let out = renamer.swap_text(&text);
    std::io::stdout()
        .write_all(out.as_bytes())
        .map_err(|e| CliError::io("writing standard output", e))
}
