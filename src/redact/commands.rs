//! Passwords and tokens passed to well-known commands as short flags or
//! arguments, which the secret-name rule cannot see: `docker login -p X`
//! (any `… login`), `mysql -pX`, `sshpass -p X`, `redis-cli -a X`,
//! `mongosh -p X`, `curl -u user:X` / `-b 'session=X'`, `ldapsearch -w X`,
//! `sqlcmd -P X`, `htpasswd -b file user X`, `smbclient -U user%X`,
//! `zip -P X` / `7z -pX`, `sqlplus user/X@db`, `ngrok config add-authtoken X`,
//! `gh secret set NAME --body X`, `fly secrets set NAME=X`, `lftp -u user,X`,
//! `xfreerdp /p:X`, `snyk auth X`, `vault login X`, `setx NAME X`.

use super::Finding;
use super::entropy::{is_hex, looks_like_password, looks_random};
use super::lex::{alnum, command_end, ends_word, run, run_back, starts_word};
use super::placeholders::is_harmless;

/// The command whose name was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Cmd {
    /// `docker login`, `podman login`, `helm registry login`, `oc login`…: `-p X`.
    Login,
    /// `mysql`, `mysqldump`, `mysqladmin`: `-pX` (attached).
    Mysql,
    /// `sshpass -p X`.
    Sshpass,
    /// `redis-cli -a X`.
    Redis,
    /// `mongo`, `mongosh`, `mongodump`: `-p X`.
    Mongo,
    /// `curl -u user:X`, `--user user:X`, `-U` / `--proxy-user`, `-b` / `--cookie`.
    Curl,
    /// `ldapsearch`, `ldapadd`, `ldapmodify`…: `-w X`.
    Ldap,
    /// `sqlcmd -P X`, `bcp … -P X`.
    Sqlcmd,
    /// `htpasswd -b[c] file user X`, `htpasswd -nb user X`.
    Htpasswd,
    /// `smbclient -U user%X`.
    Smb,
    /// `zip -P X`, `unzip -P X`, `7z -pX`.
    Zip,
    /// `sqlplus`, `expdp`, `impdp`, `rman`, `sqlldr`: `user/X@db`.
    Oracle,
    /// `rclone config create … user U pass X`.
    Rclone,
    /// `ngrok authtoken X`, `ngrok config add-authtoken X` (and `add-api-key`).
    Ngrok,
    /// `cloudflared service install X` (a tunnel's token).
    Cloudflared,
    /// `gh secret set N --body X`, `fly secrets set N=X`, `heroku config:set N=X`,
    /// `netlify env:set N X`.
    SecretSet,
    /// `openssl enc … -k X`, `-pass pass:X` (also `-passin`, `-passout`).
    Openssl,
    /// `rabbitmqctl add_user N X`, `rabbitmqctl change_password N X`.
    Rabbitmq,
    /// `codecov … -t X` (the token is a UUID).
    Codecov,
    /// PuTTY's `plink`, `pscp`, `psftp`: `-pw X`.
    Putty,
    /// MinIO's `mc alias set NAME URL ACCESS SECRET` (and `mc config host add`).
    MinioAlias,
    /// `grafana-cli admin reset-admin-password X`.
    ResetPassword,
    /// `caddy hash-password --plaintext X`.
    HashPassword,
    /// Dell iDRAC's `racadm -r host -u root -p X`.
    Racadm,
    /// Minecraft RCON clients: `mcrcon -p X`, `rcon-cli --password X`.
    Rcon,
    /// `bin/magento setup:install … --key=X` (the store's encryption key).
    MagentoSetup,
    /// net-snmp's `createUser NAME SHA X AES Y` (snmpd.conf).
    SnmpUser,
    /// `steamcmd +login USER X`.
    SteamLogin,
    /// PowerShell's `ConvertTo-SecureString "X" -AsPlainText`.
    SecureString,
    /// `lftp -u user,X`.
    Lftp,
    /// `xfreerdp /p:X` (any FreeRDP client), `rdesktop -p X`.
    Rdp,
    /// `snyk auth X` (the token is a UUID).
    Snyk,
    /// `vault login X`, `vault login token=X`, `vault operator unseal X`.
    VaultLogin,
    /// Windows' `setx NAME X`, Apache's and csh's `setenv NAME X`, nginx's
    /// `proxy_set_header NAME X`, jq's `--arg NAME X`: the value, when the
    /// name is a secret's.
    Setx,
    /// `cqlsh -p X`, Neo4j's `cypher-shell -p X`.
    Cqlsh,
    /// Sysinternals' `psexec \\host -u user -p X`.
    Psexec,
    /// `ipmitool … -P X`.
    Ipmi,
    /// `snmpwalk -A X -X Y` (v3 auth and privacy passphrases), `-c X` (v2c community).
    Snmp,
    /// HTTPie's `http -a user:X` / `--auth user:X`.
    Httpie,
    /// `mosquitto_pub` / `mosquitto_sub -P X`.
    Mosquitto,
    /// `ssh-keygen -N X` (the new passphrase), `-P X` (the old one).
    SshKeygen,
    /// Windows' `net use Z: \\host\share /user:DOMAIN\name X`.
    NetUse,
    /// Windows' `net user NAME X /add`: the password after the name.
    NetUser,
    /// Poetry's `poetry config http-basic.REPO USER X`.
    HttpBasic,
}

