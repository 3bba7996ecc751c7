//! The redaction corpus, generated at test time from a fixed seed: fake
//! secrets in each provider's real format (built as prefix + generated body,
//! so no live-looking token is committed), embedded in realistic contexts,
//! and a list of negatives that must come through unchanged.

pub mod negatives;
pub mod positives;

/// xorshift64: small, deterministic, good enough for test data.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed | 1)
    }

    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    pub fn string(&mut self, alphabet: &str, len: usize) -> String {
        let a = alphabet.as_bytes();
        (0..len).map(|_| a[self.below(a.len())] as char).collect()
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

pub const LOWER: &str = "abcdefghijklmnopqrstuvwxyz";
pub const DIGITS: &str = "0123456789";
pub const ALNUM: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
pub const LETTERS: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
pub const UPPER_DIGIT: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
pub const LOWER_DIGIT: &str = "abcdefghijklmnopqrstuvwxyz0123456789";
pub const HEX: &str = "0123456789abcdef";
pub const URL: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
pub const B64: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
pub const BECH32: &str = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L";

const B64_STD: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 with padding.
pub fn base64(data: &[u8]) -> String {
    let mut out = String::new();
    for chunk in data.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, &b)| acc | (u32::from(b) << (16 - 8 * i)));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(B64_STD[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// URL-safe base64 without padding (JWT parts).
pub fn base64url(data: &[u8]) -> String {
    base64(data)
        .trim_end_matches('=')
        .replace('+', "-")
        .replace('/', "_")
}

/// 30 random characters and their base62 CRC-32 (GitHub and npm tokens).
pub fn checksummed(rng: &mut Rng) -> String {
    const B62: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    let random = rng.string(ALNUM, 30);
    let mut n = memkit::util::hash::crc32(random.as_bytes());
    let mut sum = [b'0'; 6];
    for slot in sum.iter_mut().rev() {
        *slot = B62[(n % 62) as usize];
        n /= 62;
    }
    format!("{random}{}", std::str::from_utf8(&sum).unwrap())
}

/// A password people pick: words, digits and a symbol, or a generated one.
pub fn password(rng: &mut Rng) -> String {
    const WORDS: &[&str] = &[
        "falcon", "harbor", "maple", "quartz", "velvet", "orbit", "cobalt", "lantern", "meadow",
        "saffron", "tundra", "willow", "zephyr", "ember", "glacier", "nimbus",
    ];
    const SYMBOLS: &str = "!%^*_+=~-";
    match rng.below(3) {
        0 => {
            let w = rng.pick(WORDS);
            let cap = format!("{}{}", w[..1].to_uppercase(), &w[1..]);
            let n = rng.range(2, 4);
            format!("{cap}{}{}", rng.string(DIGITS, n), rng.string(SYMBOLS, 1))
        }
        1 => format!(
            "{}{}{}{}",
            rng.pick(WORDS),
            rng.string(SYMBOLS, 1),
            rng.pick(WORDS).to_uppercase(),
            rng.string(DIGITS, 2)
        ),
        _ => {
            let n = rng.range(11, 19);
            format!(
                "{}{}",
                rng.string(LETTERS, 1),
                rng.string(
                    "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789!%^*_+=~",
                    n
                )
            )
        }
    }
}

/// A UUID v4 shape.
pub fn uuid(rng: &mut Rng) -> String {
    format!(
        "{}-{}-4{}-{}{}-{}",
        rng.string(HEX, 8),
        rng.string(HEX, 4),
        rng.string(HEX, 3),
        rng.pick(&["8", "9", "a", "b"]),
        rng.string(HEX, 3),
        rng.string(HEX, 12)
    )
}

/// Escapes text the way it sits inside a JSON string.
pub fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

/// A Codex `function_call` line that runs `cmd`: the `shell` tool with a
/// `command` or `cmd` argv, or `exec_command` with a string, by `style`.
pub fn codex_call(cmd: &str, style: usize) -> String {
    let (name, args) = match style % 3 {
        0 => (
            "shell",
            format!(
                "{{\"command\":[\"bash\",\"-lc\",{}],\"workdir\":\"/home/dev/app\",\"timeout_ms\":120000}}",
                json_string(cmd)
            ),
        ),
        1 => (
            "shell",
            format!("{{\"cmd\":[\"bash\",\"-lc\",{}]}}", json_string(cmd)),
        ),
        _ => (
            "exec_command",
            format!(
                "{{\"cmd\":{},\"workdir\":\"/Users/dev/src/app\",\"yield_time_ms\":10000}}",
                json_string(cmd)
            ),
        ),
    };
    format!(
        "{{\"type\":\"function_call\",\"name\":\"{name}\",\"arguments\":{},\"call_id\":\"call_Qm3vXn8pLs2Tk9Wd4Hy7Rb1c\"}}",
        json_string(&args)
    )
}

/// A Codex `function_call_output` line: the text format ("Exit code: …
/// Output:") or the older JSON with metadata, by `style`.
pub fn codex_output(output: &str, exit: i32, style: usize) -> String {
    let body = if style.is_multiple_of(2) {
        format!("Exit code: {exit}\nWall time: 0.1 seconds\nOutput:\n{output}")
    } else {
        format!(
            "{{\"output\":{},\"metadata\":{{\"exit_code\":{exit},\"duration_seconds\":0.1}}}}",
            json_string(output)
        )
    };
    format!(
        "{{\"type\":\"function_call_output\",\"call_id\":\"call_Qm3vXn8pLs2Tk9Wd4Hy7Rb1c\",\"output\":{}}}",
        json_string(&body)
    )
}

/// A Claude Code Bash tool call and its result, as two JSONL lines.
pub fn claude_bash(cmd: &str, output: &str) -> String {
    format!(
        "{{\"type\":\"assistant\",\"message\":{{\"role\":\"assistant\",\"content\":[{{\"type\":\"tool_use\",\"id\":\"toolu_01A9xQ\",\"name\":\"Bash\",\"input\":{{\"command\":{},\"description\":\"Run the command\"}}}}]}}}}\n{{\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":[{{\"tool_use_id\":\"toolu_01A9xQ\",\"type\":\"tool_result\",\"content\":{},\"is_error\":false}}]}}}}",
        json_string(cmd),
        json_string(output)
    )
}

/// A command and what it printed, in one of the shapes agent logs keep them
/// in (7 styles): shell prompt, Codex call + text output, one JSON object
/// with both fields, Claude Code, Codex call + JSON output, the Codex text
/// output under the command, the Codex TUI.
pub fn transcript(style: usize, cmd: &str, output: &str, exit: i32) -> String {
    match style % 7 {
        0 if output.is_empty() => format!("$ {cmd}\n$ "),
        0 => format!("$ {cmd}\n{output}\n$ "),
        1 => format!(
            "{}\n{}",
            codex_call(cmd, style / 7),
            codex_output(output, exit, 0)
        ),
        2 => format!(
            "{{\"tool\":\"bash\",\"command\":{},\"exit_code\":{exit},\"output\":{}}}",
            json_string(cmd),
            json_string(output)
        ),
        3 => claude_bash(cmd, output),
        4 => format!("{}\n{}", codex_call(cmd, 2), codex_output(output, exit, 1)),
        5 => format!("{cmd}\nExit code: {exit}\nWall time: 0.1 seconds\nOutput:\n{output}\n"),
        _ if output.is_empty() => format!("• Ran {cmd}\n  └ (no output)\n"),
        _ => format!(
            "• Ran {cmd}\n  └ {}\n",
            output.lines().collect::<Vec<_>>().join("\n    ")
        ),
    }
}
