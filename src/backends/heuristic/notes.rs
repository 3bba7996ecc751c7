//! The user's ad-hoc notes as consolidation sees them: each note is a
//! preference, unless it asks to forget something, in which case it removes
//! the preferences that contain its key words.
//!
//! A note starting with "forget" (or "unlearn") always asks to forget. One
//! starting with "remove", "delete" or "drop" does so only when it matches a
//! preference; otherwise it is kept as a preference, so an instruction such
//! as "delete build artifacts before a release" is never lost.

use super::rawparse::clean_text;
use super::tally::words;
use crate::backends::consolidate::Note;

/// Verbs that always start a forget request.
const FORGET_VERBS: &[&str] = &["forget", "unlearn"];
/// Verbs that start a forget request when something matches.
const REMOVE_VERBS: &[&str] = &["remove", "delete", "drop"];
/// Words that carry no meaning for matching.
const FILLER: &[&str] = &[
    "a",
    "about",
    "all",
    "an",
    "any",
    "anything",
    "everything",
    "i",
    "it",
    "me",
    "memory",
    "memories",
    "my",
    "note",
    "notes",
    "preference",
    "preferences",
    "rule",
    "rules",
    "that",
    "the",
    "these",
    "this",
    "those",
];

/// A note kept as a preference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotePreference {
    /// The note, on one line.
    pub text: String,
    /// Its file name in `extensions/ad_hoc/notes/`.
    pub file_name: String,
}

/// A note that removed preferences.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForgetRequest {
    /// Its file name in `extensions/ad_hoc/notes/`.
    pub file_name: String,
    /// The key words a preference must all contain to be removed.
    pub words: Vec<String>,
}

impl ForgetRequest {
    /// Whether a preference contains every key word.
    pub fn matches(&self, preference: &str) -> bool {
        let have = words(preference);
        self.words.iter().all(|w| have.contains(w))
    }
}

/// All notes, interpreted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NoteBook {
    /// Notes kept as preferences, in file-name order.
    pub preferences: Vec<NotePreference>,
    /// Notes that asked to forget, in file-name order.
    pub forgets: Vec<ForgetRequest>,
}

impl NoteBook {
    /// Interprets `notes` (in file-name order). `session_preferences` are the
    /// preferences of the consolidated sessions, which a "remove …" note may target.
    /// A forget request removes earlier notes' preferences; later notes stand.
    pub fn read(notes: &[Note], session_preferences: &[&str]) -> NoteBook {
        let mut book = NoteBook::default();
        for note in notes {
            let text = note_text(&note.text);
            if text.is_empty() {
                continue;
            }
            match forget_request(&text, &note.file_name) {
                Some(req) if is_decisive(&text) || book.hits(&req, session_preferences) => {
                    book.preferences.retain(|p| !req.matches(&p.text));
                    book.forgets.push(req);
                }
                _ => book.preferences.push(NotePreference {
                    text,
                    file_name: note.file_name.clone(),
                }),
            }
        }
        book
    }

    /// Whether any forget request removes this preference.
    pub fn forgets(&self, preference: &str) -> bool {
        self.forgets.iter().any(|r| r.matches(preference))
    }

    /// Whether there is nothing to show.
    pub fn is_empty(&self) -> bool {
        self.preferences.is_empty() && self.forgets.is_empty()
    }

    /// Whether a request matches a session preference or an earlier note.
    fn hits(&self, req: &ForgetRequest, session_preferences: &[&str]) -> bool {
        session_preferences.iter().any(|p| req.matches(p))
            || self.preferences.iter().any(|p| req.matches(&p.text))
    }
}

/// A note on one line: Markdown heading and bullet marks dropped, secrets redacted.
fn note_text(raw: &str) -> String {
    let joined: Vec<&str> = raw
        .lines()
        .map(|l| l.trim().trim_start_matches(['#', '-', '*', '>']).trim())
        .filter(|l| !l.is_empty())
        .collect();
    clean_text(&crate::redact::redact(&joined.join(" ")))
}

/// The leading verb of a note, lower-case, after an optional "please".
fn leading_verb(text: &str) -> Option<String> {
    let w = words(text);
    let first = if w.first().map(String::as_str) == Some("please") {
        w.get(1)
    } else {
        w.first()
    };
    first.cloned()
}

/// Whether the note's verb always means "forget".
fn is_decisive(text: &str) -> bool {
    leading_verb(text).is_some_and(|v| FORGET_VERBS.contains(&v.as_str()))
}

/// The forget request a note makes, if it starts with a forget verb and names something.
fn forget_request(text: &str, file_name: &str) -> Option<ForgetRequest> {
    let verb = leading_verb(text)?;
    if !FORGET_VERBS.contains(&verb.as_str()) && !REMOVE_VERBS.contains(&verb.as_str()) {
        return None;
    }
    let key_words: Vec<String> = words(text)
        .into_iter()
        .skip_while(|w| w != &verb)
        .skip(1)
        .filter(|w| !FILLER.contains(&w.as_str()))
        .collect();
    (!key_words.is_empty()).then(|| ForgetRequest {
        file_name: file_name.to_string(),
        words: key_words,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn note(name: &str, text: &str) -> Note {
        Note {
            file_name: name.into(),
            text: text.into(),
        }
    }

    #[test]
    fn notes_become_preferences_on_one_line() {
        let book = NoteBook::read(
            &[note(
                "a.md",
                "# Style\n\n- always run cargo fmt\n  before committing\n",
            )],
            &[],
        );
        assert_eq!(
            book.preferences[0].text,
            "Style always run cargo fmt before committing"
        );
        assert!(book.forgets.is_empty());
        assert!(NoteBook::read(&[note("b.md", "  \n")], &[]).is_empty());
    }

    #[test]
    fn forget_removes_matching_preferences_by_whole_words() {
        let notes = [
            note("1.md", "Use npm for installs"),
            note("2.md", "Prefer pnpm workspaces"),
            note("3.md", "Forget the npm preference"),
        ];
        let book = NoteBook::read(&notes, &[]);
        assert_eq!(book.preferences.len(), 1);
        assert_eq!(book.preferences[0].text, "Prefer pnpm workspaces");
        assert_eq!(book.forgets[0].words, ["npm"]);
        assert!(book.forgets("use NPM, not yarn"));
        assert!(!book.forgets("use pnpm"));
    }

    #[test]
    fn later_notes_stand_and_empty_requests_do_nothing() {
        let book = NoteBook::read(
            &[
                note("1.md", "forget npm"),
                note("2.md", "use npm after all"),
            ],
            &[],
        );
        assert_eq!(book.preferences[0].text, "use npm after all");
        let book = NoteBook::read(&[note("1.md", "Forget it")], &[]);
        assert_eq!(book.preferences[0].text, "Forget it");
    }

    #[test]
    fn remove_only_forgets_when_something_matches() {
        let book = NoteBook::read(
            &[note("1.md", "Delete build artifacts before a release")],
            &["use pnpm"],
        );
        assert_eq!(book.preferences.len(), 1);
        let book = NoteBook::read(
            &[note("1.md", "Please remove the pnpm rule")],
            &["use pnpm"],
        );
        assert!(book.preferences.is_empty());
        assert_eq!(book.forgets[0].words, ["pnpm"]);
    }

    #[test]
    fn note_secrets_are_redacted() {
        let secret = format!("sk-{}", "a1B2".repeat(6));
        let book = NoteBook::read(&[note("1.md", &format!("deploy key is {secret}"))], &[]);
        assert!(!book.preferences[0].text.contains(&secret));
        assert!(book.preferences[0].text.contains(crate::redact::REDACTED));
    }
}
