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

/// Signatures at the start of the file.
const SIGNATURES: &[&[u8]] = &[
    b"%PDF-",
    b"\x89PNG\r\n\x1a\n",
    b"\xff\xd8\xff",
    b"GIF87a",
    b"GIF89a",
    b"II*\0",
    b"MM\0*",
    b"\0\0\x01\0",
    b"wOFF",
    b"wOF2",
    b"OTTO",
    b"\0\x01\0\0",
];

/// Whether `b` is a document, an image or a font by its signature.
pub fn is_media(b: &[u8]) -> bool {
    SIGNATURES.iter().any(|s| b.starts_with(s))
        || (b.len() >= 12 && b.starts_with(b"RIFF") && &b[8..12] == b"WEBP")
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
    }
}
