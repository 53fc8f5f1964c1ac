//! Labels spelled from field names: `"Pub date"`.
//!
//! Frameworks make a field's label from its name at run time (Django's form label
//! `capfirst(name.replace("_", " "))`), and tests compare the rendered form with the label
//! written out (`"<li>Pub date:"`). The view renames the name, so the written label follows
//! it: a phrase of space-separated letter words in text, the first capitalised and the rest
//! lower case, whose
//! words are those of a renamed lower-case code name of two words or more (`pub_date`),
//! changes word by word as that name does, where it is written as a label: a whole
//! phrase before a label suffix `:` or the whole text of a markup element. Words that run
//! on into more words are prose (`"End tag (%s) seen too early"` beside a name `end_tag`),
//! a phrase elsewhere may be an outside system's text (`"Permission denied"`, the message
//! of an `OSError`, beside Django's handler `permission_denied`; docstrings that restate a
//! function's name), and names in other shapes are no fields (`"No such option"` beside
//! the class `NoSuchOption`). Title
//! case is left out: it is how HTTP reason phrases and headings are written
//! (`"Internal Server Error"`, which werkzeug renders while a flask test names a handler
//! `internal_server_error`), and wtforms' `.title()` labels with them.
//!
//! Involution: a word is compared by its original spelling (a virtual word stands for the
//! token it is paired with, every other word for itself), which neither direction of the
//! swap changes, and shapes, letters and the bytes between runs never change. So both
//! directions find the same phrases and make the same choices, whatever other rules do to
//! the words around them.

use super::{lexer, tokens, Class, Renamer};

/// The most words a label holds.
const LONGEST: usize = 5;

fn is_title(w: &str) -> bool {
    let b = w.as_bytes();
    !b.is_empty() && b[0].is_ascii_uppercase() && b[1..].iter().all(u8::is_ascii_lowercase)
}

fn is_lower(w: &str) -> bool {
    !w.is_empty() && w.bytes().all(|b| b.is_ascii_lowercase())
}

impl Renamer {
    /// A word's original spelling in its shape: the same for a word and its image.
    fn original_word(&self, w: &str) -> String {
        let lower = w.to_ascii_lowercase();
        match self.tokens.get(lower.as_str()) {
            Some(t) if self.virtual_words.contains(lower.as_str()) => {
                let mut out = String::with_capacity(t.len());
                tokens::render(t, tokens::shape_of(w), &mut out);
                out
            }
            _ => w.to_string(),
        }
    }

