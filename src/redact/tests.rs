//! End-to-end cases for [`super::redact`]: Codex's own cases, one or more per
//! family, precision cases and idempotence.

use super::*;

/// Builds a token from a prefix and a body so this file holds no
/// live-looking token in one piece.
fn tok(prefix: &str, body: &str) -> String {
    format!("{prefix}{body}")
}

const B36: &str = "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8";
const HEX32: &str = "0f3a9c7e5b1d2f4a6c8e0b2d4f6a8c0e";

fn r(text: &str) -> String {
    redact(text).into_owned()
}

#[test]
fn codex_cases() {
    assert_eq!(
        redact("Bearer abcde+fghijklmnopqrstuvwxyz012345"),
        "Bearer [REDACTED_SECRET]"
    );
    assert_eq!(
        redact("Bearer AbcdefghijklMN09._~+/-==; echo done"),
        "Bearer [REDACTED_SECRET]; echo done"
    );
    assert_eq!(
        redact("Bearer sk-abcdefghijklmnopqrst+secret_suffix"),
        "Bearer [REDACTED_SECRET]"
    );
    assert_eq!(
        redact("Bearer AKIAABCDEFGHIJKLMNOP/~secret_suffix"),
        "Bearer [REDACTED_SECRET]"
    );
    assert_eq!(
        redact("authorization: bEaReR\tabcdefghijklmnop"),
        "authorization: bEaReR\t[REDACTED_SECRET]"
    );
    assert_eq!(redact("Bearer of good news"), "Bearer of good news");
    assert_eq!(redact("Bearer abcdefghijklmno"), "Bearer abcdefghijklmno");
    for unchanged in [
        "NotABearer abcdefghijklmnop",
        "Bearerabcdefghijklmnop",
        "Bearer\nabcdefghijklmnop",
        "Bearer\u{a0}abcdefghijklmnop",
        "Bearer abcdefghijklmno\u{212a}",
    ] {
        assert_eq!(redact(unchanged), unchanged);
    }
    let json = r#"{"token":"sk-abcdefghijklmnopqrstuvwxyz123456"}"#;
    let out = redact(json);
    assert!(!out.contains("sk-abcdefghijklmnopqrstuvwxyz123456"));
    assert!(out.contains(REDACTED));
    assert_eq!(
        redact("key AKIAABCDEFGHIJKLMNOP here"),
        "key [REDACTED_SECRET] here"
    );
    assert_eq!(
        redact("password = hunter2hunter2"),
        "password = [REDACTED_SECRET]"
    );
}

#[test]
fn findings_name_rules_not_secrets() {
    let (out, findings) = redact_with_findings("a sk-abcdefghijklmnopqrstuvwxyz b");
    assert_eq!(out, "a [REDACTED_SECRET] b");
    assert_eq!(findings.len(), 1);
    assert_eq!(findings[0].rule, "openai_key");
    assert_eq!((findings[0].start, findings[0].end), (2, 31));
}

#[test]
fn text_without_keywords_is_borrowed() {
    let text = "fn main() { println!(\"hello world\"); }\n".repeat(100);
    assert!(matches!(redact(&text), Cow::Borrowed(_)));
}

#[test]
fn readable_replacements() {
    assert_eq!(
        r(&format!("OPENAI_API_KEY={}", tok("sk-proj-", B36))),
        "OPENAI_API_KEY=[REDACTED_SECRET]"
    );
    assert_eq!(
        r("postgres://app:Tr0ub4dor3@db:5432/x"),
        "postgres://app:[REDACTED_SECRET]@db:5432/x"
    );
    assert_eq!(
        r(&format!("-H 'Authorization: Bearer {}'", tok("ghp_", B36))),
        "-H 'Authorization: Bearer [REDACTED_SECRET]'"
    );
}

