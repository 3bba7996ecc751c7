//! A label of several words that names a secret, at the start of its line,
//! then the secret: CLI tables (`| API Secret | X |`), aligned output
//! (`Secret ID    = X` from `nomad acl bootstrap`) and answered prompts
//! (`? Private API Key: X` from `atlas config init`). The label's words,
//! joined, are classified like any other name (`API_Secret`, `Secret_ID`).

use super::Finding;
use super::lex::{Value, alnum, run, run_back};

/// The most words a label has.
const MAX_WORDS: usize = 4;

/// Blanks an aligned column may put between a label and its separator.
const MAX_PADDING: usize = 16;

fn blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// The keyword found at `hit..hit_end` is in a word of a spaced label.
pub(super) fn spaced_label(text: &[u8], hit: usize, hit_end: usize, out: &mut Vec<Finding>) {
    let word_start = run_back(text, hit, 32, alnum);
    let mut label_end = run(text, hit_end, 32, alnum);
    // One more word may close the label (`Secret ID`).
    if text.get(label_end) == Some(&b' ') {
        let next = run(text, label_end + 1, 8, alnum);
        if next > label_end + 1 && separator_after(text, next).is_some() {
            label_end = next;
        }
    }
    let Some(value_start) = separator_after(text, label_end) else {
        return;
    };
    let Some(label_start) = label_start(text, word_start) else {
        return;
    };
    // Only a label of two words or more (a one-word name is an
    // assignment's), each capitalised as labels are: "Cache saved with
    // key: X" is a sentence, and its key a cache's.
    let label = &text[label_start..label_end];
    // detect-secrets' "Hashed Secret: <sha1>" is a digest of one.
    if label.starts_with(b"Hashed ") {
        return;
    }
    if !label.contains(&b' ')
        || label
            .split(|&b| b == b' ')
            .any(|w| !w.first().is_some_and(|b| b.is_ascii_uppercase()))
    {
        return;
    }
    let name: Vec<u8> = label
        .iter()
        .map(|&b| if b == b' ' { b'_' } else { b })
        .collect();
    // "Second Pass | Completed", "Render Pass: GBuffer": a stage, not a password.
    let last = label.rsplit(|&b| b == b' ').next().unwrap_or(label);
    if last.eq_ignore_ascii_case(b"pass") || last.eq_ignore_ascii_case(b"pw") {
        return;
    }
    let Some(kind) = super::generic::classify(&name) else {
        return;
    };
    let end = run(text, value_start, 512, |b| {
        !b.is_ascii_whitespace() && b != b'|'
    });
    let value = Value {
        start: value_start,
        end,
        quoted: false,
    };
    // A label's separator is spaced, so a lone word is a value's name.
    let word = &text[value_start..end];
    let plain_word =
        word.iter().all(|b| b.is_ascii_alphabetic()) && !super::entropy::looks_random(word);
    if end > value_start && !plain_word && super::generic::accepts_value(text, kind, value) {
        out.push(Finding {
            rule: "secret_label",
            start: value_start,
            end,
        });
    }
}

/// After a label ending at `i`: padding, then `:`, `=` or a table's `|`,
/// then one blank or more; where the value starts.
fn separator_after(text: &[u8], i: usize) -> Option<usize> {
    let sep = run(text, i, MAX_PADDING, blank);
    if !matches!(text.get(sep), Some(b':' | b'=' | b'|')) {
        return None;
    }
    let value = run(text, sep + 1, MAX_PADDING, blank);
    (value > sep + 1 && text.get(value).is_some_and(|b| !b.is_ascii_whitespace())).then_some(value)
}

/// Where the label whose last words start at `word_start` begins: the
/// first of its words, each one space apart, at the start of the line or
/// after a prompt mark or a table's bar (`? `, `| `, `- `, `* `).
fn label_start(text: &[u8], word_start: usize) -> Option<usize> {
    let mut start = word_start;
    for _ in 1..MAX_WORDS {
        if start < 2 || text[start - 1] != b' ' || !alnum(text[start - 2]) {
            break;
        }
        start = run_back(text, start - 1, 32, alnum);
    }
    let lead = run_back(text, start, 8, |b| {
        blank(b) || matches!(b, b'?' | b'|' | b'-' | b'*')
    });
    (lead == 0 || text[lead - 1] == b'\n').then_some(start)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(line: &str, keyword: &str) -> Option<String> {
        let at = line.to_ascii_lowercase().find(keyword).unwrap();
        let mut out = Vec::new();
        spaced_label(line.as_bytes(), at, at + keyword.len(), &mut out);
        out.first().map(|f| line[f.start..f.end].to_string())
    }

    #[test]
    fn labels_of_several_words() {
        let secret = "MSVDlATHM0qpAiMxl0S5Hrn0Dhx2bHtXLoQ/sW0ffoTMuZQSh";
        assert_eq!(
            found(&format!("| API Secret | {secret} |"), "secret").as_deref(),
            Some(secret)
        );
        let uuid = "c8703ff2-1dc3-45c3-9d74-b3224c5beaa0";
        assert_eq!(
            found(&format!("Secret ID    = {uuid}"), "secret").as_deref(),
            Some(uuid)
        );
        assert_eq!(
            found(&format!("? Private API Key: {uuid}"), "key").as_deref(),
            Some(uuid)
        );
    }

    #[test]
    fn public_labels_prose_and_one_word_names_stay() {
        let uuid = "233444d7-76bc-4e87-9d91-999547ccf6d2";
        assert_eq!(found(&format!("Accessor ID  = {uuid}"), "id"), None);
        assert_eq!(found("Secret Key: use the one from vault", "key"), None);
        assert_eq!(found(&format!("the new api key = {uuid} was"), "key"), None);
        assert_eq!(found(&format!("Public Key: {uuid}"), "key"), None);
        assert_eq!(found("| Second Pass | Completed |", "pass"), None);
        assert_eq!(found("| Client Secret | Rotated |", "secret"), None);
        let cache =
            "node-modules-Linux-a514121b1b3331dfe929ecbcdfff383504fee277a0cf6d1cfae3e331e4c84c2f";
        assert_eq!(
            found(&format!("Cache saved with key: {cache}"), "key"),
            None
        );
    }
}