/// Whether the command at `hit` starts its line, or follows a prompt
/// (`C:\> `, `PS C:\repo> `, `$ `, `# `) or a shell operator (`&& `, `; `).
fn at_command_position(text: &[u8], hit: usize) -> bool {
    let start = super::lex::line_start(text, hit, 256);
    let before = text[start..hit].trim_ascii_end();
    before.is_empty()
        || before.ends_with(b">")
        || before.ends_with(b"$")
        || before.ends_with(b"#")
        || before.ends_with(b"&&")
        || before.ends_with(b";")
        || before.ends_with(b"\"")
}

/// The arguments on the rest of the line: `(start, end)` of each, quotes removed.
fn args(text: &[u8], from: usize, to: usize) -> Vec<(usize, usize)> {
    use super::lex::{NESTED_QUOTE, nested_single_quoted};
    let mut out = Vec::new();
    let mut i = from;
    while i < to {
        i = run(text, i, to - i, |b| b == b' ' || b == b'\t');
        if i >= to {
            break;
        }
        // `'\''X'\''`: a quoted argument inside a single-quoted command.
        if let Some(v) = nested_single_quoted(text, i).filter(|v| v.end + NESTED_QUOTE.len() <= to)
        {
            out.push((v.start, v.end));
            i = v.end + NESTED_QUOTE.len();
            continue;
        }
        let slashes = run(text, i, to - i, |b| b == b'\\') - i;
        let q = text.get(i + slashes).copied();
        if matches!(q, Some(b'"' | b'\'')) {
            let start = i + slashes + 1;
            let close = run(text, start, to - start, |b| Some(b) != q);
            // A quote escaped inside a JSON string closes with `\"`.
            let mut end = close;
            while end > start && text[end - 1] == b'\\' {
                end -= 1;
            }
            out.push((start, end));
            i = (close + 1).min(to);
        } else {
            // A bare argument ends at a blank or where a quote (escaped or
            // not) closes the string that holds the command.
            // A lone backslash is an escape, not an argument.
            if text[i] == b'\\' {
                i += 1;
                continue;
            }
            let bare = |from: usize| {
                run(text, from, to - from, |b| {
                    !matches!(b, b' ' | b'\t' | b'"' | b'\\')
                })
            };
            let mut end = bare(i + 1);
            // `user:'\''X'\''`: a nested quoted part belongs to the argument.
            while let Some(v) =
                nested_single_quoted(text, end - 1).filter(|v| v.end + NESTED_QUOTE.len() <= to)
            {
                end = bare(v.end + NESTED_QUOTE.len());
            }
            // A shell operator ends the command's arguments.
            if matches!(
                &text[i..end],
                b"|" | b"||" | b"&&" | b";" | b">" | b">>" | b"<" | b"2>" | b"&>"
            ) {
                break;
            }
            out.push((i, end));
            i = end;
        }
    }
    out
}

/// `-su`, `-ksu`: short flags run together, the last of which is `flag`.
fn short_cluster_ending_in(a: &[u8], flag: u8) -> bool {
    a.len() > 2
        && a[0] == b'-'
        && a[1] != b'-'
        && a.last() == Some(&flag)
        && a[1..].iter().all(u8::is_ascii_alphabetic)
}

/// When the command's name at `name_end` closes a quoted string followed by
/// a comma, the arguments are the quoted strings of that list.
fn argv_list(text: &[u8], name_end: usize, to: usize) -> Option<Vec<(usize, usize)>> {
    let slashes = run(text, name_end, 4, |b| b == b'\\');
    let quote = *text.get(slashes).filter(|&&q| q == b'"' || q == b'\'')?;
    let mut i = super::lex::skip_blanks(text, slashes + 1);
    if text.get(i) != Some(&b',') {
        return None;
    }
    let mut out = Vec::new();
    while text.get(i) == Some(&b',') {
        i = super::lex::skip_blanks(text, i + 1);
        // `execFileSync('curl', ['-u', …])`: the arguments in their own list.
        if out.is_empty() && text.get(i) == Some(&b'[') {
            i = super::lex::skip_blanks(text, i + 1);
        }
        let open = run(text, i, 4, |b| b == b'\\');
        if text.get(open) != Some(&quote) || open >= to {
            break;
        }
        let start = open + 1;
        let mut close = run(text, start, to - start, |b| b != quote);
        let end = run_back(text, close, 4, |b| b == b'\\');
        out.push((start, end));
        close += 1;
        i = super::lex::skip_blanks(text, close.min(to));
    }
    Some(out)
}

/// `start..end` without surrounding quotes (plain or backslash-escaped).
fn unquoted(text: &[u8], mut start: usize, mut end: usize) -> (usize, usize) {
    while start < end && matches!(text[start], b'"' | b'\'' | b'\\') {
        start += 1;
    }
    while end > start && matches!(text[end - 1], b'"' | b'\'' | b'\\') {
        end -= 1;
    }
    (start, end)
}

/// Whether `v` is the next flag (`-p --authenticationDatabase`: no value).
fn is_flag(v: &[u8]) -> bool {
    v.starts_with(b"--") || (v.len() == 2 && v[0] == b'-' && v[1].is_ascii_alphabetic())
}

fn push(text: &[u8], start: usize, end: usize, out: &mut Vec<Finding>) {
    let (start, end) = unquoted(text, start, end);
    let v = &text[start..end];
    if !is_harmless(v) && !is_flag(v) && looks_like_password(v) {
        out.push(Finding {
            rule: "cli_password",
            start,
            end,
        });
    }
}

