//! The Porter stemmer as SQLite's FTS5 `porter` tokenizer applies it, so
//! that a query word can be looked up among the index's own terms (see
//! [`super::term_docs`]) without asking FTS5 to tokenize it.
//!
//! This is M. F. Porter's 1980 algorithm with the two later step-2 rules
//! FTS5 also has (`bli` → `ble`, `logi` → `log`), on lower-case ASCII words.
//! FTS5 leaves words shorter than 3 or longer than 64 bytes as they are, and
//! so does [`porter`]; a word with any other character has no stem here
//! (`None`), since FTS5 would first fold its diacritics. A stem that differs
//! from FTS5's only makes a word's count unknown (it is then counted in the
//! index), never changes what matches: `porter_agrees_with_fts5` compares
//! the two over the synonym vocabulary and more.

/// The FTS5 term of `word` (lower-case letters and digits), or `None` when
/// the word holds anything else.
pub fn porter(word: &str) -> Option<String> {
    if word.is_empty()
        || !word
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
    {
        return None;
    }
    if !(3..=64).contains(&word.len()) {
        return Some(word.to_string());
    }
    let mut w = word.as_bytes().to_vec();
    step_1a(&mut w);
    step_1b(&mut w);
    if w.last() == Some(&b'y') && has_vowel(&w[..w.len() - 1]) {
        *w.last_mut().expect("not empty") = b'i';
    }
    replace_first(&mut w, STEP_2, |stem| measure(stem) > 0);
    replace_first(&mut w, STEP_3, |stem| measure(stem) > 0);
    step_4(&mut w);
    step_5(&mut w);
    Some(String::from_utf8(w).expect("ASCII in, ASCII out"))
}

/// Whether the letter at `i` is a consonant: not a, e, i, o, u, and not a
/// `y` that follows a consonant.
fn is_consonant(w: &[u8], i: usize) -> bool {
    match w[i] {
        b'a' | b'e' | b'i' | b'o' | b'u' => false,
        b'y' => i == 0 || !is_consonant(w, i - 1),
        _ => true,
    }
}

/// Porter's m: how many vowel-run/consonant-run pairs `stem` holds after
/// its leading consonants.
fn measure(stem: &[u8]) -> usize {
    let mut m = 0;
    let mut after_vowel = false;
    for i in 0..stem.len() {
        if is_consonant(stem, i) {
            if after_vowel {
                m += 1;
            }
            after_vowel = false;
        } else {
            after_vowel = true;
        }
    }
    m
}

/// Whether `stem` holds a vowel.
fn has_vowel(stem: &[u8]) -> bool {
    (0..stem.len()).any(|i| !is_consonant(stem, i))
}

/// Porter's *o: `stem` ends consonant, vowel, consonant, and that last
/// consonant is not w, x or y.
fn ends_cvc(stem: &[u8]) -> bool {
    let n = stem.len();
    n >= 3
        && is_consonant(stem, n - 1)
        && !is_consonant(stem, n - 2)
        && is_consonant(stem, n - 3)
        && !matches!(stem[n - 1], b'w' | b'x' | b'y')
}

/// The stem left when `w` ends with `suffix` and is longer than it.
fn stem_before<'a>(w: &'a [u8], suffix: &str) -> Option<&'a [u8]> {
    (w.len() > suffix.len() && w.ends_with(suffix.as_bytes())).then(|| &w[..w.len() - suffix.len()])
}

/// Plurals: sses → ss, ies → i, s → (nothing) unless ss.
fn step_1a(w: &mut Vec<u8>) {
    if (w.len() > 4 && w.ends_with(b"sses")) || (w.len() > 3 && w.ends_with(b"ies")) {
        w.truncate(w.len() - 2);
    } else if w.ends_with(b"s") && !w.ends_with(b"ss") {
        w.truncate(w.len() - 1);
    }
}

/// -eed, -ed and -ing, then the repair of what their removal leaves.
fn step_1b(w: &mut Vec<u8>) {
    if let Some(stem) = stem_before(w, "eed") {
        if measure(stem) > 0 {
            w.truncate(w.len() - 1);
        }
        return;
    }
    let Some(stem_len) = ["ed", "ing"]
        .iter()
        .find_map(|s| stem_before(w, s).filter(|stem| has_vowel(stem)))
        .map(<[u8]>::len)
    else {
        return;
    };
    w.truncate(stem_len);
    let n = w.len();
    if n > 2 && [b"at", b"bl", b"iz"].iter().any(|s| w.ends_with(*s)) {
        w.push(b'e');
        return;
    }
    // Here a doubled y counts as a consonant, as in FTS5.
    let doubled = n >= 2 && w[n - 1] == w[n - 2];
    if doubled
        && !matches!(
            w[n - 1],
            b'a' | b'e' | b'i' | b'o' | b'u' | b'l' | b's' | b'z'
        )
    {
        w.truncate(n - 1);
    } else if measure(w) == 1 && ends_cvc(w) {
        w.push(b'e');
    }
}

/// Step 2's suffixes and their replacements (taken when the stem's m > 0).
const STEP_2: &[(&str, &str)] = &[
    ("ational", "ate"),
    ("tional", "tion"),
    ("enci", "ence"),
    ("anci", "ance"),
    ("izer", "ize"),
    ("logi", "log"),
    ("bli", "ble"),
    ("alli", "al"),
    ("entli", "ent"),
    ("eli", "e"),
    ("ousli", "ous"),
    ("ization", "ize"),
    ("ation", "ate"),
    ("ator", "ate"),
    ("alism", "al"),
    ("iveness", "ive"),
    ("fulness", "ful"),
    ("ousness", "ous"),
    ("aliti", "al"),
    ("iviti", "ive"),
    ("biliti", "ble"),
];

