//! Secrets a command prints, which carry no name of their own: the 32 hex
//! digits of a Rails `config/master.key` after `cat`, what `openssl rand`,
//! `secrets.token_urlsafe()` or `wg genkey` generate, the password `op read`
//! or `pass show` prints. The command names the output; the first token of
//! the output that has the expected shape goes.

use super::Finding;
use super::entropy::{is_hex, is_uuid, looks_like_password, looks_random};
use super::lex::{command_end, contains_ci, find, run, run_back, skip_blanks};
use super::placeholders::is_harmless;

/// What the command prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Printed {
    /// Exactly this many hex digits (a Rails key file).
    Hex(usize),
    /// A generated token (hex, base64, base64url).
    Random,
    /// A generated token or a UUID: `heroku auth:token` prints either (the
    /// older API tokens are UUIDs), perhaps after a warning line.
    RandomOrUuid,
    /// One generated token, then public output: `wg genkey | tee priv | wg
    /// pubkey > pub; cat priv pub` prints the private key, then the public.
    RandomOnce,
    /// A stored password.
    Password,
}

/// Commands (matched ignoring case) and what they print.
pub(super) const TRIGGERS: &[(&str, Printed)] = &[
    ("master.key", Printed::Hex(32)),
    ("credentials/", Printed::Hex(32)),
    ("wireguard/", Printed::Random),
    ("gen-random", Printed::Random),
    ("openssl rand", Printed::Random),
    ("token_hex", Printed::Random),
    ("token_urlsafe", Printed::Random),
    // Python's `Fernet.generate_key()`, `jwk.JWK.generate(…)`-style helpers.
    ("generate_key(", Printed::Random),
    ("randombytes(", Printed::Random),
    ("urandom", Printed::Random),
    ("rails secret", Printed::Random),
    ("rake secret", Printed::Random),
    ("phx.gen.secret", Printed::Random),
    ("get_random_secret_key", Printed::Password),
    ("wg genkey", Printed::Random),
    // `aws iam create-virtual-mfa-device … --bootstrap-method Base32StringSeed`.
    ("base32stringseed", Printed::Random),
    // A password file a command prints (Ansible's vault password file).
    ("vault_pass", Printed::Password),
    ("vault-pass", Printed::Password),
    ("password.txt", Printed::Password),
    ("get-login-password", Printed::Random),
    ("auth:token", Printed::RandomOrUuid),
    ("auth token", Printed::Random),
    ("print-access-token", Printed::Random),
    ("print-identity-token", Printed::Random),
    ("key:generate", Printed::Random),
    ("auth secret", Printed::Random),
    ("pwgen", Printed::Password),
    ("op read", Printed::Password),
    ("pass show", Printed::Password),
    ("find-generic-password", Printed::Password),
    ("find-internet-password", Printed::Password),
    ("secret-tool lookup", Printed::Password),
    ("get-parameter", Printed::Password),
    ("pass ", Printed::Password),
    ("printenv ", Printed::Password),
    ("echo $", Printed::Password),
    ("echo \"$", Printed::Password),
    // `echo \"$X\"` at any depth of escaping.
    ("echo \\", Printed::Password),
    ("base64 -d", Printed::Password),
    ("base64 --decode", Printed::Password),
    ("field=", Printed::Password),
    ("op item get", Printed::Password),
    ("versions access", Printed::Password),
    ("config:get", Printed::Password),
    ("get-secret-value", Printed::Password),
    ("keyvault secret show", Printed::Password),
    ("secrets get", Printed::Password),
    ("configure get", Printed::Random),
    // `snyk config get api`: the stored API token.
    ("snyk config get api", Printed::Random),
    // `… | jq .apikey`, `jq -r .access_token`: a secret-named field's value.
    ("jq .", Printed::Password),
    ("jq -r .", Printed::Password),
    // "✔ Generated new API key" and the key on the next line.
    ("new api key", Printed::Random),
    // `cat ~/.vault-token`: the CLI's stored token (legacy `s.` ones too).
    (".vault-token", Printed::Random),
    // `cat privatekey`, `sudo cat /var/lib/jenkins/secrets/initialAdminPassword`:
    // a file named as a secret, printed (see `names_secret_file`).
    ("cat ", Printed::RandomOnce),
    // `az storage account keys list … -o tsv`: the account keys.
    ("keys list", Printed::Random),
    // `terraform console` evaluating a secret-named variable (`> var.admin_password`).
    ("> var.", Printed::Password),
    ("> nonsensitive(var.", Printed::Password),
    // `kubectl get secret X -o jsonpath='{.data.password}'`: the value, base64.
    ("jsonpath={.data.", Printed::Random),
    ("jsonpath=\"{.data.", Printed::Random),
    ("jsonpath='{.data.", Printed::Random),
    // `terraform output -raw db_password`: the raw value of a secret's output.
    ("output -raw ", Printed::Password),
    // Elasticsearch's `elasticsearch-create-enrollment-token`.
    ("create-enrollment-token", Printed::Random),
    // Jenkins' first start: "Please use the following password to proceed".
    ("use the following password", Printed::Random),
];