    /// A label starting at text run `i`: the index after its last run and its words as they
    /// become, or `None` when none starts there.
    pub(super) fn label_at(
        &self,
        s: &[u8],
        runs: &[lexer::Run],
        i: usize,
    ) -> Option<(usize, Vec<String>)> {
        let r = runs[i];
        if !matches!(r.class, Class::String | Class::Text | Class::Comment) {
            return None;
        }
        let text = |x: &lexer::Run| std::str::from_utf8(&s[x.start..x.end]).ok();
        let letters =
            |x: &lexer::Run| text(x).filter(|w| w.bytes().all(|b| b.is_ascii_alphabetic()));
        // Two runs of one phrase: same class, one space between.
        let joined = |a: &lexer::Run, b: &lexer::Run| {
            a.class == b.class && b.start == a.end + 1 && s[a.end] == b' '
        };
        let first = text(&r).filter(|w| is_title(w))?;
        let before = r.start.checked_sub(1).map(|k| s[k]);
        // A piece of a hyphen group is the group's (`Renamer::swap_hyphen_group`); a word
        // after another word of the phrase is no start.
        if before == Some(b'-')
            || (i > 0 && joined(&runs[i - 1], &r) && letters(&runs[i - 1]).is_some())
        {
            return None;
        }
        let mut words = vec![first];
        let mut j = i + 1;
        while j < runs.len() && joined(&runs[j - 1], &runs[j]) {
            words.push(letters(&runs[j])?);
            if words.len() > LONGEST {
                return None;
            }
            j += 1;
        }
        // Written as a label: before a label suffix (`Pub date:`) or as the whole text of a
        // markup element (`<label>Pub date</label>`).
        let after = s.get(runs[j - 1].end).copied();
        let marked = after == Some(b':') || (before == Some(b'>') && after == Some(b'<'));
        if words.len() < 2 || !marked || !words[1..].iter().all(|w| is_lower(w)) {
            return None;
        }
        let original: Vec<String> = words.iter().map(|w| self.original_word(w)).collect();
        // A word that would change but is frozen as a run of its own, as written, keeps the
        // phrase as written: Django's form labels are also gettext message ids (`"Server
        // error"`, `"Email address"`), looked up in binary catalogs that hold those words. A
        // word that changes nowhere (`date`, an outside name) does not matter, nor another
        // case of the word (Django's `pub` is data somewhere; its label `Pub date` follows
        // the field `pub_date`).
        if original
            .iter()
            .any(|w| self.frozen_runs.contains(w.as_str()) && self.image(w).is_some())
        {
            return None;
        }
        // Two to `LONGEST` lower-case letter words joined by `_`: the label's field name, as
        // the code spells it (`pub_date`; `PubDate` or `PUB_DATE` are no field's).
        let key = original.join("_").to_ascii_lowercase();
        if !self.code_idents.contains(key.as_str()) || self.is_frozen_run(&key) {
            return None;
        }
        let new = words
            .iter()
            .map(|w| self.image(w).unwrap_or_else(|| w.to_string()))
            .collect();
        Some((j, new))
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::swap_py;
    use super::*;

    /// Only a lower-case name of two to five words is a field a label is made from.
    #[test]
    fn labels_are_made_from_lower_case_names_of_two_words_or_more() {
        let names = ["PubDate", "PUB_TIME", "pub_a_b_c_d_e", "pub_end"];
        let r = Renamer::new([("pub", "owed")], [], names).unwrap();
        for label in ["Pub date:", "Pub time:", "Pub a b c d e:"] {
            let src = format!("x = '{label}'");
            assert_eq!(swap_py(&r, &src), src);
        }
        assert_eq!(swap_py(&r, "x = 'Pub end:'"), "x = 'Owed end:'");
    }

    /// Django renders the field `pub_date` as `Pub date:` or in a `<label>`. Words that
    /// spell no renamed field name (`Pub dates`, `Explicit pk` of the class `ExplicitPK`),
    /// spell one in lower or title case or joined by a hyphen, run on into more words
    /// (prose), or are not written as a label (`'End date'`), stay; `Key` follows `key` by
    /// another rule.
    #[test]
    fn labels_made_from_field_names_follow_them() {
        let r = Renamer::new(
            [
                ("pub", "owed"),
                ("explicit", "vacant"),
                ("key", "lock"),
                ("end", "gum"),
            ],
            [],
            ["pub_date", "ExplicitPK", "key", "end_date"],
        )
        .unwrap();
        let src = "a = '<li>Pub date: <input name=\"pub_date\">'
b = '<label>Pub date</label>'
c = ['Explicit pk with this Key already exists.', 'End date is required']
d = ['Pub dates:', 'pub date:', 'Pub-date:', 'The Pub date:', 'End Date:', 'End date']
";
        let want = "a = '<li>Owed date: <input name=\"owed_date\">'
b = '<label>Owed date</label>'
c = ['Explicit pk with this Lock already exists.', 'End date is required']
d = ['Pub dates:', 'pub date:', 'Pub-date:', 'The Pub date:', 'End Date:', 'End date']
";
        assert_eq!(swap_py(&r, src), want);
        assert_eq!(swap_py(&r, want), src);
    }

    /// A phrase with a word that would change but is frozen on its own as written stays:
    /// `Server` is in a binary catalog. A frozen word that changes nowhere (`error`), or
    /// frozen only in another case (`server`), does not matter.
    #[test]
    fn labels_with_a_frozen_word_that_would_change_stay() {
        let r = Renamer::new([("server", "tulip")], ["Server"], ["server_error"]).unwrap();
        assert_eq!(
            swap_py(&r, "x = _('Server error:')"),
            "x = _('Server error:')"
        );
        let r = Renamer::new([("server", "tulip")], ["server"], ["server_error"]).unwrap();
        assert_eq!(
            swap_py(&r, "x = _('Server error:')"),
            "x = _('Tulip error:')"
        );
        let r = Renamer::new([("server", "tulip")], ["error"], ["server_error"]).unwrap();
        assert_eq!(
            swap_py(&r, "x = _('Server error:')"),
            "x = _('Tulip error:')"
        );
        assert_eq!(
            swap_py(&r, "x = _('Tulip error:')"),
            "x = _('Server error:')"
        );
    }

    /// A name that stays keeps its label too; a phrase whose words come back to a renamed
    /// name once a view word among them is read as its token is still that label.
    #[test]
    fn labels_of_frozen_names_stay_and_mixed_phrases_come_back() {
        let r = Renamer::new([("pub", "owed")], ["pub_date"], ["pub_date", "pub_time"]).unwrap();
        assert_eq!(swap_py(&r, "x = 'Pub date:'"), "x = 'Pub date:'");
        assert_eq!(swap_py(&r, "x = 'Owed time:'"), "x = 'Pub time:'");
        assert_eq!(swap_py(&r, "x = 'Pub time:'"), "x = 'Owed time:'");
    }
}
