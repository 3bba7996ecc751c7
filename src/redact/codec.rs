//! The few decoders the checks need: base64 (standard and URL alphabets),
//! CRC-32 and the base62 checksum suffix of GitHub and npm tokens.

/// Value of one base64 digit in either alphabet (`+/` or `-_`).
fn b64_digit(b: u8) -> Option<u32> {
    Some(match b {
        b'A'..=b'Z' => b - b'A',
        b'a'..=b'z' => b - b'a' + 26,
        b'0'..=b'9' => b - b'0' + 52,
        b'+' | b'-' => 62,
        b'/' | b'_' => 63,
        _ => return None,
    } as u32)
}

/// Decodes the first `max_out` bytes of a base64 text (either alphabet,
/// padding optional); `None` when a character is not base64.
pub(super) fn b64_decode_prefix(text: &[u8], max_out: usize) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(max_out.min(text.len()));
    let mut acc: u32 = 0;
    let mut bits = 0;
    for &b in text {
        if b == b'=' {
            break;
        }
        acc = (acc << 6) | b64_digit(b)?;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
            if out.len() >= max_out {
                break;
            }
        }
    }
    Some(out)
}

const BASE62: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// The six-character base62 CRC-32 that ends GitHub's and npm's new-style
/// tokens: `ghp_` + 30 random characters + `checksum_suffix(random)`.
pub(super) fn checksum_suffix(random: &[u8]) -> [u8; 6] {
    let mut n = crate::util::hash::crc32(random);
    let mut out = [b'0'; 6];
    for slot in out.iter_mut().rev() {
        *slot = BASE62[(n % 62) as usize];
        n /= 62;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_both_alphabets() {
        assert_eq!(
            b64_decode_prefix(b"dXNlcjpwYXNz", 64).unwrap(),
            b"user:pass".to_vec()
        );
        assert_eq!(
            b64_decode_prefix(b"eyJhbGciOiJIUzI1NiJ9", 64).unwrap(),
            br#"{"alg":"HS256"}"#.to_vec()
        );
        assert_eq!(b64_decode_prefix(b"Pz8_", 8).unwrap(), b"???".to_vec());
        assert_eq!(b64_decode_prefix(b"YWJjZA==", 8).unwrap(), b"abcd".to_vec());
        assert!(b64_decode_prefix(b"ab$c", 8).is_none());
        assert_eq!(b64_decode_prefix(b"YWJjZGVm", 2).unwrap(), b"ab".to_vec());
    }

    #[test]
    fn checksum_is_six_base62_digits() {
        let s = checksum_suffix(b"123456789");
        assert!(s.iter().all(u8::is_ascii_alphanumeric));
        // 0xCBF43926 = 3421780262 in base62 (digits, upper, lower).
        assert_eq!(&s, b"3jZRME");
    }
}