/// How far after the command its output is looked for.
pub(super) const WINDOW: usize = 600;

/// How far after the command a JSON record's output field is looked for
/// (Claude Code's tool result follows a long assistant record).
const FIELD_WINDOW: usize = 4096;

/// How far before a command's line the text is looked at for what it fetched.
const BEFORE: usize = 400;

/// The longest printed token taken whole.
const LONGEST_TOKEN: usize = 4096;

/// Tokens of the output looked at before giving up.
const MAX_TOKENS: usize = 6;

/// The trigger `TRIGGERS[i]` found at `hit..hit_end`: the output after the
/// command's line. Returns what the command prints when the text ends
/// before its output does (a stream's next line may hold it).
pub(super) fn after_command(
    text: &[u8],
    hit: usize,
    hit_end: usize,
    i: usize,
    out: &mut Vec<Finding>,
) -> Option<Printed> {
    let (_, mut kind) = TRIGGERS[i];
    // The cheap test on the bytes around the trigger first: most hits of
    // `pass ` or `echo ` end here.
    if !fits_here(text, hit, hit_end, i) {
        return None;
    }
    let from = hit.saturating_sub(512);
    let line_start = text[from..hit]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(from, |p| from + p + 1);
    let cmd_end = command_end(text, hit_end);
    let before = &text[line_start.saturating_sub(BEFORE)..line_start];
    if !names_a_secret(&text[line_start..cmd_end], before, i) {
        return None;
    }
    if kind == Printed::Random && contains_ci(&text[line_start..cmd_end], b"wg pubkey") {
        kind = Printed::RandomOnce;
    }
    // A key file's digits said in words on the same line ("master.key is
    // X"), or written into it (`echo 'X' > config/master.key`, a patch's
    // `*** Add File: config/master.key` or `+++ b/config/master.key` and
    // its added line).
    let patched = contains_ci(&text[line_start..hit], b"add file: ")
        || contains_ci(&text[line_start..hit], b"+++ ");
    if let Printed::Hex(n) = kind
        && (hex_word(text, hit_end, cmd_end, n, out)
            || (contains_ci(&text[line_start..hit], b"echo ")
                && hex_word(text, line_start, hit, n, out))
            || (patched && hex_word(text, cmd_end, text.len().min(cmd_end + 160), n, out)))
    {
        return Some(kind);
    }
    // A command inside a JSON record: its output is the value of an output
    // field of the same record, if it has one (a call's id is not output).
    // A command echoed at the head of its own output (`"$ cat key\nX"`)
    // ends at an escaped line break: the output follows in the same string.
    let escaped_break = text.get(cmd_end) == Some(&b'\\')
        && matches!(super::lex::escape_at(text, cmd_end), Some((b'n' | b'r', _)));
    let (from, to) = if escaped_break {
        (cmd_end, text.len().min(cmd_end + WINDOW))
    } else if matches!(text.get(cmd_end), Some(b'"' | b'\\')) {
        let value = output_field(text, cmd_end)?;
        (value, string_end(text, value))
    } else {
        (cmd_end, text.len().min(cmd_end + WINDOW))
    };
    output_secret(text, from, to, kind, out).then_some(kind)
}

