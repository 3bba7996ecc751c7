//! A tiny seeded PRNG (SplitMix64) for ids, timings and fake credentials:
//! the corpus is the same on every run and machine (given the same "now").

const ALNUM: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const UPPER_DIGIT: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const HEX: &[u8] = b"0123456789abcdef";

/// SplitMix64.
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo + 1) as u64) as i64
    }

    /// `len` characters drawn from `alphabet`.
    fn string(&mut self, alphabet: &[u8], len: usize) -> String {
        (0..len)
            .map(|_| alphabet[(self.next() % alphabet.len() as u64) as usize] as char)
            .collect()
    }

    /// `len` lowercase hex digits.
    pub fn hex(&mut self, len: usize) -> String {
        self.string(HEX, len)
    }

    /// `len` letters and digits.
    pub fn alnum(&mut self, len: usize) -> String {
        self.string(ALNUM, len)
    }

    /// A random (version 4) UUID.
    pub fn uuid_v4(&mut self) -> String {
        let (a, b) = (self.next(), self.next());
        format!(
            "{:08x}-{:04x}-4{:03x}-{:x}{:03x}-{:012x}",
            a >> 32,
            (a >> 16) & 0xffff,
            a & 0xfff,
            8 + (b >> 62),
            (b >> 48) & 0xfff,
            b & 0xffff_ffff_ffff
        )
    }

    /// A time-ordered (version 7) UUID for Unix milliseconds `ms`.
    pub fn uuid_v7(&mut self, ms: i64) -> String {
        let ms = ms as u64 & 0xffff_ffff_ffff;
        let b = self.next();
        format!(
            "{:08x}-{:04x}-7{:03x}-{:x}{:03x}-{:012x}",
            ms >> 16,
            ms & 0xffff,
            (b >> 52) & 0xfff,
            8 + ((b >> 50) & 3),
            (b >> 38) & 0xfff,
            self.next() & 0xffff_ffff_ffff
        )
    }

    /// A fake credential in a format memkit's redactor recognises, built at
    /// run time so no token-shaped text is committed.
    pub fn secret(&mut self, kind: Secret) -> String {
        match kind {
            Secret::GitHub => {
                let body = self.alnum(30);
                let sum = checksum_suffix(body.as_bytes());
                format!("gh{}_{body}{sum}", "p")
            }
            Secret::OpenAi => format!("sk-{}-{}", "proj", self.alnum(48)),
            Secret::Aws => format!("AK{}{}", "IA", self.string(UPPER_DIGIT, 16)),
            Secret::Slack => format!(
                "xo{}-{}-{}-{}",
                "xb",
                self.range(1_000_000_000, 9_999_999_999),
                self.range(1_000_000_000_000, 9_999_999_999_999),
                self.alnum(24)
            ),
        }
    }
}

/// The credential formats the corpus plants.
#[derive(Debug, Clone, Copy)]
pub enum Secret {
    /// A GitHub personal access token (`ghp_`, with its CRC-32 suffix).
    GitHub,
    /// An OpenAI project key (`sk-proj-`).
    OpenAi,
    /// An AWS access key id (`AKIA`).
    Aws,
    /// A Slack bot token (`xoxb-`).
    Slack,
}

/// GitHub's six-character base62 CRC-32 suffix of a token body.
fn checksum_suffix(body: &[u8]) -> String {
    let mut n = memkit::util::hash::crc32(body);
    let mut out = [b'0'; 6];
    for slot in out.iter_mut().rev() {
        *slot = ALNUM[(n % 62) as usize];
        n /= 62;
    }
    String::from_utf8(out.to_vec()).expect("ascii")
}
