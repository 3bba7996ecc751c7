//! The keyword scan: one pass over the text finds every keyword, provider
//! prefix and command the detectors start from.
//!
//! Each pattern is known by a stem: its rarest four bytes, or the whole
//! pattern when it is shorter. The pass folds the case of every four-byte
//! window of the text and tests one bit of a small table addressed by a hash
//! of the window; a second table, addressed by the window's first two bytes,
//! stands for the patterns of two and three bytes, each known there by its
//! rarest pair of bytes. Only a set bit leads to comparing stems, and then
//! whole patterns. The tables stay in the
//! first-level cache, which makes the pass faster than stepping an automaton
//! through every byte (and its cost does not grow with the number of
//! patterns).

/// The longest stem: the bytes of a window.
const STEM_LEN: usize = 4;

/// The shortest pattern a scanner takes.
const MIN_PATTERN: usize = 2;

/// One pattern behind a stem.
struct Entry<A> {
    /// The pattern, lower case.
    pattern: Vec<u8>,
    /// Where the stem starts in it.
    offset: usize,
    action: A,
}

/// A set of `BITS`-bit addresses, one bit each; `WORDS` is `2^BITS / 64`.
struct BitTable<const BITS: u32, const WORDS: usize>(Box<[u64; WORDS]>);

impl<const BITS: u32, const WORDS: usize> BitTable<BITS, WORDS> {
    fn new() -> Self {
        assert_eq!(WORDS << 6, 1 << BITS);
        BitTable(Box::new([0; WORDS]))
    }

    /// The address of `key`: its high bits after a multiplicative hash.
    #[inline(always)]
    fn address(key: u32) -> usize {
        (key.wrapping_mul(0x9E37_79B1) >> (32 - BITS)) as usize
    }

    fn insert(&mut self, key: u32) {
        let a = Self::address(key);
        self.0[a >> 6] |= 1 << (a & 63);
    }

    /// Whether `key` may be in the set (a clear bit says it is not).
    #[inline(always)]
    fn may_contain(&self, key: u32) -> bool {
        let a = Self::address(key);
        self.0[(a >> 6) % WORDS] & (1 << (a & 63)) != 0
    }
}

/// The first `len` bytes of a window with ASCII case folded away (along
/// with the bit that tells a few punctuation marks apart, which only costs a
/// comparison later). Keys of different lengths never meet: a folded byte is
/// never zero.
#[inline(always)]
fn key(window: u32, len: usize) -> u32 {
    (window | 0x2020_2020) & (u32::MAX >> (8 * (STEM_LEN - len)))
}

/// The four bytes at `at`, zeros past the end of the text.
#[inline(always)]
fn window_at(text: &[u8], at: usize) -> u32 {
    let mut w = [0; STEM_LEN];
    let n = (text.len() - at).min(STEM_LEN);
    w[..n].copy_from_slice(&text[at..at + n]);
    u32::from_le_bytes(w)
}

/// The stems and, for each stem, the patterns behind it.
pub(super) struct Scanner<A> {
    /// The keys of the four-byte stems (16 KiB).
    fours: BitTable<17, 2048>,
    /// The rarest pair of bytes of each shorter stem (8 KiB).
    pairs: BitTable<16, 1024>,
    /// The keys of the two-byte stems.
    twos: BitTable<16, 1024>,
    /// The keys of the three-byte stems, by where their rarest pair starts.
    threes: [BitTable<16, 1024>; 2],
    /// Every stem's key, sorted, with the index of its patterns in
    /// `entries`.
    keys: Vec<(u32, usize)>,
    entries: Vec<Vec<Entry<A>>>,
}

/// How common a byte is in session logs (English text, code, JSON); a stem
/// of rare bytes hits less often.
fn commonness(b: u8) -> u32 {
    match b.to_ascii_lowercase() {
        b'"' => 30,
        b'e' => 12,
        b't' | b',' | b'\\' => 10,
        b'a' | b'o' => 8,
        b'i' | b'n' => 7,
        b's' | b'r' | b'h' => 6,
        b'l' | b'd' | b' ' | b'.' | b'/' => 4,
        b'c' | b'u' | b'm' => 3,
        b'f' | b'p' | b'g' | b'w' | b'y' | b'-' | b'_' | b'=' | b'0'..=b'9' => 2,
        _ => 1,
    }
}

