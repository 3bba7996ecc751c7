//! The precision allow-list: values shaped like secrets that are not secrets —
//! placeholders, references to secrets kept elsewhere, masked values (also
//! our own marker, so redaction is idempotent), documented example keys,
//! content hashes and public material.

/// Keys published in providers' documentation. Split so that this file does
/// not itself look like it holds live keys.
const DOCUMENTED: &[&str] = &[
    concat!("AKIAIOSFODNN7", "EXAMPLE"),
    // The Azure Storage emulator's (Azurite's) published account key.
    concat!(
        "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/",
        "K1SZFPTOtr/KBHBeksoGMGw=="
    ),
    concat!("wJalrXUtnFEMI/K7MDENG/bPxRfi", "CYEXAMPLEKEY"),
    concat!("AKIAI44QH8DHB", "EXAMPLE"),
    concat!("je7MtGbClwBF/2Zp9Utk/h3yCo8nvb", "EXAMPLEKEY"),
    concat!("sk_test_", "4eC39HqLyjWDarjtT1zdp7dc"),
    concat!("sk_test_", "BQokikJOvBiI2HlWgH4olfQ2"),
    concat!("sk_test_", "26PHem9AhJZvU623DfE1x4sd"),
    concat!("rk_test_", "4eC39HqLyjWDarjtT1zdp7dc"),
    concat!("ghp_", "16C7e42F292c6912E7710c838347Ae178B4a"),
    concat!("gho_", "16C7e42F292c6912E7710c838347Ae178B4a"),
    concat!("xoxb-", "not-a-real-token-this-will-not-work"),
    concat!(
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9",
        ".eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ",
        ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
    ),
];

/// Whether `v` is a key published in provider documentation.
pub(super) fn is_documented_example(v: &[u8]) -> bool {
    DOCUMENTED.iter().any(|d| d.as_bytes() == v)
}

/// Values that are words, not secrets (compared ignoring case).
const WORDS: &[&str] = &[
    "password",
    "passwd",
    "pass",
    "secret",
    "secrets",
    "token",
    "key",
    "apikey",
    "api_key",
    "api-key",
    "changeme",
    "none",
    "null",
    "nil",
    "true",
    "false",
    "undefined",
    "required",
    "optional",
    "string",
    "str",
    "text",
    "hidden",
    "empty",
    "default",
    "test",
    "prompt",
    "stdin",
    "input",
    "ask",
    "yes",
    "no",
    "on",
    "off",
    "auto",
    "inherit",
    "n/a",
    "tbd",
    "todo",
    "unset",
    "missing",
    "masked",
    "sensitive",
    "bearer",
    "basic",
    "mysecret",
    "mypassword",
    "foobar",
    "letmein",
    "password123",
];

/// Tell-tale parts of placeholders, matched in lower, upper or capitalised form.
const MARKERS: &[&str] = &[
    "your",
    "example",
    "placeholder",
    "changeme",
    "change_me",
    "change-me",
    "redacted",
    "dummy",
    "sample",
    "_here",
    "-here",
    "notreal",
    "not-real",
    "not_real",
    "not-a-real",
    "not_a_real",
    "fake",
    "xxxx",
    "insert",
    "replace",
];

/// Starts of references to secrets stored elsewhere.
const REFERENCES: &[&str] = &[
    "$",
    "op://",
    "vault:",
    "env:",
    "secret:",
    "secrets.",
    "ref+",
    // An ARN names a resource (a KMS key, a Secrets Manager secret), never
    // holds its value.
    "arn:aws",
    "projects/",
    "sm://",
    "keyvault",
    "!vault",
    "!secret",
    "!ref",
    "process.env",
    "os.environ",
    "os.getenv",
    "getenv",
    "system.getenv",
    "env.",
    "env[",
    "import.meta.env",
];

/// Pieces that only templates and interpolations contain.
const TEMPLATE_PARTS: &[&str] = &["${", "{{", "}}", "<%", "%s:%s", "***", "...", "…"];