/// The part of argument `start..end` after its first `sep` (`user:X`,
/// `user,X`, `user%X`), as [`push`] takes a password.
fn push_after(text: &[u8], start: usize, end: usize, sep: u8, out: &mut Vec<Finding>) {
    if let Some(c) = text[start..end].iter().position(|&b| b == sep) {
        push(text, start + c + 1, end, out);
    }
}

/// A token that is a UUID (`codecov -t X`, `snyk auth X`): taken whole when
/// it has a UUID's length or more, which elsewhere would be an id.
fn push_uuid_token(next: Option<(usize, usize)>, out: &mut Vec<Finding>) {
    if let Some((s, e)) = next.filter(|&(s, e)| e - s >= 32) {
        out.push(Finding {
            rule: "cli_token",
            start: s,
            end: e,
        });
    }
}

/// Like [`push`] for a generated token (which must look random).
fn push_token(text: &[u8], start: usize, end: usize, out: &mut Vec<Finding>) {
    let (start, end) = unquoted(text, start, end);
    let v = &text[start..end];
    if !is_harmless(v) && looks_random(v) {
        out.push(Finding {
            rule: "cli_token",
            start,
            end,
        });
    }
}

/// `NAME=VALUE`: the value, when the name is a secret's or the value looks generated.
fn push_setting(text: &[u8], start: usize, end: usize, out: &mut Vec<Finding>) {
    let Some(eq) = text[start..end].iter().position(|&b| b == b'=') else {
        return;
    };
    let (v_start, v_end) = unquoted(text, start + eq + 1, end);
    let (name, value) = (&text[start..start + eq], &text[v_start..v_end]);
    if super::generic::classify(name).is_some() || looks_random(value) {
        push(text, v_start, v_end, out);
    }
}

/// `echo X | docker login --password-stdin`, `echo X | sudo -S …`: the value
/// piped into the command at `hit` (`--password-stdin` or `sudo -S`) on its
/// line.
pub(super) fn piped_password(text: &[u8], hit: usize, out: &mut Vec<Finding>) {
    if text[hit..].starts_with(b"sudo -s") {
        return;
    }
    let from = super::lex::line_start(text, hit, 512);
    let line = &text[from..hit];
    let Some(pipe) = line.iter().rposition(|&b| b == b'|') else {
        return;
    };
    // `cat <<< 'X' | … --password-stdin`: a here-string's word.
    if let Some(at) = super::lex::find(&line[..pipe], b"<<<") {
        if let Some(&(s, e)) = args(text, from + at + 3, from + pipe).first() {
            push(text, s, e, out);
        }
        return;
    }
    let Some(echo) = ["echo ", "printf "]
        .iter()
        .filter_map(|w| super::lex::find(&line[..pipe], w.as_bytes()))
        .max()
    else {
        return;
    };
    let list = args(text, from + echo, from + pipe);
    // The name, then flags (`-n`) or a format (`'%s\n'`); the value is last.
    if let [_, .., (s, e)] = list[..]
        && !is_flag(&text[s..e])
        && !text[s..e].contains(&b'%')
    {
        push(text, s, e, out);
    }
}

/// `new NetworkCredential("user", "X"[, "domain"])` (keyword ending at
/// `hit_end`, after the `(`): the second string literal.
pub(super) fn network_credential(text: &[u8], hit_end: usize, out: &mut Vec<Finding>) {
    use super::lex::{skip_blanks, value_at};
    let Some(user) = value_at(text, skip_blanks(text, hit_end)).filter(|v| v.quoted) else {
        return;
    };
    let close = run(text, user.end, 4, |b| b == b'\\' || b == b'"');
    let comma = skip_blanks(text, close);
    if text.get(comma) != Some(&b',') {
        return;
    }
    if let Some(v) = value_at(text, skip_blanks(text, comma + 1)).filter(|v| v.quoted) {
        push(text, v.start, v.end, out);
    }
}

/// Bundler's credentials for a gem server, `user:password`: set with
/// `bundle config set [--global] gems.example.com user:X` (keyword ends at
/// `hit_end` after `config set`) or stored as `BUNDLE_GEMS__EXAMPLE__COM:
/// "user:X"` (keyword `bundle_` at `hit`); the user stays.
pub(super) fn bundler_credential(text: &[u8], hit: usize, hit_end: usize, out: &mut Vec<Finding>) {
    use super::lex::{skip_blanks, value_at};
    let token = |from: usize| run(text, from, 256, |b| !b.is_ascii_whitespace() && b != b'"');
    let value_start = if text[hit..hit_end].eq_ignore_ascii_case(b"bundle_") {
        // The variable: the host's dots written as `__`.
        let name_end = run(text, hit_end, 128, |b| {
            b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_'
        });
        if !text[hit_end..name_end].windows(2).any(|w| w == b"__")
            || !matches!(text.get(name_end), Some(b':' | b'='))
        {
            return;
        }
        let v = skip_blanks(text, name_end + 1);
        match value_at(text, v) {
            Some(v) => v.start,
            None => return,
        }
    } else {
        let mut i = skip_blanks(text, hit_end);
        for flag in [&b"--global "[..], b"--local "] {
            if text[i..].starts_with(flag) {
                i = skip_blanks(text, i + flag.len());
            }
        }
        let host_end = token(i);
        if !text[i..host_end].contains(&b'.') {
            return;
        }
        skip_blanks(text, host_end)
    };
    let end = token(value_start);
    push_after(text, value_start, end, b':', out);
}

