//! Over-long JSON lines made to fit: a log line past the line cap is almost
//! always one or two huge string values (a pasted screenshot as base64, a
//! tool output of many megabytes) inside ordinary JSON. [`Shrinker`] copies
//! such a line as it streams in and cuts every string value longer than
//! [`MAX_STRING_BYTES`] to its first bytes and a marker, so the line still
//! parses, its other fields (the prompt next to the image) are kept, and
//! memory stays bounded.

/// The most bytes of one JSON string value kept from an over-long line.
pub const MAX_STRING_BYTES: usize = 64 << 10;

/// Where in an escape sequence the next byte falls.
#[derive(Debug, Default, Clone, Copy)]
enum Escape {
    /// Not in one.
    #[default]
    None,
    /// Just after `\`.
    Backslash,
    /// In the four digits of `\u`: how many are left and their value so far.
    Hex { left: u8, value: u16 },
}

/// Streaming state: where in the JSON text the next byte falls.
#[derive(Debug, Default)]
pub struct Shrinker {
    /// Inside a string value.
    in_string: bool,
    escape: Escape,
    /// The last escape was a high surrogate, which must keep its pair.
    pair_pending: bool,
    /// Bytes of the current string copied.
    kept: usize,
    /// Bytes of the current string left out (dropping when > 0).
    dropped: u64,
}

impl Shrinker {
    /// A shrinker at the start of a line.
    pub fn new() -> Shrinker {
        Shrinker::default()
    }

    /// Copies `input` to `out`, cutting string values past the limit.
    pub fn feed(&mut self, input: &[u8], out: &mut Vec<u8>) {
        for &b in input {
            if !self.in_string {
                if b == b'"' {
                    self.in_string = true;
                    self.kept = 0;
                    self.dropped = 0;
                }
                out.push(b);
                continue;
            }
            if matches!(self.escape, Escape::None) && b == b'"' {
                if self.dropped > 0 {
                    out.extend_from_slice(
                        format!("…[{} bytes left out by memkit]", self.dropped).as_bytes(),
                    );
                }
                self.in_string = false;
                self.pair_pending = false;
                out.push(b);
                continue;
            }
            if self.dropped == 0 && self.kept >= MAX_STRING_BYTES && self.clean_cut_before(b) {
                self.dropped = 1;
            } else if self.dropped > 0 {
                self.dropped += 1;
            } else {
                self.kept += 1;
                out.push(b);
            }
            self.track_escape(b);
        }
    }

    /// Whether the string may be cut just before `b`: not inside an escape
    /// or a surrogate pair, and not inside a UTF-8 character.
    fn clean_cut_before(&self, b: u8) -> bool {
        matches!(self.escape, Escape::None) && !self.pair_pending && (b & 0xC0) != 0x80
    }

    /// Follows `\` escapes, so `\"` is not taken for the string's end.
    fn track_escape(&mut self, b: u8) {
        self.escape = match self.escape {
            Escape::None if b == b'\\' => Escape::Backslash,
            Escape::None => {
                self.pair_pending = false;
                Escape::None
            }
            Escape::Backslash if b == b'u' => Escape::Hex { left: 4, value: 0 },
            Escape::Backslash => {
                self.pair_pending = false;
                Escape::None
            }
            Escape::Hex { left, value } => {
                let value = (value << 4) | (b as char).to_digit(16).unwrap_or(0) as u16;
                if left > 1 {
                    Escape::Hex {
                        left: left - 1,
                        value,
                    }
                } else {
                    self.pair_pending = (0xD800..=0xDBFF).contains(&value);
                    Escape::None
                }
            }
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shrink(input: &[u8], pieces: usize) -> Vec<u8> {
        let mut s = Shrinker::new();
        let mut out = Vec::new();
        for chunk in input.chunks(input.len().div_ceil(pieces)) {
            s.feed(chunk, &mut out);
        }
        out
    }

    #[test]
    fn long_strings_are_cut_and_the_json_still_parses() {
        let image = "A".repeat(3 * MAX_STRING_BYTES);
        let line = format!(
            r#"{{"type":"user","content":[{{"type":"text","text":"why does this crash?"}},{{"type":"image","data":"{image}"}}]}}"#
        );
        for pieces in [1, 7, 1000] {
            let out = shrink(line.as_bytes(), pieces);
            let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
            assert_eq!(v["content"][0]["text"], "why does this crash?");
            let data = v["content"][1]["data"].as_str().unwrap();
            assert!(data.starts_with(&"A".repeat(MAX_STRING_BYTES)));
            assert!(data.ends_with(&format!(
                "…[{} bytes left out by memkit]",
                2 * MAX_STRING_BYTES
            )));
        }
    }

    #[test]
    fn short_lines_and_escaped_quotes_pass_through() {
        let line = br#"{"a":"say \"hi\" \\","b":[1,2],"c":"\u00e9"}"#;
        assert_eq!(shrink(line, 3), line.to_vec());
    }

    #[test]
    fn cuts_never_split_an_escape_a_surrogate_pair_or_a_character() {
        for tail in [r"\u00e9", r"\ud83d\ude00", "é", r#"\""#, r"\\"] {
            for shift in 0..8 {
                let body = format!("{}{}", "x".repeat(MAX_STRING_BYTES - shift), tail.repeat(4));
                let line = format!(r#"{{"t":"{body}{}"}}"#, "y".repeat(100));
                let out = shrink(line.as_bytes(), 5);
                let v: serde_json::Value =
                    serde_json::from_slice(&out).unwrap_or_else(|e| panic!("{tail} {shift}: {e}"));
                assert!(
                    v["t"]
                        .as_str()
                        .unwrap()
                        .contains("bytes left out by memkit")
                );
            }
        }
    }
}