/// `$(cmd …)` and Ruby's `#{expr}`: an opening that is closed later, with a
/// name or a command right after it. A generated password's `$(#39y…`
/// opens nothing.
fn has_substitution(v: &[u8]) -> bool {
    [(b"$(", b')'), (b"#{", b'}')].iter().any(|(open, close)| {
        v.windows(2).enumerate().any(|(i, w)| {
            w == *open
                && v.get(i + 2)
                    .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_' || *b == b' ')
                && v[i + 2..].contains(close)
        })
    })
}

/// Python's named format field `%(name)`: a `%(` that opens anything else is
/// a generated password's punctuation (Django's `SECRET_KEY`s hold `%(q-o&…`).
fn has_python_format_field(v: &[u8]) -> bool {
    v.windows(2).enumerate().any(|(i, w)| {
        w == b"%(" && {
            let name = &v[i + 2..];
            let n = name
                .iter()
                .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
                .count();
            n > 0 && name.get(n) == Some(&b')')
        }
    })
}

/// A placeholder, a reference, a template or a masked value: never redacted.
pub(super) fn is_placeholder(v: &[u8]) -> bool {
    let Some(&first) = v.first() else {
        return true;
    };
    let last = v[v.len() - 1];
    if matches!(
        (first, last),
        (b'<', b'>') | (b'[', b']') | (b'{', b'}') | (b'(', b')') | (b'%', b'%')
    ) || matches!(v, b"%s" | b"%v" | b"%d")
    {
        return true;
    }
    if WORDS.iter().any(|w| w.as_bytes().eq_ignore_ascii_case(v)) {
        return true;
    }
    if REFERENCES.iter().any(|r| starts_with_ci(v, r.as_bytes())) {
        return true;
    }
    if TEMPLATE_PARTS
        .iter()
        .any(|t| super::lex::contains(v, t.as_bytes()))
        || has_python_format_field(v)
        || has_substitution(v)
    {
        return true;
    }
    if v.len() >= 3 && v.iter().all(|b| b"xX*.#?-_0".contains(b)) {
        return true;
    }
    // One character over and over after a prefix: `hf_aaaaaaaa…`, `sk-11111…`.
    if let Some(body) = v.rsplit(|b| matches!(b, b'_' | b'-')).next()
        && body.len() >= 12
        && body.iter().all(|&b| b == body[0])
    {
        return true;
    }
    if has_a_marker(v) {
        return true;
    }
    // SHOUTED_NAMES stand for a value or name a constant: API_KEY,
    // YOUR_TOKEN, PASSWORD, KERB_CRYPTO_KEY32.
    first.is_ascii_uppercase()
        && v.iter()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || *b == b'_')
        && (v.contains(&b'_') || (v.len() <= 12 && v.iter().all(u8::is_ascii_uppercase)))
}

/// `marker` (lower case) in lower case, upper case or capitalised, compared
/// in place: this runs for every candidate value, so it allocates nothing.
fn has_marker(v: &[u8], marker: &[u8]) -> bool {
    marker_at(v, marker).is_some()
}

/// Where `marker` first stands in `v`, compared as [`has_marker`] does.
fn marker_at(v: &[u8], marker: &[u8]) -> Option<usize> {
    if marker.is_empty() {
        return None;
    }
    v.windows(marker.len()).position(|w| {
        let lower_or_capitalised = w[0].to_ascii_lowercase() == marker[0] && w[1..] == marker[1..];
        lower_or_capitalised
            || w.iter()
                .zip(marker)
                .all(|(a, m)| *a == m.to_ascii_uppercase())
    })
}

/// Whether `v` holds a word that marks a stand-in ("your", "example", "fake").
fn has_a_marker(v: &[u8]) -> bool {
    MARKERS.iter().any(|m| has_marker(v, m.as_bytes()))
}