/// `echo 'X' > ~/.vault_pass.txt` (or `>>`, `| tee`): a literal written
/// into a file named as a secret; the keyword ends at the opening quote.
pub(super) fn echo_into_file(text: &[u8], hit_end: usize, out: &mut Vec<Finding>) {
    use super::lex::{skip_blanks, value_at};
    let Some(v) = value_at(text, hit_end - 1) else {
        return;
    };
    let mut i = skip_blanks(text, v.end + 1);
    let rest = &text[i..];
    if rest.starts_with(b">>") {
        i += 2;
    } else if rest.starts_with(b">") {
        i += 1;
    } else if rest.starts_with(b"| tee ") {
        i = skip_blanks(text, i + 6);
        if text[i..].starts_with(b"-a ") {
            i += 3;
        }
    } else {
        return;
    }
    let i = skip_blanks(text, i);
    let path_end = run(text, i, 256, |b| {
        !b.is_ascii_whitespace() && !matches!(b, b';' | b'&')
    });
    if super::printed::names_secret_file(&text[i..path_end]) {
        push(text, v.start, v.end, out);
    }
}

/// The `n`-th argument of a call (keyword ending at `hit_end`, after the
/// `(`), when it is a string literal: the secret of `jwt.sign(payload,
/// 'X')`, `jwt.encode(claims, "X", …)` and `algoliasearch('APP_ID', 'X')`
/// (second), of JDBC's `DriverManager.getConnection(url, "user", "X")`
/// and PHP's `new PDO($dsn, 'user', 'X')` (third). Arguments may span lines.
pub(super) fn argument(text: &[u8], hit_end: usize, n: usize, out: &mut Vec<Finding>) {
    use super::lex::value_at;
    // Algolia's search-only key is public by design, and said so (in a
    // comment before the call or after it on its line). A line before that
    // holds a key of its own ("search-only key: X") speaks of that key.
    let line_end = super::lex::line_end(text, hit_end, 256);
    let own_line = super::lex::line_start(text, hit_end, 256);
    let says_public = |t: &[u8]| {
        ["search-only", "search only", "public"]
            .iter()
            .any(|w| super::lex::contains_ci(t, w.as_bytes()))
    };
    let names_its_key = |t: &[u8]| {
        t.split(|b| !b.is_ascii_alphanumeric())
            .any(|w| w.len() >= 20 && looks_random(w))
    };
    let before = &text[own_line.saturating_sub(256)..own_line];
    if super::lex::contains_ci(&text[own_line.saturating_sub(256)..line_end], b"algolia")
        && (says_public(&text[own_line..line_end])
            || super::lex::lines(before).any(|l| says_public(l) && !names_its_key(l)))
    {
        return;
    }
    // The arguments before it, to their commas: brackets and quotes nest.
    let mut depth = 0usize;
    let mut quote: Option<u8> = None;
    let mut commas = 0;
    let limit = text.len().min(hit_end + 512);
    let mut i = hit_end;
    while n > 1 && i < limit {
        let b = text[i];
        match quote {
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None => match b {
                b'"' | b'\'' | b'`' => quote = Some(b),
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' if depth == 0 => return,
                b')' | b']' | b'}' => depth -= 1,
                b',' if depth == 0 => {
                    commas += 1;
                    if commas + 1 == n {
                        break;
                    }
                }
                b';' => return,
                _ => {}
            },
        }
        i += 1;
    }
    if i >= limit {
        return;
    }
    // The first argument starts at the parenthesis; a later one after its comma.
    let mut at = super::lex::skip_spacing(text, if n == 1 { hit_end } else { i + 1 });
    // Python's byte string `b'…'`.
    if text.get(at) == Some(&b'b') && matches!(text.get(at + 1), Some(b'\'' | b'"')) {
        at += 1;
    }
    let Some(v) = value_at(text, at).filter(|v| v.quoted && v.end - v.start >= 8) else {
        return;
    };
    // A generated hex secret (a GitHub OAuth app's client secret, a JWT
    // key from `openssl rand -hex 32`) is no password in shape, but it is
    // what the call takes.
    if v.end - v.start >= 32 && is_hex(&text[v.start..v.end]) {
        out.push(Finding {
            rule: "cli_token",
            start: v.start,
            end: v.end,
        });
    } else {
        push(text, v.start, v.end, out);
    }
}

/// How a password flag carries its value.
#[derive(Clone, Copy)]
enum Carries {
    /// In the next argument: `-p X`.
    Next,
    /// In the rest of the flag's own argument: `-pX`, `--body=X`.
    Attached,
}

impl Carries {
    /// Whether the argument `arg` is `flag` carrying its value this way.
    fn matches(self, arg: &[u8], flag: &[u8]) -> bool {
        match self {
            Carries::Next => arg == flag,
            Carries::Attached => arg.len() > flag.len() && arg.starts_with(flag),
        }
    }
}

