//! GNU gettext catalogs (`.mo`): which of their bytes a program looks things up by.
//!
//! A binary file is served unchanged, so the names it stores must not change (the policy
//! freezes them, `FreezeReason::Binary`). A compiled catalog is looked up only by its
//! original strings (the `msgid`s, with their `msgctxt` and plural forms): the translations
//! are output, and the header (the translation of the empty `msgid`) is metadata. So only
//! the original strings of a catalog count as stored names; everything else in it (a
//! `Project-Id-Version: django` header, every translated word) freezes nothing.
//!
//! The reader checks every offset and length against the file: a file that only looks like
//! a catalog (a bad offset, a truncated table) is `None`, and the caller treats all of its
//! bytes as stored names, as for any other binary file.

/// Little- and big-endian forms of the catalog magic number 0x950412de.
const MAGIC_LE: [u8; 4] = [0xde, 0x12, 0x04, 0x95];
const MAGIC_BE: [u8; 4] = [0x95, 0x04, 0x12, 0xde];

/// The original strings of a `.mo` catalog (the empty one of the header left out), or `None`
/// when `b` is not a well-formed catalog.
pub fn mo_original_strings(b: &[u8]) -> Option<Vec<&[u8]>> {
    let magic: [u8; 4] = b.get(0..4)?.try_into().ok()?;
    let big = match magic {
        MAGIC_LE => false,
        MAGIC_BE => true,
        _ => return None,
    };
    let word = |at: usize| -> Option<usize> {
        let w: [u8; 4] = b.get(at..at.checked_add(4)?)?.try_into().ok()?;
        let v = if big {
            u32::from_be_bytes(w)
        } else {
            u32::from_le_bytes(w)
        };
        usize::try_from(v).ok()
    };
    let count = word(8)?;
    let table = word(12)?;
    // Each entry is 8 bytes: a count larger than the file can hold is no catalog.
    if count > b.len() / 8 {
        return None;
    }
    let mut out = Vec::with_capacity(count);
    for i in 0..count {
        let entry = table.checked_add(i.checked_mul(8)?)?;
        let len = word(entry)?;
        let off = word(entry.checked_add(4)?)?;
        let s = b.get(off..off.checked_add(len)?)?;
        if !s.is_empty() {
            out.push(s);
        }
    }
    Some(out)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A little-endian catalog of `(msgid, msgstr)` pairs, laid out as msgfmt does.
    pub(crate) fn catalog(pairs: &[(&str, &str)]) -> Vec<u8> {
        let n = pairs.len();
        let header = 28;
        let orig_table = header;
        let trans_table = orig_table + 8 * n;
        let mut data_at = trans_table + 8 * n;
        let mut tables = [Vec::new(), Vec::new()];
        let mut data = Vec::new();
        for (k, side) in [0usize, 1].iter().enumerate() {
            for p in pairs {
                let s = if *side == 0 { p.0 } else { p.1 };
                tables[k].extend_from_slice(&(s.len() as u32).to_le_bytes());
                tables[k].extend_from_slice(&(data_at as u32).to_le_bytes());
                data.extend_from_slice(s.as_bytes());
                data.push(0);
                data_at += s.len() + 1;
            }
        }
        let mut out = Vec::new();
        out.extend_from_slice(&MAGIC_LE);
        for w in [0u32, n as u32, orig_table as u32, trans_table as u32, 0, 0] {
            out.extend_from_slice(&w.to_le_bytes());
        }
        out.extend_from_slice(&tables[0]);
        out.extend_from_slice(&tables[1]);
        out.extend_from_slice(&data);
        out
    }

    #[test]
    fn only_the_original_strings_are_read() {
        let mo = catalog(&[
            ("", "Project-Id-Version: shop\nPlural-Forms: nplurals=2;\n"),
            ("Cart total", "Warenkorb Summe"),
            ("menu\u{4}Checkout", "Kasse"),
        ]);
        let keys = mo_original_strings(&mo).unwrap();
        assert_eq!(
            keys,
            vec![&b"Cart total"[..], "menu\u{4}Checkout".as_bytes()]
        );
    }

    #[test]
    fn anything_malformed_is_no_catalog() {
        let mo = catalog(&[("Cart", "Warenkorb")]);
        assert!(mo_original_strings(b"not a catalog at all").is_none());
        assert!(mo_original_strings(&mo[..20]).is_none());
        let mut bad = mo.clone();
        bad[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(mo_original_strings(&bad).is_none());
        let mut huge = mo.clone();
        huge[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(mo_original_strings(&huge).is_none());
        // Every truncation of a good catalog is refused or read within bounds.
        for cut in 0..mo.len() {
            let _ = mo_original_strings(&mo[..cut]);
        }
    }
}