#[test]
fn one_case_per_family() {
    let cases = [
        tok("AKIA", "2B3C4D5E6F7G8H9J"),
        tok("AIza", "SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"),
        tok("ghp_", B36),
        tok(
            "github_pat_",
            &format!("11ABCDE2F0{}_{}{}", &B36[..12], B36, &B36[..23]),
        ),
        tok("glpat-", "a1B2c3D4e5F6g7H8i9J0"),
        tok("sk-ant-api03-", &format!("{B36}{B36}")),
        tok("hf_", "aBcDeFgHiJkLmNoPqRsTuVwXyZaBcDeFgH"),
        tok("gsk_", &format!("{B36}{}", &B36[..16])),
        tok("sk_live_", &B36[..24]),
        tok("whsec_", &B36[..32]),
        tok(
            "xoxb-",
            "123456789012-123456789012-a1B2c3D4e5F6g7H8i9J0k1L2",
        ),
        tok("npm_", B36),
        tok("pypi-AgEIcHlwaS5vcmc", &format!("{B36}{B36}")),
        tok(
            "SG.",
            &format!("{}.{}", &B36[..22], &format!("{B36}{B36}")[..43]),
        ),
        tok("shpat_", HEX32),
        tok("dop_v1_", &format!("{HEX32}{HEX32}")),
        tok("hvs.", &format!("{}{}", B36, &B36[..8])),
        tok("lin_api_", &format!("{}{}", B36, &B36[..4])),
        tok("NRAK-", "A1B2C3D4E5F6G7H8I9J0K1L2M3N"),
        tok(
            "AGE-SECRET-KEY-1",
            &"QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L".repeat(2)[..58],
        ),
    ];
    for secret in &cases {
        let text = format!("value {secret} end");
        assert_eq!(r(&text), "value [REDACTED_SECRET] end", "{secret}");
    }
}

#[test]
fn structured_secrets() {
    let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.k2LmQ9xZ3pR7tW1vBc4Nd5Fe6";
    assert_eq!(r(&format!("token: {jwt}")), "token: [REDACTED_SECRET]");
    let pem = "-----BEGIN RSA PRIVATE KEY-----\\nMIIEowIBAAKCAQEAx4bq9Zk2Lm0Q9xZ3pR7t\\nW1vBc\\n-----END RSA PRIVATE KEY-----\\n";
    assert_eq!(
        r(&format!("{{\"private_key\": \"{pem}\"}}")),
        "{\"private_key\": \"-----BEGIN RSA PRIVATE KEY-----\\n[REDACTED_SECRET]\\n-----END RSA PRIVATE KEY-----\\n\"}"
    );
    assert_eq!(
        r("curl -u admin:S3cr3tpw https://x"),
        "curl -u admin:[REDACTED_SECRET] https://x"
    );
    assert_eq!(
        r("Cookie: session=a8Fk2LmQ9xZ3; theme=dark"),
        "Cookie: session=[REDACTED_SECRET]; theme=dark"
    );
}

#[test]
fn precision() {
    for text in [
        "commit 3f786850e387550fdab836ed7e6dc881de23001b",
        "session 123e4567-e89b-12d3-a456-426614174000",
        "\"integrity\": \"sha512-Q2FjaGUgY29udGVudCBoYXNoIGZvciB0ZXN0cw==\"",
        "golang.org/x/text v0.3.0 h1:g61tztE5qeGQ89tm6NTjjM9VPIm088od1l6aSorWRWG=",
        "OPENAI_API_KEY=YOUR_API_KEY",
        "token: ${GITHUB_TOKEN}",
        "password: \"{{ secrets.DB_PASSWORD }}\"",
        "api_key = op://dev/openai/credential",
        "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE",
        "task-1234567890abcdefghijklmn risk-assessment kiosk-mode desk-booking",
        "see https://docs.example.com/api/keys?tab=tokens",
        "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7 dev@laptop",
        "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n-----END PUBLIC KEY-----",
        "STRIPE_PUBLISHABLE_KEY=pk_live_a1B2c3D4e5F6g7H8i9J0k1L2",
        "src/auth/token_refresh.rs:42: fn refresh_token(&self) -> Result<Token>",
        "test result: ok. 42 passed; 0 failed",
        "[REDACTED_SECRET]",
    ] {
        assert_eq!(r(text), text);
    }
}