/// The flags that give each command a password (or token) as is; the first
/// that matches an argument wins.
const PASSWORD_FLAGS: &[(Cmd, &[u8], Carries)] = &[
    (Cmd::Login, b"-p", Carries::Next),
    // `-p="X"` (the quotes split it from its `=`), `-p=X`.
    (Cmd::Login, b"-p=", Carries::Next),
    (Cmd::Login, b"-p=", Carries::Attached),
    (Cmd::Sshpass, b"-p", Carries::Next),
    (Cmd::Mongo, b"-p", Carries::Next),
    (Cmd::Sshpass, b"-p", Carries::Attached),
    (Cmd::Redis, b"-a", Carries::Next),
    (Cmd::Redis, b"--pass", Carries::Next),
    (Cmd::Mysql, b"-p", Carries::Attached),
    (Cmd::Ldap, b"-w", Carries::Next),
    (Cmd::Ldap, b"-w", Carries::Attached),
    (Cmd::Rclone, b"pass", Carries::Next),
    (Cmd::Rclone, b"password", Carries::Next),
    (Cmd::Rclone, b"obscure", Carries::Next),
    (Cmd::SshKeygen, b"-N", Carries::Next),
    (Cmd::SshKeygen, b"-P", Carries::Next),
    (Cmd::Sqlcmd, b"-P", Carries::Next),
    (Cmd::Zip, b"-P", Carries::Next),
    (Cmd::Zip, b"-p", Carries::Attached),
    (Cmd::SecretSet, b"--body", Carries::Next),
    (Cmd::SecretSet, b"-b", Carries::Next),
    (Cmd::SecretSet, b"--body=", Carries::Attached),
    (Cmd::SecretSet, b"-b", Carries::Attached),
    (Cmd::Openssl, b"-k", Carries::Next),
    (Cmd::Putty, b"-pw", Carries::Next),
    (Cmd::Rdp, b"/p:", Carries::Attached),
    (Cmd::Cqlsh, b"-p", Carries::Next),
    (Cmd::Mosquitto, b"-P", Carries::Next),
    (Cmd::Psexec, b"-p", Carries::Next),
    (Cmd::Racadm, b"-p", Carries::Next),
    (Cmd::Rcon, b"-p", Carries::Next),
    (Cmd::Rcon, b"--password", Carries::Next),
    (Cmd::Rcon, b"--password=", Carries::Attached),
    (Cmd::MagentoSetup, b"--key=", Carries::Attached),
    (Cmd::MagentoSetup, b"--key", Carries::Next),
    (Cmd::Ipmi, b"-P", Carries::Next),
    (Cmd::Snmp, b"-A", Carries::Next),
    (Cmd::Snmp, b"-X", Carries::Next),
    (Cmd::Snmp, b"-c", Carries::Next),
    (Cmd::Rdp, b"-p", Carries::Next),
];