/// Where the rarest pair of bytes of a stem of two or three bytes starts.
fn rarest_pair(stem: &[u8]) -> usize {
    (0..stem.len() - 1)
        .min_by_key(|&i| commonness(stem[i]) + commonness(stem[i + 1]))
        .unwrap_or(0)
}

/// Where the rarest `STEM_LEN` bytes of `pattern` start.
fn stem_offset(pattern: &[u8]) -> usize {
    if pattern.len() <= STEM_LEN {
        return 0;
    }
    (0..=pattern.len() - STEM_LEN)
        .min_by_key(|&i| {
            pattern[i..i + STEM_LEN]
                .iter()
                .map(|&b| commonness(b))
                .sum::<u32>()
        })
        .unwrap_or(0)
}

impl<A: Copy> Scanner<A> {
    /// A scanner for `patterns` (matched ignoring ASCII case; each at least
    /// two bytes long).
    pub(super) fn new(patterns: impl IntoIterator<Item = (String, A)>) -> Scanner<A> {
        let mut by_stem: Vec<(Vec<u8>, Vec<Entry<A>>)> = Vec::new();
        for (pattern, action) in patterns {
            let pattern = pattern.to_ascii_lowercase().into_bytes();
            assert!(pattern.len() >= MIN_PATTERN, "redaction keyword too short");
            let offset = stem_offset(&pattern);
            let stem = pattern[offset..(offset + STEM_LEN).min(pattern.len())].to_vec();
            let entry = Entry {
                pattern,
                offset,
                action,
            };
            match by_stem.iter_mut().find(|(s, _)| *s == stem) {
                Some((_, entries)) => entries.push(entry),
                None => by_stem.push((stem, vec![entry])),
            }
        }
        let mut scanner = Scanner {
            fours: BitTable::new(),
            pairs: BitTable::new(),
            twos: BitTable::new(),
            threes: [BitTable::new(), BitTable::new()],
            keys: Vec::new(),
            entries: Vec::new(),
        };
        for (i, (stem, list)) in by_stem.into_iter().enumerate() {
            let window = window_at(&stem, 0);
            let k = key(window, stem.len());
            if stem.len() == STEM_LEN {
                scanner.fours.insert(k);
            } else {
                let pair = rarest_pair(&stem);
                scanner.pairs.insert(key(window >> (8 * pair), 2));
                match stem.len() {
                    3 => scanner.threes[pair].insert(k),
                    _ => scanner.twos.insert(k),
                }
            }
            scanner.keys.push((k, i));
            scanner.entries.push(list);
        }
        scanner.keys.sort_unstable();
        scanner
    }

    /// Calls `f(start, end, action)` for every pattern found in `text`, in
    /// the order of the positions of their stems.
    pub(super) fn scan(&self, text: &[u8], mut f: impl FnMut(usize, usize, A)) {
        for (at, window) in text.windows(STEM_LEN).enumerate() {
            let window = u32::from_le_bytes([window[0], window[1], window[2], window[3]]);
            if self.pairs.may_contain(key(window, 2)) {
                self.check_short(text, at, &mut f);
            }
            let k = key(window, STEM_LEN);
            if self.fours.may_contain(k) {
                self.check(text, at, k, &mut f);
            }
        }
        // The last windows, too short for a four-byte stem.
        let tail = text.len().saturating_sub(STEM_LEN - 1);
        for at in tail..text.len().saturating_sub(1) {
            let window = window_at(text, at);
            if self.pairs.may_contain(key(window, 2)) {
                self.check_short(text, at, &mut f);
            }
        }
    }

    /// Looks for a two- or three-byte stem whose rarest pair may stand at
    /// `at`: the stem starts there, or one byte before.
    #[cold]
    fn check_short(&self, text: &[u8], at: usize, f: &mut impl FnMut(usize, usize, A)) {
        let window = window_at(text, at);
        let two = key(window, 2);
        if self.twos.may_contain(two) {
            self.check(text, at, two, f);
        }
        for (pair, threes) in self.threes.iter().enumerate() {
            let Some(start) = at.checked_sub(pair).filter(|&s| text.len() - s >= 3) else {
                continue;
            };
            let three = key(window_at(text, start), 3);
            if threes.may_contain(three) {
                self.check(text, start, three, f);
            }
        }
    }