#[test]
fn a_marker_word_inside_a_random_token_does_not_spare_it() {
    let token = tok("glpat-", "FAKEr3adOnlyLfs9xYz2");
    assert_eq!(
        r(&format!("use this deploy token, its read-only: {token}")),
        "use this deploy token, its read-only: [REDACTED_SECRET]"
    );
    for stand_in in [
        tok("sk-", "fake-key-for-tests"),
        tok("ghp_", "FAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKE"),
        tok("ghp_", "YOURTOKENHEREabcdefghijklmnopqrstu"),
        tok("AKIA", "IOSFODNN7EXAMPLE"),
    ] {
        assert_eq!(r(&stand_in), stand_in);
    }
}

#[test]
fn idempotent() {
    for text in [
        format!("OPENAI_API_KEY={}", tok("sk-proj-", B36)),
        "postgres://app:Tr0ub4dor3@db:5432/x".to_string(),
        "Authorization: Bearer a8Fk2LmQ9xZ3pR7tW1vB".to_string(),
        "-----BEGIN PRIVATE KEY-----\nMIIEowIBAAKCAQEAx4bq9Zk2Lm0Q9x\n-----END PRIVATE KEY-----"
            .to_string(),
        "Cookie: session=a8Fk2LmQ9xZ3".to_string(),
    ] {
        let once = r(&text);
        assert_ne!(once, text);
        assert_eq!(r(&once), once);
    }
}

#[test]
fn bytes_and_utf8_neighbours() {
    let t = format!("clé={} — fin", tok("ghp_", B36));
    assert_eq!(r(&t), "clé=[REDACTED_SECRET] — fin");
    let mut bytes = b"\xff\xfe token=".to_vec();
    bytes.extend_from_slice(tok("ghp_", B36).as_bytes());
    let (out, found) = redact_bytes(&bytes);
    assert_eq!(&out[..], b"\xff\xfe token=[REDACTED_SECRET]");
    assert_eq!(found.len(), 1);
}

/// Every keyword at every kind of edge: next to the end of the text, next
/// to escapes, quotes and separators, repeated. Nothing may panic, spans
/// must lie inside the text and be sorted, and redaction stays idempotent.
#[test]
fn no_keyword_at_any_edge_panics() {
    let mut keywords: Vec<String> = Vec::new();
    keywords.extend(
        super::rules::TOKEN_RULES
            .iter()
            .map(|r| r.prefix.to_string()),
    );
    keywords.extend(super::KEYWORDS.iter().map(|(k, _)| k.to_string()));
    keywords.extend(super::printed::TRIGGERS.iter().map(|(k, _)| k.to_string()));
    let edges = [
        "", " ", "=", ":", "\"", "'", "\\", "\\n", "\\\"", "/", "@", "-", "_", ".", "\n", "(", "%",
        "0x", "a", "A1", "=\"", ": '", " -p", "//", "!", "\t",
    ];
    let mut rng = 0x2545_F491_4F6C_DD1Du64;
    let mut next = |n: usize| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        (rng % n as u64) as usize
    };
    let body = "k2LmQ9xZ3pR7tW1vBc4Nd5Fe6Gh7Jk8L";
    for kw in &keywords {
        for before in edges {
            for after in edges {
                let n = next(body.len());
                for text in [
                    format!("{before}{kw}{after}"),
                    format!("{before}{kw}{after}{}", &body[..n]),
                    format!("{kw}{after}{kw}{before}"),
                    format!("{}{before}{kw}{after}", &body[n..]),
                ] {
                    let found = find_secrets(text.as_bytes());
                    let mut at = 0;
                    for f in &found {
                        assert!(
                            f.start >= at && f.start < f.end && f.end <= text.len(),
                            "{text:?}"
                        );
                        at = f.end;
                    }
                    let once = r(&text);
                    assert_eq!(r(&once), once, "not idempotent on {text:?}");
                }
            }
        }
    }
}