/// Looks at the arguments after the command name at `hit..hit_end`.
pub(super) fn command(text: &[u8], hit: usize, hit_end: usize, cmd: Cmd, out: &mut Vec<Finding>) {
    if !starts_word(text, hit) {
        return;
    }
    let name_end = match cmd {
        // `mysqldump`, `mongosh`: the name runs on; then a blank or a quote
        // (`'mysql:host=mysql-primary…'` is a DSN, not the command).
        Cmd::Mysql | Cmd::Mongo | Cmd::Ldap => {
            let end = run(text, hit_end, 16, alnum);
            if text
                .get(end)
                .is_some_and(|&b| !matches!(b, b' ' | b'\t' | b'"' | b'\'' | b'\\' | b'\n' | b'\r'))
            {
                return;
            }
            end
        }
        // `zip -`, `7z `, `"7z"`: the keyword runs past the name, which must
        // start a word or a quoted argument.
        Cmd::Zip => {
            if text[hit] == b'7'
                && text.get(hit + 2).is_some_and(|&b| b == b'"' || b == b'\\')
                && !matches!(text.get(hit.wrapping_sub(1)), Some(b'"'))
            {
                return;
            }
            run(text, hit, 16, alnum)
        }
        // Keywords that end with their blank (`createuser `, `+login `).
        Cmd::SnmpUser | Cmd::SteamLogin => hit_end - 1,
        _ if ends_word(text, hit_end) => hit_end,
        _ => return,
    };
    // A line break (real or escaped) or the end of the JSON string holding
    // the command ends it; shell quotes do not. An argv list runs to its `]`.
    let line = run(text, name_end, 2048, |b| b != b'\n' && b != b'\r');
    // `["curl", "--user", "u:p"]`, `exec.Command("sshpass", "-p", "…")`: an argv list.
    let list = match argv_list(text, name_end, line) {
        Some(list) => list,
        None => args(text, name_end, command_end(text, name_end)),
    };
    let arg = |i: usize| &text[list[i].0..list[i].1];
    match cmd {
        Cmd::Htpasswd => return htpasswd(text, &list, out),
        Cmd::Oracle => return oracle(text, &list, out),
        // NAME URL ACCESS SECRET: the secret is the fourth word, after a URL.
        Cmd::MinioAlias => {
            if let [_, (us, ue), _, (s, e), ..] = list[..]
                && super::lex::contains(&text[us..ue], b"://")
            {
                push(text, s, e, out);
            }
            return;
        }
        // The passwords follow their protocols: `SHA X`, `AES Y`.
        Cmd::SnmpUser => {
            const PROTOCOLS: &[&[u8]] = &[
                b"MD5", b"SHA", b"SHA-224", b"SHA-256", b"SHA-384", b"SHA-512", b"DES", b"AES",
                b"AES-128", b"AES-192", b"AES-256",
            ];
            for pair in list.windows(2).skip(1) {
                if PROTOCOLS
                    .iter()
                    .any(|p| text[pair[0].0..pair[0].1].eq_ignore_ascii_case(p))
                {
                    push(text, pair[1].0, pair[1].1, out);
                }
            }
            return;
        }
        Cmd::SteamLogin => {
            if let [_, (s, e), ..] = list[..]
                && e > s
                && text[s] != b'+'
            {
                push(text, s, e, out);
            }
            return;
        }
        Cmd::ResetPassword => {
            if let Some(&(s, e)) = list.first() {
                push(text, s, e, out);
            }
            return;
        }
        // Only as a command (at a line's start or after a prompt): "the net
        // user count dropped" is prose.
        Cmd::NetUser => {
            if let [_, (s, e), ..] = list[..]
                && at_command_position(text, hit)
                && !text[s..e].starts_with(b"/")
                && &text[s..e] != b"*"
            {
                push(text, s, e, out);
            }
            return;
        }
        // `http-basic.REPO USER X`: the repository is glued to the keyword.
        Cmd::HttpBasic => {
            if let [(rs, _), _, (s, e), ..] = list[..]
                && text[rs] == b'.'
            {
                push(text, s, e, out);
            }
            return;
        }
        // The token: the first argument that is not a flag (`-method=…`).
        Cmd::VaultLogin => {
            if let Some(&(s, e)) = list.iter().find(|&&(s, e)| !text[s..e].starts_with(b"-")) {
                let s = if text[s..e].starts_with(b"token=") {
                    s + 6
                } else {
                    s
                };
                push_token(text, s, e, out);
            }
            return;
        }
        // jq's `--arg pass X` names its value too: `pass` alone counts, as
        // does a header named `Authorization`.
        Cmd::Setx => {
            if let [(ns, ne), (s, e), ..] = list[..]
                && (super::generic::classify(&text[ns..ne]).is_some()
                    || matches!(&text[ns..ne], b"pass" | b"pw")
                    || text[ns..ne].eq_ignore_ascii_case(b"authorization"))
            {
                push(text, s, e, out);
            }
            return;
        }
        Cmd::SecureString => {
            let plain = list
                .iter()
                .any(|&(s, e)| text[s..e].eq_ignore_ascii_case(b"-asplaintext"));
            if let Some(&(s, e)) = list.iter().find(|&&(s, e)| !text[s..e].starts_with(b"-"))
                && plain
            {
                push(text, s, e, out);
            }
            return;
        }
        _ => {}
    }
    for i in 0..list.len() {
        let a = arg(i);
        let next = list.get(i + 1).copied();
        if let Some(&(_, flag, carries)) = PASSWORD_FLAGS
            .iter()
            .find(|&&(c, flag, carries)| c == cmd && carries.matches(a, flag))
        {
            match carries {
                Carries::Next => {
                    if let Some((s, e)) = next {
                        push(text, s, e, out);
                    }
                }
                Carries::Attached => push(text, list[i].0 + flag.len(), list[i].1, out),
            }
            continue;
        }
        match cmd {
            // `ldappasswd` also takes the new (`-s`) and old (`-a`) passwords.
            Cmd::Ldap
                if (a == b"-s" || a == b"-a")
                    && text[hit..name_end].eq_ignore_ascii_case(b"ldappasswd") =>
            {
                if let Some((s, e)) = next {
                    push(text, s, e, out);
                }
            }
            Cmd::Smb if a == b"-U" || a.starts_with(b"--user=") => {
                let (s, e) = if a == b"-U" {
                    let Some(n) = next else { continue };
                    n
                } else {
                    (list[i].0 + 7, list[i].1)
                };
                push_after(text, s, e, b'%', out);
            }
            Cmd::Ngrok if matches!(a, b"authtoken" | b"add-authtoken" | b"add-api-key") => {
                if let Some((s, e)) = next {
                    push_token(text, s, e, out);
                }
            }
            Cmd::Cloudflared if a == b"install" => {
                if let Some((s, e)) = next {
                    push_token(text, s, e, out);
                }
            }
            Cmd::SecretSet if a.contains(&b'=') && !a.starts_with(b"-") => {
                push_setting(text, list[i].0, list[i].1, out);
            }
            Cmd::Openssl if matches!(a, b"-pass" | b"-passin" | b"-passout") => {
                if let Some((s, e)) = next.filter(|&(s, e)| text[s..e].starts_with(b"pass:")) {
                    push(text, s + 5, e, out);
                }
            }
            Cmd::Rabbitmq if matches!(a, b"add_user" | b"change_password") => {
                if let Some(&(s, e)) = list.get(i + 2) {
                    push(text, s, e, out);
                }
            }
            Cmd::Httpie if a == b"-a" || a == b"--auth" => {
                if let Some((s, e)) = next {
                    push_after(text, s, e, b':', out);
                }
            }
            // The password follows the user (`DOMAIN\name` splits into
            // pieces at the backslash: the password is the next argument
            // after a blank).
            Cmd::NetUse if a.len() > 6 && a[..6].eq_ignore_ascii_case(b"/user:") => {
                let after_blank = |&&(s, _): &&(usize, usize)| {
                    matches!(
                        text.get(s.wrapping_sub(1)),
                        Some(b' ' | b'\t' | b'"' | b'\'')
                    )
                };
                if let Some(&(s, e)) = list[i + 1..].iter().find(after_blank) {
                    push(text, s, e, out);
                }
            }
            Cmd::Lftp if a == b"-u" => {
                if let Some((s, e)) = next {
                    push_after(text, s, e, b',', out);
                }
            }
            Cmd::Snyk if a == b"auth" => push_uuid_token(next, out),
            Cmd::Codecov if matches!(a, b"-t" | b"--token") => push_uuid_token(next, out),
            Cmd::HashPassword if a == b"--plaintext" => {
                if let Some((s, e)) = next {
                    push(text, s, e, out);
                }
            }
            // `--cert client.pem:passphrase`: the key's passphrase.
            Cmd::Curl if a == b"-E" || a == b"--cert" => {
                // Not a Windows drive's colon (`C:\certs\client.pem`).
                if let Some((s, e)) = next.filter(|&(s, e)| text[s..e].get(1) != Some(&b':')) {
                    push_after(text, s, e, b':', out);
                }
            }
            Cmd::Curl if a == b"-b" || a == b"--cookie" => {
                if let Some((s, e)) = next {
                    super::http::cookie_values(text, s, e, out);
                }
            }
            Cmd::Curl
                if a == b"-u"
                    || a == b"--user"
                    || a == b"-U"
                    || a == b"--proxy-user"
                    || (a.starts_with(b"-u") && a.len() > 2)
                    || short_cluster_ending_in(a, b'u') =>
            {
                let (s, e) = if a.len() > 2 && a[1] == b'u' {
                    (list[i].0 + 2, list[i].1)
                } else if let Some(n) = next {
                    n
                } else {
                    continue;
                };
                push_after(text, s, e, b':', out);
            }
            _ => {}
        }
    }
}

