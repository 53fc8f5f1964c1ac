//! Documents, images and fonts: binary files whose bytes no program looks a name up in.
//!
//! A binary file is served unchanged, so the names it stores freeze (`FreezeReason::Binary`):
//! a pickle, a database or an archive is read back by code that finds names in it. A PDF,
//! an image or a font is read by viewers and renderers, never searched for an identifier,
//! and what such a file spells (a PDF's title naming the drawing it was made from,
//! `django_unittest_classes_hierarchy.graffle`) kept Django's package name in every path and
//! import of its view. Such files freeze nothing. They are told by their signatures (the
//! first bytes each format starts with), not by their names, so a pickle named `.png` still
//! freezes what it stores.

/// Signatures at the start of the file that no other format begins with.
const SIGNATURES: &[&[u8]] = &[
    b"%PDF-",
    b"\x89PNG\r\n\x1a\n",
    b"\xff\xd8\xff",
    b"GIF87a",
    b"GIF89a",
    b"II*\0",
    b"MM\0*",
    b"wOFF",
    b"wOF2",
    b"OTTO",
];

/// Whether `b` is a document, an image or a font by its signature.
pub fn is_media(b: &[u8]) -> bool {
    SIGNATURES.iter().any(|s| b.starts_with(s))
        || (b.len() >= 12 && b.starts_with(b"RIFF") && &b[8..12] == b"WEBP")
        || is_icon(b)
        || is_truetype(b)
}

fn u16_at(b: &[u8], i: usize, le: bool) -> Option<u16> {
    let two = [*b.get(i)?, *b.get(i + 1)?];
    Some(if le {
        u16::from_le_bytes(two)
    } else {
        u16::from_be_bytes(two)
    })
}

/// An icon (`.ico`): its four bytes `0 0 1 0` could start a raw data file too, so the image
/// count and its first directory entry (reserved byte 0, one colour plane or none) must
/// agree.
fn is_icon(b: &[u8]) -> bool {
    let count = u16_at(b, 4, true).unwrap_or(0);
    b.starts_with(b"\0\0\x01\0")
        && count >= 1
        && b.len() >= 6 + 16 * usize::from(count)
        && b[9] == 0
        && u16_at(b, 10, true).is_some_and(|planes| planes <= 1)
}

/// A TrueType font: `0 1 0 0`, then a table count whose search range (the largest power of
/// two not above it, times 16) the header repeats.
fn is_truetype(b: &[u8]) -> bool {
    let (Some(tables), Some(range)) = (u16_at(b, 4, false), u16_at(b, 6, false)) else {
        return false;
    };
    b.starts_with(b"\0\x01\0\0")
        && (1..=512).contains(&tables)
        && u32::from(range) == (1u32 << tables.ilog2()) * 16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn media_are_told_by_their_signatures() {
        assert!(is_media(
            b"%PDF-1.3\n%\xc4\xe5 /Title (django_unittest.graffle)"
        ));
        assert!(is_media(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"));
        assert!(is_media(b"RIFF\x10\0\0\0WEBPVP8 "));
        // A pickle, a zip archive, a gettext catalog and a short file are not.
        assert!(!is_media(b"\x80\x04\x95\x10\0\0\0\0\0\0\0\x8c\x08builtins"));
        assert!(!is_media(b"PK\x03\x04\x14\0"));
        assert!(!is_media(&[0xde, 0x12, 0x04, 0x95, 0, 0, 0, 0]));
        assert!(!is_media(b"RIFF"));
        // An icon and a TrueType font by their headers; the same first four bytes before
        // other data (a raw little-endian 256, a big-endian 65536) are not.
        let mut ico = b"\0\0\x01\0\x01\0\x10\x10\0\0\x01\0\x20\0".to_vec();
        ico.resize(22, 0);
        assert!(is_media(&ico));
        assert!(!is_media(b"\0\0\x01\0\0\0\0\0"));
        assert!(is_media(b"\0\x01\0\0\0\x11\x01\0\0\x04\0\x10"));
        assert!(!is_media(b"\0\x01\0\0\0\x11\0\x40"));
    }
}