/// [`is_harmless`] for the body of a provider token: a marker word inside
/// an otherwise random body does not make it harmless.
pub(super) fn is_harmless_token(v: &[u8]) -> bool {
    if !is_harmless(v) {
        return false;
    }
    let only_marked = has_a_marker(v) && {
        let unmarked: Vec<u8> = without_markers(v);
        !is_harmless(&unmarked)
    };
    !(only_marked && marker_in_random(v))
}

/// `v` with every marker word taken out.
fn without_markers(v: &[u8]) -> Vec<u8> {
    let mut out = v.to_vec();
    for m in MARKERS {
        while let Some(at) = marker_at(&out, m.as_bytes()) {
            out.drain(at..at + m.len());
        }
    }
    out
}

/// Whether a marker word sits in an otherwise random body
/// (`glpat-FAKEr3adOnlyLfs9xYz2`): a token shaped like the real thing, not
/// a placeholder such as `sk-fake-key-for-tests`.
fn marker_in_random(v: &[u8]) -> bool {
    without_markers(v)
        .split(|b| !b.is_ascii_alphanumeric())
        .any(|run| run.len() >= 12 && super::entropy::looks_random(run))
}

fn starts_with_ci(v: &[u8], prefix: &[u8]) -> bool {
    v.len() >= prefix.len() && v[..prefix.len()].eq_ignore_ascii_case(prefix)
}

/// Content hashes and lockfile integrity strings: `sha256:…`, `sha512-…`, `h1:…`.
pub(super) fn is_content_hash(v: &[u8]) -> bool {
    [
        "sha1:", "sha1-", "sha224:", "sha256:", "sha256-", "sha256=", "sha384:", "sha384-",
        "sha512:", "sha512-", "md5:", "md5-", "h1:", "blake2b", "blake3:",
    ]
    .iter()
    .any(|p| starts_with_ci(v, p.as_bytes()))
}

/// Public keys, certificates and publishable keys.
pub(super) fn is_public(v: &[u8]) -> bool {
    [
        "ssh-rsa ",
        "ssh-ed25519 ",
        "ssh-dss ",
        "ecdsa-sha2-",
        "sk-ssh-",
        "sk-ecdsa-",
        "AAAAB3NzaC1",
        "AAAAC3NzaC1",
        "AAAAE2VjZHNh",
        "pk_live_",
        "pk_test_",
        "pk.eyJ",
        "-----BEGIN PUBLIC",
        "-----BEGIN CERTIFICATE",
        "-----BEGIN RSA PUBLIC",
        "-----BEGIN PGP PUBLIC",
        // A PostHog project key ships in the browser (`phx_` keys are secret).
        "phc_",
        // Razorpay's key id goes to the checkout page (its secret does not).
        "rzp_live_",
        "rzp_test_",
    ]
    .iter()
    .any(|p| v.starts_with(p.as_bytes()))
        || is_braintree_tokenization_key(v)
        || is_base64_public_pem(v)
        || is_age_recipient(v)
        || is_evm_address(v)
        // A Datadog RUM client token (`pub` + 32 hex) ships in the browser.
        || (v.len() == 35 && v.starts_with(b"pub") && v[3..].iter().all(u8::is_ascii_hexdigit))
}

/// A certificate or public key in base64 (a Kubernetes secret's `tls.crt`):
/// public, unless a private key is bundled in it (a combined `tls.pem`).
fn is_base64_public_pem(v: &[u8]) -> bool {
    const PREFIXES: [&[u8]; 2] = [
        b"LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t",
        b"LS0tLS1CRUdJTiBQVUJMSUMgS0VZLS0tLS0",
    ];
    PREFIXES.iter().any(|p| v.starts_with(p))
        && super::codec::b64_decode_prefix(v, v.len())
            .is_some_and(|pem| !super::lex::contains(&pem, b"PRIVATE KEY"))
}