/// The arguments from `from` to the end of its line.
fn line_args(text: &[u8], from: usize) -> Vec<(usize, usize)> {
    args(text, from, command_end(text, from))
}

/// `host:6379> AUTH [user] password` (keyword `> auth ` ending at `hit_end`):
/// the last argument.
pub(super) fn redis_auth(text: &[u8], hit_end: usize, out: &mut Vec<Finding>) {
    let list = line_args(text, hit_end);
    if (1..=2).contains(&list.len()) {
        let (s, e) = list[list.len() - 1];
        push(text, s, e, out);
    }
}

/// `sentinel auth-pass <master> <password>` (keyword ending at `hit_end`).
pub(super) fn sentinel_auth_pass(text: &[u8], hit_end: usize, out: &mut Vec<Finding>) {
    if let [_, (s, e)] = line_args(text, hit_end)[..] {
        push(text, s, e, out);
    }
}

/// A Redis ACL rule (`user app on >password ~* +@all`): each `>password`
/// of the line (keyword `on >` at `hit`).
pub(super) fn redis_acl(text: &[u8], hit: usize, out: &mut Vec<Finding>) {
    if hit == 0 || text[hit - 1] != b' ' {
        return;
    }
    for (s, e) in line_args(text, hit) {
        if e > s + 1 && text[s] == b'>' {
            push(text, s + 1, e, out);
        }
    }
}

/// `htpasswd` with `-b`: the password is the last argument.
fn htpasswd(text: &[u8], list: &[(usize, usize)], out: &mut Vec<Finding>) {
    let batch = list.iter().any(|&(s, e)| {
        let a = &text[s..e];
        a.len() > 1 && a[0] == b'-' && a[1] != b'-' && a.contains(&b'b')
    });
    let positional: Vec<&(usize, usize)> = list
        .iter()
        .filter(|&&(s, e)| s < e && text[s] != b'-')
        .collect();
    if batch && positional.len() >= 2 {
        let &(s, e) = positional[positional.len() - 1];
        push(text, s, e, out);
    }
}