/// The first word of exactly `n` hex digits in `from..to`, taken.
fn hex_word(text: &[u8], from: usize, to: usize, n: usize, out: &mut Vec<Finding>) -> bool {
    let mut i = from;
    while i < to {
        let end = run(text, i, to - i, |b| b.is_ascii_alphanumeric());
        if end == i {
            i += 1;
            continue;
        }
        if end - i == n && is_hex(&text[i..end]) {
            out.push(Finding {
                rule: "printed_secret",
                start: i,
                end,
            });
            return true;
        }
        i = end;
    }
    false
}

/// The end of the JSON string that opens (after blanks) at `from`: the next
/// quote escaped as deeply as the opening one (the output goes no further).
fn string_end(text: &[u8], from: usize) -> usize {
    let limit = text.len().min(from + FIELD_WINDOW);
    let slashes = run(text, from, 8, |b| b == b' ' || b == b'\t');
    let open = run(text, slashes, 8, |b| b == b'\\');
    if text.get(open) != Some(&b'"') {
        return limit;
    }
    let depth = open - slashes;
    let mut i = open + 1;
    while i < limit {
        if text[i] == b'"' && super::lex::backslashes_before(text, i) == depth {
            return i - depth;
        }
        i += 1;
    }
    limit
}

/// Where the value of the first output field (`"output":`, `"stdout":`,
/// `"aggregated_output":`, `"content":`, `"result":`) after `from` starts.
fn output_field(text: &[u8], from: usize) -> Option<usize> {
    let to = text.len().min(from + FIELD_WINDOW);
    let mut tool_result = false;
    let mut i = from;
    while i < to {
        let key_end = run(text, i, to - i, |b| b.is_ascii_alphanumeric() || b == b'_');
        if key_end == i {
            i += 1;
            continue;
        }
        let key = &text[i..key_end];
        tool_result |= key == b"tool_result";
        // A key, not a value (`"type":"function_call_output"`): `":` follows.
        let quote_end = run(text, key_end, 3, |b| b == b'"' || b == b'\\');
        let colon = skip_blanks(text, quote_end);
        if quote_end > key_end && text.get(colon) == Some(&b':') {
            let value = skip_blanks(text, colon + 1);
            let string = matches!(text.get(value), Some(b'"' | b'\\'));
            // Claude Code's `tool_result` holds the output as its `content`
            // (or a `text` part); `content` as an array is the message's.
            let output = key.ends_with(b"output")
                || key == b"stdout"
                || (string && matches!(key, b"content" | b"result"))
                || (string && tool_result && key == b"text");
            if output {
                return Some(colon + 1);
            }
        }
        i = key_end;
    }
    None
}

/// For a command and its output held apart (a tool call): the secret the
/// command printed, as spans of `output`.
pub(super) fn in_output(command: &[u8], output: &[u8], out: &mut Vec<Finding>) {
    let lower = command.to_ascii_lowercase();
    for (i, (trigger, kind)) in TRIGGERS.iter().enumerate() {
        if let Some(at) = find(&lower, trigger.as_bytes())
            && fits_here(command, at, at + trigger.len(), i)
            && names_a_secret(command, b"", i)
        {
            output_secret(output, 0, output.len().min(WINDOW), *kind, out);
            return;
        }
    }
}

/// Conditions on the bytes around the trigger at `hit..hit_end`.
fn fits_here(text: &[u8], hit: usize, hit_end: usize, i: usize) -> bool {
    let (trigger, _) = TRIGGERS[i];
    match trigger {
        // `pass <name>` only as the command itself, not `pass the tests`.
        "pass " => {
            let before = run_back(text, hit, 16, |b| b == b' ' || b == b'\t');
            before == 0
                || matches!(
                    text[before - 1],
                    b'"' | b'$' | b'>' | b';' | b'&' | b'|' | b'\n'
                )
        }
        // The field `jq` prints must be a secret's (`.apikey`, `.IAMToken`).
        "jq ." | "jq -r ." | "> var." | "> nonsensitive(var." | "output -raw " => {
            names_a_secret_at(text, hit_end)
        }
        "cat " => {
            let path_end = run(text, hit_end, 256, |b| {
                !b.is_ascii_whitespace() && b != b';'
            });
            let next = skip_blanks(text, path_end);
            // One file, and nothing piped after it.
            names_secret_file(&text[hit_end..path_end])
                && !matches!(text.get(next), Some(b'|' | b'&' | b'>'))
        }
        // The variable printed must be a secret's.
        "printenv " | "echo $" | "echo \"$" | "echo \\" => {
            let start = run(text, hit_end, 8, |b| {
                matches!(b, b'{' | b'$' | b'\'' | b'"' | b'\\')
            });
            if trigger == "echo \\" && text.get(start.wrapping_sub(1)) != Some(&b'$') {
                return false;
            }
            names_a_secret_at(text, start)
        }
        _ => true,
    }
}

