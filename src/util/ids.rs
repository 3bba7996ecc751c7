//! Identifiers: random UUIDv4 ownership tokens and UUID parsing (v7 timestamps).

use std::fs::File;
use std::io::Read;

/// Fills `buf` with random bytes from the operating system.
///
/// Falls back to a time-and-address mix if `/dev/urandom` is unavailable; the
/// values are ownership tokens, not keys, so uniqueness is what matters.
pub fn random_bytes(buf: &mut [u8]) {
    if let Ok(mut f) = File::open("/dev/urandom")
        && f.read_exact(buf).is_ok()
    {
        return;
    }
    use std::collections::hash_map::RandomState;
    use std::hash::{BuildHasher, Hasher};
    for chunk in buf.chunks_mut(8) {
        let mut h = RandomState::new().build_hasher();
        h.write_i64(crate::util::time::now_millis());
        h.write_usize(chunk.as_ptr() as usize);
        let v = h.finish().to_le_bytes();
        chunk.copy_from_slice(&v[..chunk.len()]);
    }
}

/// `bytes` in lower-case hex.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `n` random bytes in lower-case hex (a tag for a file or folder name).
pub fn random_hex(n: usize) -> String {
    let mut buf = vec![0u8; n];
    random_bytes(&mut buf);
    hex(&buf)
}

/// A new random UUIDv4 in its canonical lower-case text form.
pub fn new_uuid_v4() -> String {
    let mut b = [0u8; 16];
    random_bytes(&mut b);
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    format_uuid(&b)
}

/// Formats 16 bytes as a canonical UUID string.
pub fn format_uuid(b: &[u8; 16]) -> String {
    let hex = hex(b);
    format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

/// Parses a canonical (hyphenated, 36-character) UUID into its 16 bytes.
pub fn parse_uuid(s: &str) -> Option<[u8; 16]> {
    let s = s.as_bytes();
    if s.len() != 36 {
        return None;
    }
    let mut out = [0u8; 16];
    let mut nibbles = 0usize;
    for (i, &c) in s.iter().enumerate() {
        if matches!(i, 8 | 13 | 18 | 23) {
            if c != b'-' {
                return None;
            }
            continue;
        }
        let v = (c as char).to_digit(16)? as u8;
        out[nibbles / 2] |= if nibbles.is_multiple_of(2) { v << 4 } else { v };
        nibbles += 1;
    }
    Some(out)
}

/// Whether `s` is a canonical UUID.
pub fn is_uuid(s: &str) -> bool {
    parse_uuid(s).is_some()
}

/// The Unix-seconds timestamp carried by a UUIDv7, if `s` is one.
pub fn uuid_v7_secs(s: &str) -> Option<i64> {
    let b = parse_uuid(s)?;
    if b[6] >> 4 != 7 {
        return None;
    }
    let mut ms: u64 = 0;
    for byte in &b[..6] {
        ms = (ms << 8) | *byte as u64;
    }
    Some((ms / 1000) as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v4_is_well_formed_and_unique() {
        let a = new_uuid_v4();
        let b = new_uuid_v4();
        assert_ne!(a, b);
        let bytes = parse_uuid(&a).unwrap();
        assert_eq!(bytes[6] >> 4, 4);
        assert_eq!(format_uuid(&bytes), a);
    }

    #[test]
    fn v7_timestamp() {
        assert_eq!(
            uuid_v7_secs("0194f5a6-89ab-7cde-8123-456789abcdef"),
            Some(1_739_288_119)
        );
        assert_eq!(uuid_v7_secs("cf4def41-21e0-4b91-adb4-5397c1492084"), None);
        assert!(!is_uuid("not-a-uuid"));
        assert!(!is_uuid("0194f5a6-89ab-7cde-8123-456789abcdeg"));
    }
}