/// Step 3's suffixes and their replacements (taken when the stem's m > 0).
const STEP_3: &[(&str, &str)] = &[
    ("icate", "ic"),
    ("ative", ""),
    ("alize", "al"),
    ("iciti", "ic"),
    ("ical", "ic"),
    ("ful", ""),
    ("ness", ""),
];

/// Replaces the first suffix of `rules` that `w` ends with, when `keep`
/// holds for the stem before it; only that suffix is tried (as in Porter's
/// algorithm, where the longest match decides).
fn replace_first(w: &mut Vec<u8>, rules: &[(&str, &str)], keep: impl Fn(&[u8]) -> bool) {
    let Some((stem_len, with)) = rules
        .iter()
        .find_map(|(suffix, with)| stem_before(w, suffix).map(|stem| (stem.len(), *with)))
    else {
        return;
    };
    if keep(&w[..stem_len]) {
        w.truncate(stem_len);
        w.extend_from_slice(with.as_bytes());
    }
}

/// Step 4's suffixes, removed when the stem's m > 1 (`ion` only after s or t).
const STEP_4: &[&str] = &[
    "al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ion", "ou",
    "ism", "ate", "iti", "ous", "ive", "ize",
];

/// Removes a step-4 suffix. FTS5 picks the suffix by the word's last two
/// letters, so that of several that end alike only the first listed is
/// tried ("ement" before "ment" before "ent").
fn step_4(w: &mut Vec<u8>) {
    let Some(stem_len) = STEP_4
        .iter()
        .find_map(|suffix| stem_before(w, suffix).map(|stem| (stem.len(), *suffix)))
        .filter(|(len, suffix)| {
            let stem = &w[..*len];
            measure(stem) > 1 && (*suffix != "ion" || matches!(stem.last(), Some(b's' | b't')))
        })
        .map(|(len, _)| len)
    else {
        return;
    };
    w.truncate(stem_len);
}

/// A final e goes (m > 1, or m = 1 and not *o); a final ll loses an l (m > 1).
fn step_5(w: &mut Vec<u8>) {
    if w.last() == Some(&b'e') {
        let stem = &w[..w.len() - 1];
        let m = measure(stem);
        if m > 1 || (m == 1 && !ends_cvc(stem)) {
            w.pop();
        }
    }
    if w.ends_with(b"ll") && measure(&w[..w.len() - 1]) > 1 {
        w.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::porter;
    use rusqlite::Connection;

    /// FTS5's own term for each word (`porter unicode61`, as the index).
    fn fts5_terms(words: &[String]) -> Vec<String> {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE VIRTUAL TABLE t USING fts5(w, tokenize = 'porter unicode61 remove_diacritics 2');
             CREATE VIRTUAL TABLE v USING fts5vocab(t, instance);",
        )
        .unwrap();
        for (i, w) in words.iter().enumerate() {
            conn.execute("INSERT INTO t (rowid, w) VALUES (?1, ?2)", (i as i64, w))
                .unwrap();
        }
        let mut out = vec![String::new(); words.len()];
        let mut stmt = conn.prepare("SELECT doc, term FROM v").unwrap();
        let rows = stmt
            .query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))
            .unwrap();
        for row in rows {
            let (doc, term) = row.unwrap();
            out[doc as usize] = term;
        }
        out
    }

    #[test]
    fn porter_agrees_with_fts5() {
        // The synonym vocabulary, the committed search memory, and words
        // that exercise each step's rules and edge cases.
        let memory = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/search/memory/MEMORY.md"),
        )
        .unwrap();
        let edge = "caresses ponies ties caress cats sses ies feed agreed plastered bled motoring \
                    sing conflated troubled sized hopping tanned falling hissing fizzed failing \
                    filing happy sky relational conditional rational valenci hesitanci digitizer \
                    conformabli radicalli differentli vileli analogousli vietnamization \
                    predication operator feudalism decisiveness hopefulness callousness \
                    formaliti sensitiviti sensibiliti triplicate formative formalize \
                    electriciti electrical hopeful goodness revival allowance inference airliner \
                    gyroscopic adjustable defensible irritant replacement adjustment dependent \
                    adoption homologou communism activate angulariti homologous effective \
                    bowdlerize probate rate cease controll roll yy ayy ated ating at2 logi \
                    deploy 042 x86 sha256 v1 syed";
        let mut words: Vec<String> = super::super::vocabulary::GROUPS
            .iter()
            .flat_map(|g| g.iter())
            .flat_map(|e| super::super::query::words(e))
            .chain(super::super::query::words(&memory))
            .map(|w| w.into_owned())
            .chain(edge.split_whitespace().map(str::to_string))
            .collect();
        words.sort();
        words.dedup();
        assert!(words.len() > 1500, "{} words", words.len());
        let fts5 = fts5_terms(&words);
        let differ: Vec<String> = words
            .iter()
            .zip(&fts5)
            .filter(|(w, t)| porter(w).is_some_and(|p| &p != *t))
            .map(|(w, t)| format!("{w}: fts5 {t}, ours {:?}", porter(w)))
            .collect();
        assert!(differ.is_empty(), "{differ:#?}");
    }

    #[test]
    fn only_plain_lower_case_words_have_a_stem() {
        assert_eq!(porter("deploy").as_deref(), Some("deploi"));
        assert_eq!(porter("go").as_deref(), Some("go"));
        assert_eq!(porter("café"), None);
        assert_eq!(porter("Deploy"), None);
        assert_eq!(porter("static analysis"), None);
        assert_eq!(porter(""), None);
        let long = "a".repeat(65) + "ing";
        assert_eq!(porter(&long).as_deref(), Some(long.as_str()));
    }
}