    /// Reports the patterns of the stem with `key` that stands at `at`, if
    /// there is one.
    #[cold]
    fn check(&self, text: &[u8], at: usize, key: u32, f: &mut impl FnMut(usize, usize, A)) {
        let first = self.keys.partition_point(|k| k.0 < key);
        // More than one when stems differ only in a bit the folding drops.
        for &(_, stem) in self.keys[first..].iter().take_while(|k| k.0 == key) {
            for e in &self.entries[stem] {
                let Some(start) = at.checked_sub(e.offset) else {
                    continue;
                };
                let end = start + e.pattern.len();
                if end <= text.len() && text[start..end].eq_ignore_ascii_case(&e.pattern) {
                    f(start, end, e.action);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pattern_is_found_whole_and_only_whole() {
        let s = Scanner::new([
            ("openssl rand".to_string(), 1),
            ("token".to_string(), 2),
            ("sk-".to_string(), 3),
            ("AGE-SECRET-KEY-1".to_string(), 4),
        ]);
        let text =
            b"OpenSSL rand -hex; max_TOKENS sk-x age-secret-key-1Q openssl randx opensl rand";
        let mut found = Vec::new();
        s.scan(text, |a, b, act| {
            found.push((std::str::from_utf8(&text[a..b]).unwrap(), act))
        });
        found.sort_by_key(|f| f.1);
        assert_eq!(
            found,
            [
                ("OpenSSL rand", 1),
                ("openssl rand", 1),
                ("TOKEN", 2),
                ("sk-", 3),
                ("age-secret-key-1", 4)
            ]
        );
        assert_eq!(
            &b"openssl rand"[stem_offset(b"openssl rand")..][..4],
            b"ssl "
        );
    }

    /// Every match of `patterns` in `text`, as (start, action), in the
    /// order reported.
    fn hits(patterns: &[(&str, u8)], text: &[u8]) -> Vec<(usize, u8)> {
        let s = Scanner::new(patterns.iter().map(|(p, a)| (p.to_string(), *a)));
        let mut found = Vec::new();
        s.scan(text, |a, b, act| {
            assert!(text[a..b].eq_ignore_ascii_case(patterns[usize::from(act)].0.as_bytes()));
            found.push((a, act));
        });
        found
    }

    #[test]
    fn short_patterns_are_found_once_at_either_end_and_in_between() {
        // `re_` is known by its pair `e_` (one byte in), `key` by `ke`, `ac`
        // whole; `_k` is the rarest pair of no pattern here.
        let patterns = [("re_", 0), ("key", 1), ("ac", 2), ("token", 3)];
        assert_eq!(hits(&patterns, b"re_x"), [(0, 0)]);
        assert_eq!(hits(&patterns, b"x re_"), [(2, 0)]);
        assert_eq!(hits(&patterns, b"KEY"), [(0, 1)]);
        assert_eq!(hits(&patterns, b"ac"), [(0, 2)]);
        assert_eq!(hits(&patterns, b"a ac"), [(2, 2)]);
        assert_eq!(
            hits(&patterns, b"pre_key acre_token ke e_ re"),
            [(1, 0), (4, 1), (8, 2), (10, 0), (13, 3)]
        );
        assert!(hits(&patterns, b"").is_empty());
        assert!(hits(&patterns, b"r").is_empty());
        assert!(hits(&patterns, b"re").is_empty());
        assert!(hits(&patterns, b"ke").is_empty());
    }

    #[test]
    fn patterns_differing_only_in_folded_bits_are_told_apart() {
        // `|0x20` folds `_` onto DEL and `@` onto a backtick: the folded
        // stems meet, the whole comparison tells them apart.
        let patterns = [("a_bc", 0), ("a\x7fbc", 1), ("x@yz", 2), ("x`yz", 3)];
        let s = Scanner::new(patterns.map(|(p, a)| (p.to_string(), a)));
        let text = "a_bc a\x7fbc x@yz x`yz A_BC".as_bytes();
        let mut found = Vec::new();
        s.scan(text, |a, _, act| found.push((a, act)));
        assert_eq!(found, [(0, 0), (5, 1), (10, 2), (15, 3), (20, 0)]);
    }
}