/// Whether a file's path names a file that holds one secret: its name
/// (`privatekey`, `initialAdminPassword`, `.vault_pass.txt`, `api_token`)
/// names a secret and it has no extension or a plain one (`.txt`, `.key`).
/// A public key's file (`publickey`, `id_ed25519.pub`) does not.
pub(super) fn names_secret_file(path: &[u8]) -> bool {
    let path = path.strip_suffix(b"\"").unwrap_or(path);
    let name = path.rsplit(|&b| b == b'/').next().unwrap_or(path);
    let name = name.strip_prefix(b".").unwrap_or(name);
    let (stem, ext) = match name.iter().position(|&b| b == b'.') {
        Some(dot) => (&name[..dot], &name[dot + 1..]),
        None => (name, &name[name.len()..]),
    };
    let plain_ext = ["", "txt", "key", "pass", "token", "secret"]
        .iter()
        .any(|e| ext.eq_ignore_ascii_case(e.as_bytes()));
    let lower = stem.to_ascii_lowercase();
    let has = |k: &[u8]| lower.windows(k.len()).any(|w| w == k);
    plain_ext
        && !stem.is_empty()
        && !has(b"pub")
        && (super::generic::classify(stem).is_some()
            || [
                &b"privatekey"[..],
                b"private_key",
                b"private-key",
                b"privkey",
            ]
            .iter()
            .any(|k| has(k)))
}

/// Whether the identifier starting at `start` (`DB_PASSWORD`, `apikey`) is
/// a secret's name.
fn names_a_secret_at(text: &[u8], start: usize) -> bool {
    let end = run(text, start, 64, |b| b.is_ascii_alphanumeric() || b == b'_');
    end > start && super::generic::classify(&text[start..end]).is_some()
}

/// Extra conditions some triggers have on their command line (and on the
/// text `before` it).
fn names_a_secret(line: &[u8], before: &[u8], i: usize) -> bool {
    let (trigger, _) = TRIGGERS[i];
    match trigger {
        "credentials/" => contains_ci(line, b".key"),
        "keys list" => contains_ci(line, b"az "),
        // `cat /etc/wireguard/wg0.key` (a PEM key is its own rule; a
        // `wg0.conf`'s `PrivateKey =` is an assignment, its peers' keys public).
        "wireguard/" => contains_ci(line, b"cat ") && !contains_ci(line, b".conf"),
        // Also of a value a command before it fetched from a secret
        // (`kubectl get secret … -o jsonpath=…`, then `echo X | base64 -d`).
        "base64 -d" | "base64 --decode" => {
            contains_ci(line, b"secret") || contains_ci(before, b"get secret")
        }
        "field=" => contains_ci(line, b"vault "),
        "auth token" => contains_ci(line, b"gh auth token"),
        "op item get" => contains_ci(line, b"--reveal"),
        "versions access" => contains_ci(line, b"secrets"),
        "get-secret-value" => contains_ci(line, b"text"),
        "keyvault secret show" => contains_ci(line, b"value"),
        "secrets get" => contains_ci(line, b"--plain"),
        t if t.starts_with("jsonpath=") => contains_ci(line, b"secret"),
        // `aws configure get aws_secret_access_key` (not `region`).
        "configure get" => contains_ci(line, b"secret") || contains_ci(line, b"token"),
        "get-parameter" => contains_ci(line, b"decryption") && contains_ci(line, b"text"),
        _ => true,
    }
}

