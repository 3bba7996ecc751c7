//! Stable checksums: a fast content key (FNV-1a, 64 bit; the same bytes give
//! the same key in every build) and CRC-32. Neither is a security hash.

/// The FNV-1a starting value: `fnv1a(FNV_OFFSET, bytes)` hashes `bytes`.
pub const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a, 64 bit, continued from `start` over `bytes`.
pub fn fnv1a(start: u64, bytes: &[u8]) -> u64 {
    bytes.iter().fold(start, |h, b| {
        (h ^ *b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The FNV-1a key of `parts`, each followed by a separator byte so that
/// `["ab", "c"]` and `["a", "bc"]` differ; 16 hex digits.
pub fn key_of(parts: &[&str]) -> String {
    let h = parts.iter().fold(FNV_OFFSET, |h, part| {
        fnv1a(fnv1a(h, part.as_bytes()), &[0x1f])
    });
    format!("{h:016x}")
}

/// CRC-32 (IEEE, as zlib computes it).
pub fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values_and_separated_parts() {
        // Published FNV-1a 64 test vectors.
        assert_eq!(fnv1a(FNV_OFFSET, b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(FNV_OFFSET, b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_ne!(key_of(&["ab", "c"]), key_of(&["a", "bc"]));
        assert_eq!(key_of(&["x"]).len(), 16);
    }

    #[test]
    fn crc32_matches_zlib() {
        assert_eq!(crc32(b""), 0);
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(
            crc32(b"The quick brown fox jumps over the lazy dog"),
            0x414F_A339
        );
    }
}