/// Inside a tool call's JSON arguments, themselves a JSON string, a line
/// break is `\\n` and a tab `\\t`: a secret next to one is cut out without
/// taking a backslash of the escape (which would break the inner JSON).
#[test]
fn doubly_escaped_breaks_stay_whole() {
    let pw = "zjUIsF7evJkrcBlx6w!*8np3ec";
    let pgpass = format!(r#"cat > ~/.pgpass <<'EOF'\\ndb.acme.dev:5432:*:app:{pw}\\nEOF"#);
    assert_eq!(
        r(&pgpass),
        r#"cat > ~/.pgpass <<'EOF'\\ndb.acme.dev:5432:*:app:[REDACTED_SECRET]\\nEOF"#
    );
    let jar = r#"# Netscape HTTP Cookie File\\n.acme.io\\tTRUE\\t/\\tTRUE\\t1767225600\\tsession_token\\tTLe0yKkXlhFo0rRCzoTha9h5JIz81dbZ\\n"#;
    assert_eq!(
        r(jar),
        r#"# Netscape HTTP Cookie File\\n.acme.io\\tTRUE\\t/\\tTRUE\\t1767225600\\tsession_token\\t[REDACTED_SECRET]\\n"#
    );
    let words = "already accuse apart animal acoustic begin age all actual arena appear absorb";
    let phrase =
        format!(r#"Successfully generated a new mnemonic.\\nPhrase:\\n{words}\\n\\nAccounts:"#);
    assert_eq!(
        r(&phrase),
        r#"Successfully generated a new mnemonic.\\nPhrase:\\n[REDACTED_SECRET]\\n\\nAccounts:"#
    );
}

/// Secrets piped into a command, passed to `openssl`, `rabbitmqctl` or
/// `codecov`, held in a JWK or a PuTTY key, printed by `aws configure get`,
/// told in prose, given to a builder, typed constants, PagerDuty keys; and
/// their look-alikes, which stay.
#[test]
fn commands_keys_prose_and_code_secrets() {
    let pw = "Tundra@Pel1can68";
    for (text, secret) in [
        (format!("echo '{pw}' | sudo -S systemctl restart nginx"), pw),
        (format!("echo \"{pw}\" | docker login -u ci --password-stdin r.io"), pw),
        (format!("openssl enc -aes-256-cbc -in a -out b -k {pw}"), pw),
        (format!("openssl rsa -in k.pem -passin pass:{pw} -out p.pem"), pw),
        (format!("rabbitmqctl add_user orders {pw} && echo ok"), pw),
        (
            "codecov upload-process -t 98fdafc4-da5f-4da4-8d45-154e65dff5ae -f c.xml".into(),
            "98fdafc4-da5f-4da4-8d45-154e65dff5ae",
        ),
        (
            "{\"kty\": \"OKP\", \"crv\": \"Ed25519\", \"x\": \"QeKoCkuVK8nEhGZtYTFumWbT\", \"d\": \"0WnNlOkeVWC_Qkb78XKt86De56uIELDN\"}".into(),
            "0WnNlOkeVWC_Qkb78XKt86De56uIELDN",
        ),
        (
            "Public-Lines: 1\nAAAAC3NzaC1lZDI1NTE5\nPrivate-Lines: 1\nqSiUnHtHAnrPaybFRPeV0AAuf9srba+BYsT1x3bnkF3X\nPrivate-MAC: 68".into(),
            "qSiUnHtHAnrPaybFRPeV0AAuf9srba+BYsT1x3bnkF3X",
        ),
        (
            "$ aws configure get aws_secret_access_key\nOKuLqqBbfk1nZzqeN/bL8NjlZBs2/H5DYaEguwk4\n".into(),
            "OKuLqqBbfk1nZzqeN/bL8NjlZBs2/H5DYaEguwk4",
        ),
        (format!("the staging db password is {pw}, user is app."), pw),
        (format!("PgConnectOptions::new().username(\"app\").password(\"{pw}\")"), pw),
        (format!("pub const HMAC_SECRET: &str = \"{pw}\";"), pw),
        (
            "pagerduty_configs:\n  - routing_key: 30d983ac646d17b04c0cd2567e53ff93\n".into(),
            "30d983ac646d17b04c0cd2567e53ff93",
        ),
    ] {
        let out = r(&text);
        assert!(!out.contains(secret), "{text:?} -> {out:?}");
        assert!(out.contains("[REDACTED_SECRET]"), "{text:?}");
    }
    for text in [
        "echo \"$PASS\" | docker login -u ci --password-stdin r.io",
        "openssl rsa -in k.pem -passin env:KEYPASS -out p.pem",
        "the password is stored in vault",
        "fn check(password: &str) -> bool",
        "let p = cfg.password(&args.pw);",
        "routing_key: 30d983ac646d17b04c0cd2567e53ff93",
        "{\"kty\": \"RSA\", \"n\": \"0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4\", \"e\": \"AQAB\"}",
    ] {
        assert_eq!(r(text), text);
    }
}

#[test]
fn every_value_a_command_printed_is_redacted_not_only_the_first() {
    use crate::sources::{Event, ToolCall};
    let keys = [
        "9f3c2a7be41d08c6f5a2e9b7d3c1f0a4",
        "1b8e4d7a2c9f06e3b5d8a1c4f7e2b9d0",
        "c7a1e5b9d3f2084e6c1a9b5d7f3e2c81",
    ];
    let call = ToolCall {
        call_id: "c".into(),
        name: "exec_command".into(),
        input: "for i in 1 2 3; do openssl rand -hex 16; done".into(),
        output: Some(keys.join("\n")),
        exit_code: Some(0),
        failed: false,
        at: None,
        line: 1,
    };
    let Event::ToolCall(c) = redact_event(Event::ToolCall(call)) else {
        unreachable!()
    };
    let output = c.output.unwrap();
    for key in keys {
        assert!(!output.contains(key), "{key} survived: {output}");
    }
}

#[test]
fn exports_and_parameters_keep_their_names() {
    assert_eq!(
        redact("name,url,username,password\ngithub,https://github.com,alice,Tr0ub4dor&3horse\n"),
        "name,url,username,password\ngithub,https://github.com,alice,[REDACTED_SECRET]\n"
    );
    assert_eq!(
        redact(r#"Authorization: Token token="a8Fk2LmQ9xZ3pR7tW1vB""#),
        r#"Authorization: Token token="[REDACTED_SECRET]""#
    );
}

#[test]
fn vault_unseal_keys_listed_after_their_name_go() {
    let k1 = tok("oSN3Ei1e7bXSBKele", "FRPrsZEezegGAA7y04NyZhj2QA=");
    let k2 = tok("amnhF6u2qui9lW16I", "BuuaYHcEi2LeujMxS2pZIxwNtE=");
    let json = format!("{{\n  \"unseal_keys_b64\": [\n    \"{k1}\",\n    \"{k2}\"\n  ],");
    let out = r(&json);
    assert!(
        !out.contains(&k1[..12]) && !out.contains(&k2[..12]),
        "{out}"
    );
    assert!(out.contains("\"unseal_keys_b64\": ["), "{out}");
    let prose = format!("unseal with these (need 3 of 5):\n{k1}\n{k2}\n");
    let out = r(&prose);
    assert!(
        !out.contains(&k1[..12]) && !out.contains(&k2[..12]),
        "{out}"
    );
    // Base64 of that length elsewhere is left alone.
    let digest = format!("sha256 of the layer: {k1}");
    assert_eq!(r(&digest), digest);
}

#[test]
fn django_and_laravel_generated_secrets_go_whole() {
    let django = tok(
        "django-insecure-",
        "aa%d28e1lo+w-mrvse9j9bq!h^9f%4swf0=k*op8d*d^7@((0*",
    );
    let out = r(&format!("4→DJANGO_KEY={django}\\n5→TZ=UTC"));
    assert_eq!(out, "4→DJANGO_KEY=[REDACTED_SECRET]\\n5→TZ=UTC");
    let laravel = tok(
        "eyJpdiI6",
        "IkF1KzRaUVFIY2RnYXh0dHF4WnhCQUE9PSIsInZhbHVlIjoiRngrN3RCSFBzaW5SdTZ2aGJl",
    );
    let out = r(&format!("my cookie is {laravel}%3D%3D now"));
    assert!(!out.contains("IkF1KzRa"), "{out}");
    assert!(out.starts_with("my cookie is ["), "{out}");
}

#[test]
fn arns_and_search_only_keys_stay() {
    let arn = "aws secretsmanager describe-secret --secret-id \
               arn:aws:secretsmanager:eu-central-1:676089589598:secret:payments/stripe-KtjXgt --query Name";
    assert_eq!(r(arn), arn);
    let env = format!("NEXT_PUBLIC_ALGOLIA_SEARCH_ONLY_API_KEY={HEX32}");
    assert_eq!(r(&env), env);
    // An escaped newline ends the comment that says the key is public.
    let call = format!(
        "{{\"content\":\"3→// Search-Only API key: safe to expose\\n4→const c = algoliasearch('H7X2KQ9P0L', '{HEX32}');\",\"id\":\"toolu_01bUQiqZin7tuCF1lsL9bmDI\"}}"
    );
    assert_eq!(r(&call), call);
    // The admin key of the same app still goes.
    let admin = format!("ALGOLIA_ADMIN_API_KEY={HEX32}");
    assert_eq!(r(&admin), "ALGOLIA_ADMIN_API_KEY=[REDACTED_SECRET]");
}

#[test]
fn asana_tokens_go_whole_near_their_name() {
    let pat = tok("2/1204567890123456/1205678901234567:", HEX32);
    assert_eq!(
        r(&format!("use {pat} for the asana sync")),
        "use [REDACTED_SECRET] for the asana sync"
    );
    let old = tok("1/1204567890123456:", HEX32);
    assert_eq!(
        r(&format!("Asana PAT: {old}")),
        "Asana PAT: [REDACTED_SECRET]"
    );
    // Task ids and times near the word stay; so does the shape far from it.
    let ids = "asana task 1204567890123456 at 12:30 in /1/2";
    assert_eq!(r(ids), ids);
    let far = format!("{}{pat}", "x ".repeat(400));
    assert_eq!(r(&far), far);
}

#[test]
fn honeycomb_keys_in_headers_go_and_the_next_header_stays() {
    let key = "7fJq2LmN9xZpR4tVw8KbYc";
    assert_eq!(
        r(&format!(
            "curl -H \"X-Honeycomb-Team: {key}\" https://api.honeycomb.io/1/events/web"
        )),
        "curl -H \"X-Honeycomb-Team: [REDACTED_SECRET]\" https://api.honeycomb.io/1/events/web"
    );
    assert_eq!(
        r(&format!(
            "OTEL_EXPORTER_OTLP_HEADERS=\"x-honeycomb-team={key},x-honeycomb-dataset=web\""
        )),
        "OTEL_EXPORTER_OTLP_HEADERS=\"x-honeycomb-team=[REDACTED_SECRET],x-honeycomb-dataset=web\""
    );
    let placeholder = "X-Honeycomb-Team: YOUR_API_KEY";
    assert_eq!(r(placeholder), placeholder);
}

#[test]
fn here_strings_under_a_secret_name_go() {
    let secret = tok("Qm9vT2x1ZGVy", "R2FyZGVuU3RhdGlvbjE5ODc=");
    assert_eq!(
        r(&format!(
            "vercel env add NEXTAUTH_SECRET production <<< '{secret}'"
        )),
        "vercel env add NEXTAUTH_SECRET production <<< '[REDACTED_SECRET]'"
    );
    for kept in [
        "cat <<< \"$API_TOKEN\"",
        "gh secret set API_TOKEN <<< \"${{ secrets.X }}\"",
        "grep -c x <<< 'a8Fk2LmQ9xZpR4tVw8KbYcNd'",
    ] {
        assert_eq!(r(kept), kept);
    }
}

#[test]
fn elastic_encoded_keys_go_after_their_api_key() {
    let reply = "{\"id\":\"VuaCfGcBCdbkQm-e5aOx\",\"name\":\"ingest\",\"api_key\":\"ui2lp2axTNmsyakw9tvNnw\",\
                 \"encoded\":\"VnVhQ2ZHY0JDZGJrUW0tZTVhT3g6dWkybHAyYXhUTm1zeWFrdzl0dk5udw==\"}";
    let out = r(reply);
    assert!(out.ends_with("\"encoded\":\"[REDACTED_SECRET]\"}"), "{out}");
    let escaped = "{\"output\":\"{\\\"api_key\\\" : \\\"ui2lp2axTNmsyakw9tvNnw\\\",\\n  \
                   \\\"encoded\\\" : \\\"VnVhQ2ZHY0JDZGJrUW0tZTVhT3g6dWkybHAyYXhUTm1zeWFrdzl0dk5udw==\\\"\\n}\"}";
    assert!(!r(escaped).contains("VnVhQ2ZH"), "{}", r(escaped));
    // Base64 under `encoded` with no API key before it stays.
    let other = "{\"api_key_id\":\"x\",\"encoded\":\"aGVsbG8gd29ybGQgdGhpcyBpcyBub3QgYSBzZWNyZXQgYXQgYWxsIG9r\"}";
    assert_eq!(r(other), other);
}

#[test]
fn rcon_passwords_and_pw_in_prose_go() {
    assert_eq!(
        r("mcrcon -H 127.0.0.1 -p 'Tr0mb0ne!Sky' \"say hi\""),
        "mcrcon -H 127.0.0.1 -p '[REDACTED_SECRET]' \"say hi\""
    );
    assert_eq!(
        r("docker exec mc rcon-cli --password Xk29fLmQp7 list"),
        "docker exec mc rcon-cli --password [REDACTED_SECRET] list"
    );
    let port = "mcrcon -H host -P 25575 list";
    assert_eq!(r(port), port);
    assert_eq!(
        r("the root pw is Copper=Willow29 btw"),
        "the root pw is [REDACTED_SECRET] btw"
    );
    let prose = "the new pw is stored in vault";
    assert_eq!(r(prose), prose);
}

#[test]
fn magento_encryption_keys_go() {
    let key = HEX32;
    let env_php = format!("    'crypt' => [\n        'key' => '{key}'\n    ],\n    'db' => [");
    assert_eq!(
        r(&env_php),
        "    'crypt' => [\n        'key' => '[REDACTED_SECRET]'\n    ],\n    'db' => ["
    );
    let install = format!(
        "bin/magento setup:install --base-url=http://m.test/ --key={key} --admin-user=admin"
    );
    assert_eq!(
        r(&install),
        "bin/magento setup:install --base-url=http://m.test/ --key=[REDACTED_SECRET] --admin-user=admin"
    );
    let empty = "'crypt' => ['key' => '']";
    assert_eq!(r(empty), empty);
}

#[test]
fn keys_apps_ship_and_strings_that_hold_a_prefix_stay() {
    let google = tok("AIza", "SyB7x2kQ9mZ4pL8vN3rT6wY1cF5hJ0dG2aE");
    let maps = format!(
        "<script async src=\"https://maps.googleapis.com/maps/api/js?key={google}&callback=initMap\"></script>"
    );
    assert_eq!(r(&maps), maps);
    let services = format!("\"api_key\": [\n  {{\n    \"current_key\": \"{google}\"\n  }}\n]");
    assert_eq!(r(&services), services);
    // The same key handed to a server stays a secret.
    assert_eq!(
        r(&format!("GOOGLE_API_KEY={google}")),
        "GOOGLE_API_KEY=[REDACTED_SECRET]"
    );
    let docsearch = format!(
        "docsearch({{\n  appId: '1CZWLXBLLU',\n  apiKey: '{HEX32}', // public search-only key\n  indexName: 'web',"
    );
    assert_eq!(r(&docsearch), docsearch);
    let modulus = "\"n\": \"SeUZuuZZdchGeEulhFzRNngxxYX5YRF9L9_sk-4uhTFcAFsfHIke5528nthsMeDVyELWRIVdNpoQArkA1TjP504\"";
    assert_eq!(r(modulus), modulus);
}