/// A byte that separates output tokens: blanks, quotes and escapes (a
/// generated secret may hold any other punctuation).
fn separates(b: u8) -> bool {
    b.is_ascii_whitespace() || matches!(b, b'"' | b'`' | b'\\')
}

/// JSON punctuation around a token (`:`, `,`, `{`, `[`…), not part of it.
fn structural(b: u8) -> bool {
    matches!(b, b',' | b':' | b'{' | b'}' | b'[' | b']')
}

/// The first token after `from` with the shape `kind` expects, skipping
/// labels (`Output:`, JSON keys); a shell prompt ends the search. Returns
/// whether the text ended before any token of output.
pub(super) fn output_secret(
    text: &[u8],
    from: usize,
    to: usize,
    kind: Printed,
    out: &mut Vec<Finding>,
) -> bool {
    // Codex's tool output: `Exit code: 0\nWall time: …\nOutput:\n<output>`.
    let from = find(&text[from..to], b"Output:").map_or(from, |p| from + p + 7);
    let mut i = from;
    let mut seen = 0;
    let mut message_lines = 0;
    let mut taken = false;
    while i < to && seen < MAX_TOKENS {
        // Escapes inside a JSON string (`\n`, `\"`) separate tokens too.
        if text[i] == b'\\' {
            i += 2;
            continue;
        }
        if separates(text[i]) {
            i += 1;
            continue;
        }
        // A token that starts in the window may run past it (an ECR
        // password is some 1,600 characters).
        let run_end = run(text, i, text.len().min(i + LONGEST_TOKEN) - i, |b| {
            !separates(b)
        });
        let start = run(text, i, run_end - i, structural);
        let end = start
            + text[start..run_end]
                .iter()
                .rposition(|&b| !structural(b))
                .map_or(0, |p| p + 1);
        let token = &text[start..end];
        // A label (`Output:`, a JSON key, also escaped: `output\":`).
        let next = skip_blanks(text, run(text, run_end, 4, |b| b == b'"' || b == b'\\'));
        let label = text[end..run_end].contains(&b':') || text.get(next) == Some(&b':');
        // A prompt (`$`, `bash-5.2$`, `dev@box:~/app$`, `%`, `❯`): the output is
        // over. The marker: it was redacted already.
        // A PEM block is the key rule's (a certificate is public).
        if is_prompt(token) || token == b"REDACTED_SECRET" || token.starts_with(b"-----BEGIN") {
            return false;
        }
        // Bullets and tree lines of a terminal transcript (`•`, `└`, `⎿`).
        if !token.iter().any(u8::is_ascii_alphanumeric) {
            i = run_end;
            continue;
        }
        // A generated value printed once or in a loop ends where the
        // output moves on to labelled fields (`job_id: …`).
        if label && taken && matches!(kind, Printed::Random | Printed::RandomOrUuid) {
            return false;
        }
        if !label {
            seen += 1;
            let alone = alone_on_its_line(text, run_end);
            // After a status line (`Connecting to … complete`), a plain word
            // is not taken for a password: it needs a digit or a symbol.
            let plain = token.iter().all(u8::is_ascii_alphabetic);
            if shaped(token, kind) && alone && !(message_lines > 0 && plain) {
                out.push(Finding {
                    rule: "printed_secret",
                    start,
                    end,
                });
                taken = true;
                // A generated value may come several times (a loop); a
                // password once, and a key pair's private half.
                if matches!(kind, Printed::Password | Printed::RandomOnce) {
                    return false;
                }
                i = run_end;
                continue;
            }
            if kind == Printed::Password {
                if alone || message_lines == 2 {
                    return false;
                }
                // A message line before the value: on to the next line.
                message_lines += 1;
                i = skip_line(text, run_end, to);
                continue;
            }
        }
        i = run_end;
    }
    seen == 0 && i >= text.len()
}

/// A CLI's warning line before what it prints (Heroku's `›   Warning: …`,
/// `WARNING: …`): the output is still to come.
pub(super) fn is_warning_line(line: &[u8]) -> bool {
    let rest = line.trim_ascii_start();
    let rest = rest
        .strip_prefix("›".as_bytes())
        .unwrap_or(rest)
        .trim_ascii_start();
    rest.len() >= 8 && rest[..8].eq_ignore_ascii_case(b"warning:")
}