/// A Braintree tokenization key (`production_` or `sandbox_`, 8 and 16
/// lower-case letters and digits): meant for the browser and the app.
fn is_braintree_tokenization_key(v: &[u8]) -> bool {
    let body = v
        .strip_prefix(b"production_")
        .or_else(|| v.strip_prefix(b"sandbox_"));
    body.is_some_and(|b| {
        let alnum = |p: &[u8]| {
            p.iter()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        };
        b.len() == 25 && b[8] == b'_' && alnum(&b[..8]) && alnum(&b[9..])
    })
}

/// An Ethereum address: `0x` and 40 hex digits (public by design).
fn is_evm_address(v: &[u8]) -> bool {
    v.len() == 42 && v.starts_with(b"0x") && v[2..].iter().all(u8::is_ascii_hexdigit)
}

/// An age public key (a recipient): `age1` and 58 lower-case bech32 characters.
fn is_age_recipient(v: &[u8]) -> bool {
    v.len() == 62
        && v.starts_with(b"age1")
        && v[4..]
            .iter()
            .all(|b| b"qpzry9x8gf2tvdw0s3jn54khce6mua7l".contains(b))
}

/// Any reason to leave a secret-shaped value alone.
pub(super) fn is_harmless(v: &[u8]) -> bool {
    is_placeholder(v)
        || is_documented_example(v)
        || is_content_hash(v)
        || is_public(v)
        || is_sealed(v)
}

/// Ciphertext meant to be committed: a Bitnami SealedSecret's value (base64
/// of a blob that starts with version bytes `0x02 0x00`, so `Ag…`, hundreds
/// of characters), a SOPS value (`ENC[AES256_GCM,data:…]`) and a Jasypt
/// property (`ENC(…)`, Spring Boot). Only the cluster's or KMS's private
/// key, or the application's master password, opens them.
fn is_sealed(v: &[u8]) -> bool {
    (v.len() >= 160
        && v.starts_with(b"Ag")
        && v.iter()
            .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=')))
        || v.starts_with(b"ENC[AES256_GCM,")
        || (v.starts_with(b"ENC(") && v.ends_with(b")"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders() {
        for v in [
            "YOUR_API_KEY",
            "your-api-key-here",
            "<token>",
            "${OPENAI_API_KEY}",
            "$GITHUB_TOKEN",
            "{{ secrets.DB_PASSWORD }}",
            "op://vault/item/password",
            "changeme",
            "***",
            "xxxxxxxxxxxxxxxx",
            "sk-xxxxxxxxxxxxxxxxxxxxxxxx",
            "[REDACTED_SECRET]",
            "REDACTED",
            "<redacted>",
            "%DB_PASSWORD%",
            "sk-...",
            "PASSWORD",
            "null",
            "dummy-token-123",
            "%(db_password)s",
            "$(cat /run/secrets/db)",
            "#{ENV['DB_PASSWORD']}",
        ] {
            assert!(is_placeholder(v.as_bytes()), "{v}");
        }
    }

    #[test]
    fn real_looking_values_are_not_placeholders() {
        for v in [
            "a8Fk2LmQ9xZ3pR7t",
            "hunter2hunter2",
            "S3cr3t!x",
            "ABCDEFGHIJKLMNOPQRSTUVWX",
            "postgres",
            "&qa%jo==p%(q-o&7s9=w864",
            "0qbt38afw1qrx=$(#39y0r7kq*!j!+8i$y",
        ] {
            assert!(!is_placeholder(v.as_bytes()), "{v}");
        }
    }

    #[test]
    fn examples_hashes_public() {
        assert!(is_documented_example(
            concat!("AKIAIOSFODNN7", "EXAMPLE").as_bytes()
        ));
        assert!(is_harmless(
            concat!("sk_test_", "4eC39HqLyjWDarjtT1zdp7dc").as_bytes()
        ));
        assert!(is_content_hash(b"sha512-abcDEF123+/=="));
        assert!(is_content_hash(b"h1:abcdefghijklmnop="));
        assert!(is_public(b"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAA"));
        assert!(is_public(b"pk_live_abcdef"));
        assert!(!is_harmless(b"a8Fk2LmQ9xZ3pR7t"));
    }
}