/// `sqlplus user/password@db`: the password of each login argument (read
/// to the next blank: a quoted password is part of the argument).
fn oracle(text: &[u8], list: &[(usize, usize)], out: &mut Vec<Finding>) {
    for &(s, _) in list {
        let raw_end = run(text, s, 256, |b| !b.is_ascii_whitespace());
        if let Some((ps, pe)) = super::dsn::oracle_login(text, s, raw_end) {
            push(text, ps, pe, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn red<'a>(text: &'a str, kw: &str, cmd: Cmd) -> Vec<&'a str> {
        let mut out = Vec::new();
        let p = text.find(kw).unwrap();
        command(text.as_bytes(), p, p + kw.len(), cmd, &mut out);
        out.iter().map(|f| &text[f.start..f.end]).collect()
    }

    #[test]
    fn command_passwords() {
        assert_eq!(
            red(
                "docker login -u me -p S3cr3tpw ghcr.io",
                "login",
                Cmd::Login
            ),
            ["S3cr3tpw"]
        );
        assert_eq!(
            red("mysql -u root -pS3cr3tpw shop", "mysql", Cmd::Mysql),
            ["S3cr3tpw"]
        );
        assert_eq!(
            red("mysqldump -uroot '-pS3cr3tpw' db", "mysql", Cmd::Mysql),
            ["S3cr3tpw"]
        );
        assert_eq!(
            red("sshpass -p 'S3cr3tpw' ssh host", "sshpass", Cmd::Sshpass),
            ["S3cr3tpw"]
        );
        assert_eq!(
            red("redis-cli -h r -a S3cr3tpw ping", "redis-cli", Cmd::Redis),
            ["S3cr3tpw"]
        );
        assert_eq!(
            red("mongosh -u admin -p S3cr3tpw", "mongo", Cmd::Mongo),
            ["S3cr3tpw"]
        );
        assert_eq!(
            red("curl -u admin:S3cr3tpw https://x", "curl", Cmd::Curl),
            ["S3cr3tpw"]
        );
        assert_eq!(
            red(r#"curl --user \"admin:S3cr3tpw\" x"#, "curl", Cmd::Curl),
            ["S3cr3tpw"]
        );
    }

    #[test]
    fn more_commands() {
        for (text, kw, cmd, want) in [
            (
                "ldapsearch -x -D cn=admin -w S3cr3tpw -b dc=x",
                "ldap",
                Cmd::Ldap,
                "S3cr3tpw",
            ),
            (
                "sqlcmd -S db -U sa -P 'S3cr3t!pw' -Q x",
                "sqlcmd",
                Cmd::Sqlcmd,
                "S3cr3t!pw",
            ),
            (
                "htpasswd -bc .htpasswd admin S3cr3tpw",
                "htpasswd",
                Cmd::Htpasswd,
                "S3cr3tpw",
            ),
            (
                "htpasswd -nb admin S3cr3tpw",
                "htpasswd",
                Cmd::Htpasswd,
                "S3cr3tpw",
            ),
            (
                "smbclient //fs/share -U alice%S3cr3tpw",
                "smbclient",
                Cmd::Smb,
                "S3cr3tpw",
            ),
            (
                "zip -P S3cr3tpw out.zip a.txt",
                "zip -",
                Cmd::Zip,
                "S3cr3tpw",
            ),
            ("7z a -pS3cr3tpw out.7z dir", "7z ", Cmd::Zip, "S3cr3tpw"),
            (
                "7za a -tzip -p'S3cr3tpw' out.zip dir",
                "7za ",
                Cmd::Zip,
                "S3cr3tpw",
            ),
            (
                "unzip -P S3cr3tpw -o a.zip",
                "unzip -",
                Cmd::Zip,
                "S3cr3tpw",
            ),
            (
                "sqlplus -s scott/Tiger42x@//db:1521/ORCL",
                "sqlplus",
                Cmd::Oracle,
                "Tiger42x",
            ),
            (
                "rman target sys/Tiger42x@prod",
                "rman",
                Cmd::Oracle,
                "Tiger42x",
            ),
            (
                "ngrok config add-authtoken 2Xk9ZbQ4mNp7Rt1Lc3Vw8Yh5Jd6_4FgHs2Ka9PqWe7RtYu1Io",
                "ngrok",
                Cmd::Ngrok,
                "2Xk9ZbQ4mNp7Rt1Lc3Vw8Yh5Jd6_4FgHs2Ka9PqWe7RtYu1Io",
            ),
            (
                "sudo cloudflared service install eyJhIjoiNGQ2ZjJhMTBiYjNjIiwidCI6IjdlNmYifQ==",
                "cloudflared",
                Cmd::Cloudflared,
                "eyJhIjoiNGQ2ZjJhMTBiYjNjIiwidCI6IjdlNmYifQ==",
            ),
            (
                "gh secret set NPM_TOKEN --body 'k2LmQ9xZ3pR7tW1v'",
                "secret set",
                Cmd::SecretSet,
                "k2LmQ9xZ3pR7tW1v",
            ),
            (
                "fly secrets set DB_PASSWORD=Harbor42x",
                "secrets set",
                Cmd::SecretSet,
                "Harbor42x",
            ),
            (
                "heroku config:set SIGNING=k2LmQ9xZ3pR7tW1vBc4N",
                "config:set",
                Cmd::SecretSet,
                "k2LmQ9xZ3pR7tW1vBc4N",
            ),
            (
                "curl -b 'sessionid=k2j3h4g5f6d7s8a9q0w1e2r3' https://x",
                "curl",
                Cmd::Curl,
                "k2j3h4g5f6d7s8a9q0w1e2r3",
            ),
            (
                "curl -U proxy:S3cr3tpw https://x",
                "curl",
                Cmd::Curl,
                "S3cr3tpw",
            ),
        ] {
            assert_eq!(red(text, kw, cmd), [want], "{text}");
        }
    }

    #[test]
    fn prompts_and_references_stay() {
        for (text, kw, cmd) in [
            ("sqlplus / as sysdba", "sqlplus", Cmd::Oracle),
            ("sqlplus /nolog", "sqlplus", Cmd::Oracle),
            ("htpasswd -c .htpasswd admin", "htpasswd", Cmd::Htpasswd),
            (
                "fly secrets set LOG_LEVEL=debug",
                "secrets set",
                Cmd::SecretSet,
            ),
            ("ngrok http 8080", "ngrok", Cmd::Ngrok),
            (
                "cloudflared tunnel route dns app app.example.com",
                "cloudflared",
                Cmd::Cloudflared,
            ),
            ("curl -b cookies.txt https://x", "curl", Cmd::Curl),
            ("unzip -o a.zip -d out", "unzip -", Cmd::Zip),
        ] {
            assert!(red(text, kw, cmd).is_empty(), "{text}");
        }
        assert!(red("mysql -u root -p shop", "mysql", Cmd::Mysql).is_empty());
        assert!(red("mysql -P 3306 -h db", "mysql", Cmd::Mysql).is_empty());
        assert!(red("docker login -u me --password-stdin", "login", Cmd::Login).is_empty());
        assert!(red("docker login -p \"$PASS\" x", "login", Cmd::Login).is_empty());
        assert!(red("curl -u admin https://x", "curl", Cmd::Curl).is_empty());
        assert!(red("curl -u $USER:$TOKEN https://x", "curl", Cmd::Curl).is_empty());
        assert!(red("the login page", "login", Cmd::Login).is_empty());
    }
}