/// A shell prompt: `$`, `%`, `❯`, or `…$` / `…#` after a user, host or
/// shell name (`dev@box:~/app$`, `bash-5.2$`); a password may end in `$`.
fn is_prompt(token: &[u8]) -> bool {
    matches!(token, b"$" | b"#" | b">" | b"%")
        || token == "❯".as_bytes()
        || (matches!(token.last(), Some(b'$' | b'#'))
            && (token.contains(&b'@')
                || token.contains(&b':')
                || token.starts_with(b"bash")
                || token.starts_with(b"sh-")))
}

/// Past the end of the line holding `i` (a real or escaped line break).
fn skip_line(text: &[u8], i: usize, to: usize) -> usize {
    let mut j = i;
    while j < to {
        match text[j] {
            b'\n' => return j + 1,
            b'\\' if text.get(j + 1) == Some(&b'n') => return j + 2,
            _ => j += 1,
        }
    }
    to
}

/// Whether the token ending at `from` ends its line or its string (a printed
/// secret stands alone; `Error from server` is a message).
fn alone_on_its_line(text: &[u8], from: usize) -> bool {
    let k = run(text, from, 64, |b| b == b' ' || b == b'\t' || b == b'\r');
    match (text.get(k), text.get(k + 1)) {
        (None, _) | (Some(b'\n' | b'"'), _) => true,
        (Some(b'\\'), Some(b'n' | b'r' | b'"' | b'\\')) => true,
        (Some(b), _) => structural(*b),
    }
}

fn shaped(token: &[u8], kind: Printed) -> bool {
    if is_harmless(token) && !(kind == Printed::RandomOrUuid && is_uuid(token)) {
        return false;
    }
    match kind {
        Printed::Hex(n) => token.len() == n && is_hex(token),
        Printed::Random | Printed::RandomOnce => token.len() >= 16 && looks_random(token),
        Printed::RandomOrUuid => is_uuid(token) || (token.len() >= 16 && looks_random(token)),
        Printed::Password => looks_like_password(token),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn red(text: &str) -> Vec<&str> {
        let lower = text.to_ascii_lowercase();
        let mut out = Vec::new();
        for (i, (t, _)) in TRIGGERS.iter().enumerate() {
            if let Some(p) = lower.find(t) {
                after_command(text.as_bytes(), p, p + t.len(), i, &mut out);
            }
        }
        let mut spans: Vec<&str> = out.iter().map(|f| &text[f.start..f.end]).collect();
        spans.dedup();
        spans
    }

    #[test]
    fn a_key_pairs_public_half_stays() {
        let private = "jUtNusgIxY6ez8fto6clumikkRGL7kGxVRX1ZVWDaWY=";
        let public = "gBsNz7lNsYgYngBqcWMX48VEmieMShCw+h56laH+CBE=";
        let t = format!(
            "$ wg genkey | tee priv | wg pubkey > pub; cat priv pub\n{private}\n{public}\n"
        );
        assert_eq!(red(&t), [private]);
        // Without `wg pubkey`, each generated key goes.
        let t = format!("$ for i in 1 2; do wg genkey; done\n{private}\n{public}\n");
        assert_eq!(red(&t), [private, public]);
    }

    #[test]
    fn key_files_written_by_a_patch() {
        let key = "7c3e9a1f5b2d4c6e8a0f1b3d5e7c9a2f";
        assert_eq!(
            red(&format!(
                r#"{{"name":"apply_patch","arguments":"*** Begin Patch\n*** Add File: config/master.key\n+{key}\n*** End Patch"}}"#
            )),
            [key]
        );
        assert_eq!(
            red(&format!("+++ b/config/master.key\n@@ -0,0 +1 @@\n+{key}\n")),
            [key]
        );
    }

    #[test]
    fn heroku_tokens_are_taken_after_a_warning() {
        let uuid = "e4f5a6b7-c8d9-4e0f-a1b2-c3d4e5f6a7b8";
        assert_eq!(
            red(&format!(
                "$ heroku auth:token\n ›   Warning: token will expire today\n{uuid}\n$ ls"
            )),
            [uuid]
        );
        // A UUID other commands print is an id.
        assert!(red(&format!("$ heroku apps:info\nId: {uuid}\n")).is_empty());
    }

    #[test]
    fn printed_keys_and_passwords() {
        assert_eq!(
            red("$ cat config/master.key\n9f3c2a1b8e7d6c5b4a39281706f5e4d3\n$ ls"),
            ["9f3c2a1b8e7d6c5b4a39281706f5e4d3"]
        );
        assert_eq!(
            red(
                r#"{"cmd":"cat config/credentials/production.key","output":"0f3c2a1b8e7d6c5b4a39281706f5e4d3\n"}"#
            ),
            ["0f3c2a1b8e7d6c5b4a39281706f5e4d3"]
        );
        assert_eq!(
            red("Exit code: 0\nWall time: 0.1 seconds\nOutput:\nk2LmQ9xZ3pR7tW1vBc4Nd5Fe6Gh7Jk8L+2LmQ9x=")
                .len(),
            0,
            "no command, nothing"
        );
        assert_eq!(
            red("$ openssl rand -base64 32\nk2LmQ9xZ3pR7tW1vBc4Nd5Fe6Gh7Jk8L+2LmQ9x="),
            ["k2LmQ9xZ3pR7tW1vBc4Nd5Fe6Gh7Jk8L+2LmQ9x="]
        );
        assert_eq!(
            red("$ op read op://dev/db/password\nHarbor42!x\n"),
            ["Harbor42!x"]
        );
        assert_eq!(red("$ printenv DB_PASSWORD\nHarbor42!x\n"), ["Harbor42!x"]);
        assert!(red("$ printenv HOME\n/home/dev\n").is_empty());
        assert!(red("$ cat config/master.key\ncat: config/master.key: No such file\n").is_empty());
        assert!(red("$ openssl rand -hex 16\n$ git log").is_empty());
        assert!(red("echo \"$DOCKER_PASSWORD\" | docker login -u ci --password-stdin").is_empty());
        let call = r#"{"type":"function_call","arguments":"{\"cmd\":\"openssl rand -hex 32 > .secret\"}","call_id":"call_LI0QjvAMA23ZI5xHyERfgy1w"}"#;
        assert!(red(call).is_empty(), "a call's id is not its output");
        assert_eq!(
            red(
                r#"{"command":["bash","-lc","python -c 'print(get_random_secret_key())'"],"aggregated_output":"&_wvru&$w+ku*w11sm+)yp&cx!h!j^x\n"}"#
            ),
            ["&_wvru&$w+ku*w11sm+)yp&cx!h!j^x"]
        );
        assert_eq!(
            red("$ echo \"$API_TOKEN\"\nk2LmQ9xZ3pR7tW1vBc4N"),
            ["k2LmQ9xZ3pR7tW1vBc4N"]
        );
    }

    #[test]
    fn a_stored_vault_token_and_a_kubernetes_secret_value() {
        assert_eq!(
            red("$ cat ~/.vault-token\ns.Qm7RkT2vX9pL4wN8bY6cJ1dF\n$ vault status"),
            ["s.Qm7RkT2vX9pL4wN8bY6cJ1dF"]
        );
        let k8s = "$ kubectl get secret grafana -o jsonpath=\"{.data.admin-password}\"\nTytwelQ9dzByaUxB\n";
        assert_eq!(red(k8s), ["TytwelQ9dzByaUxB"]);
        // A ConfigMap's data is not a secret.
        let config = "$ kubectl get configmap app -o jsonpath='{.data.mode}'\nZXhwZXJpbWVudGFs\n";
        assert!(red(config).is_empty());
    }

    #[test]
    fn a_tool_calls_output() {
        let mut out = Vec::new();
        in_output(
            b"cat config/master.key",
            b"9f3c2a1b8e7d6c5b4a39281706f5e4d3\n",
            &mut out,
        );
        assert_eq!((out[0].start, out[0].end), (0, 32));
        out.clear();
        in_output(
            b"cat README.md",
            b"9f3c2a1b8e7d6c5b4a39281706f5e4d3\n",
            &mut out,
        );
        assert!(out.is_empty());
    }
}
