//! Secret-named assignments and flags: `OPENAI_API_KEY=…`, `"client_secret":
//! "…"`, `password: …`, `--token …`, `X-Api-Key: …`, `.netrc` passwords.
//! The name decides whether a value is looked at at all; the value must then
//! pass the shape gate of its kind, so identifiers, numbers, references and
//! placeholders stay as they are.

use super::Finding;
use super::entropy::{is_hex, is_uuid, looks_like_password, looks_random};
use super::lex::{Value, contains_ci, run, run_back, skip_blanks, value_at};
use super::placeholders::is_harmless;

/// What a name says about its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// `password`, `passwd`, `pwd`, `pass`, `passphrase`: typed by people.
    Password,
    /// `token`, `secret`, `api_key`, `credentials`…: generated.
    Secret,
    /// Just `key`: usually not a secret, so only strongly random values.
    BareKey,
    /// `auth`: docker's base64 `user:password`, `BASIC_AUTH=user:pass`.
    Auth,
}

/// Words before `key` that make it something other than a secret.
const KEY_NOT_SECRET: &[&str] = &[
    "public",
    "publishable",
    "pub",
    "primary",
    "foreign",
    "sort",
    "partition",
    "cache",
    "routing",
    "idempotency",
    "lookup",
    "hash",
    "map",
    "row",
    "shard",
    "unique",
    "composite",
    "dedup",
    "dedupe",
    "object",
    "index",
    "group",
    "hot",
    "dict",
    "entry",
    "registry",
    "gpg",
    "pgp",
    "host",
    "i18n",
    "translation",
    "message",
    "msg",
    "label",
    "table",
    "column",
    "field",
    "record",
    "node",
    "query",
    "cursor",
    "search",
    "range",
    "s3",
    "bucket",
    "item",
    "metadata",
    "property",
    "prop",
    "config",
    "setting",
    "settings",
    "state",
    "event",
    "next",
    "prev",
    "last",
    "first",
    "start",
    "end",
    "parent",
    "child",
    "short",
    "shortcut",
    "modifier",
    "toggle",
    "order",
    "join",
    "natural",
    "surrogate",
    "stream",
    "topic",
    "template",
    "locale",
    "react",
    "js",
    "ssh",
    // reCAPTCHA, hCaptcha and Turnstile site keys are public by design, as
    // is Supabase's anon key.
    "site",
    "anon",
];

/// "Password" in other languages, as a name's word (ASCII spellings:
/// `DB_PASSWORT`, `senha`, `haslo`, `sifre`, `losenord`).
const FOREIGN_PASSWORD: &[&str] = &[
    "passwort",
    "kennwort",
    "passord",
    "contrasena",
    "senha",
    "wachtwoord",
    "haslo",
    "sifre",
    "parola",
    "losenord",
    "salasana",
    "adgangskode",
    "heslo",
    "jelszo",
    "matkhau",
    "katasandi",
    "motdepasse",
];

/// "Password" in other languages written as several words of a name
/// (`mat_khau`, `kata_sandi`, `mot_de_passe`).
fn foreign_compound(ws: &[&[u8]]) -> bool {
    let n = ws.len();
    let pair = |a: &str, b: &str| n >= 2 && is(ws[n - 2], a) && is(ws[n - 1], b);
    pair("mat", "khau")
        || pair("kata", "sandi")
        || (n >= 3 && is(ws[n - 3], "mot") && is(ws[n - 2], "de") && is(ws[n - 1], "passe"))
}

/// Prefixes glued to `pass` in a password's name (`dbpass`, `smtppass`).
const GLUED_PASS: &[&str] = &[
    "db", "mysql", "pg", "sql", "smtp", "mail", "ftp", "sftp", "admin", "root", "user", "redis",
    "ldap", "app", "bind", "proxy", "vnc", "wifi",
];

/// Words before `token` that make it something other than a credential.
const TOKEN_NOT_SECRET: &[&str] = &[
    "max",
    "num",
    "total",
    "next",
    "page",
    "continuation",
    "pagination",
    "cancellation",
    "cancel",
    "eos",
    "bos",
    "pad",
    "unk",
    "sep",
    "mask",
    "cls",
    "special",
    "stop",
    "start",
    "end",
    "sync",
    "resume",
    "lexer",
    "parser",
    "last",
    "first",
    "prev",
    "previous",
    "current",
    "syntax",
    "input",
    "output",
    "prompt",
    "completion",
    "context",
    "reasoning",
    "cached",
    "design",
    "color",
    "theme",
];

/// Glued names ending in `key` that are secrets (`APIKEY`, `accountkey`).
const GLUED_KEYS: &[&str] = &[
    "apikey",
    "secretkey",
    "privatekey",
    "accesskey",
    "authkey",
    "masterkey",
    "accountkey",
    "signingkey",
    "encryptionkey",
    "licensekey",
    "clientkey",
    "appkey",
    "sharedaccesskey",
    "subscriptionkey",
    "servicekey",
    "adminkey",
    "serverkey",
    "sessionkey",
];

/// Name parts after the secret word that keep it a secret (`SECRET_KEY_BASE`,
/// `API_KEY_PROD`, `client-key-data`).
const SUFFIXES: &[&str] = &[
    "base",
    "value",
    "val",
    "b64",
    "base64",
    "hex",
    "raw",
    "data",
    "str",
    "string",
    "bytes",
    "pem",
    "prod",
    "production",
    "dev",
    "development",
    "staging",
    "stage",
    "test",
    "live",
    "local",
    "new",
    "old",
    "primary",
    "secondary",
    "enc",
    "encoded",
    "plain",
    "plaintext",
];

/// How a value was separated from its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Sep {
    /// `name=value`, `name: value`, `"name": "value"`.
    Tight,
    /// `name = value` (code style).
    Spaced,
    /// Blanks only (`--password value`).
    Blank,
}

/// A byte of a name: `[A-Za-z0-9_.-]`.
fn name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')
}

/// The last words of a name, on the stack: what a name says is in its last
/// few words (`…_API_KEY_PROD`), so earlier ones are let go when it is long.
struct Words<'a> {
    list: [&'a [u8]; Words::CAP],
    len: usize,
}

impl<'a> Words<'a> {
    const CAP: usize = 8;

    fn push(&mut self, w: &'a [u8]) {
        if self.len == Self::CAP {
            self.list.rotate_left(1);
            self.len -= 1;
        }
        self.list[self.len] = w;
        self.len += 1;
    }

    fn pop(&mut self) {
        self.len = self.len.saturating_sub(1);
    }
}

impl<'a> std::ops::Deref for Words<'a> {
    type Target = [&'a [u8]];

    fn deref(&self) -> &Self::Target {
        &self.list[..self.len]
    }
}

/// Splits a name into its words: `_ - .` separators and camelCase humps
/// (`SharedAccessKey`, `APIKey`, `client-key-data`).
fn words(name: &[u8]) -> Words<'_> {
    let mut out = Words {
        list: [&[]; Words::CAP],
        len: 0,
    };
    for part in name.split(|b| matches!(b, b'_' | b'-' | b'.')) {
        let mut start = 0;
        for i in 1..part.len() {
            let (a, b) = (part[i - 1], part[i]);
            let next_lower = part.get(i + 1).is_some_and(u8::is_ascii_lowercase);
            if (a.is_ascii_lowercase() && b.is_ascii_uppercase())
                || (a.is_ascii_uppercase() && b.is_ascii_uppercase() && next_lower)
            {
                out.push(&part[start..i]);
                start = i;
            }
        }
        if start < part.len() {
            out.push(&part[start..]);
        }
    }
    out
}

fn is(word: &[u8], w: &str) -> bool {
    word.eq_ignore_ascii_case(w.as_bytes())
}

fn ends(word: &[u8], w: &str) -> bool {
    word.len() >= w.len() && word[word.len() - w.len()..].eq_ignore_ascii_case(w.as_bytes())
}

fn any_of(word: &[u8], list: &[&str]) -> bool {
    list.iter().any(|w| is(word, w))
}

/// What `name` says about its value, if anything. A dotted property name
/// says what its longest secret-named prefix says
/// (`fs.azure.account.key.<account>.blob.core.windows.net`).
pub(super) fn classify(name: &[u8]) -> Option<Kind> {
    classify_words(name).or_else(|| {
        // Only a prefix of two parts or more that names a secret or a
        // password (`auth.py`, `public-api-auth.ts` are file names).
        name.iter()
            .enumerate()
            .rev()
            .filter(|&(_, &b)| b == b'.')
            .map(|(i, _)| &name[..i])
            .filter(|prefix| prefix.contains(&b'.'))
            .find_map(classify_words)
            .filter(|k| matches!(k, Kind::Secret | Kind::Password))
    })
}

/// What the words of `name` say about its value.
fn classify_words(name: &[u8]) -> Option<Kind> {
    let mut ws = words(name);
    while ws.len() > 1 {
        let last = ws[ws.len() - 1];
        if last.iter().all(u8::is_ascii_digit) || any_of(last, SUFFIXES) {
            ws.pop();
        } else {
            break;
        }
    }
    let last = *ws.last()?;
    let prev = ws.len().checked_sub(2).map(|i| ws[i]);
    // A search-only key (`ALGOLIA_SEARCH_ONLY_API_KEY`, `ALGOLIA_SEARCH_KEY`)
    // is public by design: the browser sends it.
    let has = |w: &str| ws.iter().any(|x| is(x, w));
    if has("search") && (has("only") || has("algolia")) && !has("admin") && !has("write") {
        return None;
    }
    // Honeycomb's ingest key travels as `X-Honeycomb-Team`.
    if is(last, "team") && prev.is_some_and(|p| is(p, "honeycomb")) {
        return Some(Kind::Secret);
    }
    // `pass` and `pw` alone are test verdicts (`--- PASS: TestX`) and
    // Python; as the last word of a compound (`DB_PASS`) they are passwords.
    if ends(last, "password")
        || ends(last, "passwd")
        || FOREIGN_PASSWORD.iter().any(|w| ends(last, w))
        || foreign_compound(&ws)
        // `$dbpass`, `SMTPPASS`: a known prefix glued to `pass`.
        || GLUED_PASS.iter().any(|p| {
            last.len() == p.len() + 4 && ends(last, "pass") && last[..p.len()].eq_ignore_ascii_case(p.as_bytes())
        })
        || ends(last, "passphrase")
        || is(last, "pwd")
        // sssd's `ldap_default_authtok`.
        || is(last, "authtok")
        // A Wi-Fi pre-shared key (`psk="…"` in wpa_supplicant.conf).
        || is(last, "psk")
        || (ws.len() > 1 && any_of(last, &["pass", "pw"]))
    {
        return Some(Kind::Password);
    }
    if ends(last, "secret")
        || any_of(
            last,
            &["credential", "credentials", "creds", "pat", "appid"],
        )
        || (is(last, "id") && prev.is_some_and(|p| is(p, "secret")))
    {
        return Some(Kind::Secret);
    }
    // Redis's `requirepass` / `masterauth`, keytool's `-storepass`,
    // `SSHPASS`, `REDISCLI_AUTH`.
    if any_of(
        last,
        &[
            "requirepass",
            "masterauth",
            "storepass",
            "keypass",
            "srcstorepass",
            "deststorepass",
            "sshpass",
        ],
    ) || (is(last, "auth") && prev.is_some_and(|p| is(p, "rediscli")))
    {
        return Some(Kind::Password);
    }
    // Session cookies: Django `sessionid`, PHP `PHPSESSID`, Java
    // `JSESSIONID`, Express `connect.sid`, Rails `_app_session`, Laravel.
    if any_of(last, &["sessionid", "sessid", "phpsessid", "jsessionid"])
        || (is(last, "sid") && prev.is_some_and(|p| is(p, "connect")))
        || (is(last, "session")
            && (name.first() == Some(&b'_')
                || prev.is_some_and(|p| any_of(p, &["laravel", "rack", "flask", "express"]))))
    {
        return Some(Kind::Secret);
    }
    if ends(last, "token") {
        let stem = &last[..last.len() - 5];
        let before = if stem.is_empty() { prev } else { Some(stem) };
        return match before {
            Some(b) if any_of(b, TOKEN_NOT_SECRET) => None,
            _ => Some(Kind::Secret),
        };
    }
    if is(last, "key") {
        return match prev {
            None => Some(Kind::BareKey),
            // A database's primary key is an id; Rails' Active Record
            // encryption has a `primary_key` of random base64.
            Some(p) if is(p, "primary") => Some(Kind::BareKey),
            Some(p) if any_of(p, KEY_NOT_SECRET) => None,
            Some(_) => Some(Kind::Secret),
        };
    }
    if any_of(last, GLUED_KEYS) {
        return Some(Kind::Secret);
    }
    // `key_derivation_salt`, `AUTH_SALT`: only a random value (a salt named
    // for a key or an auth scheme is keying material).
    if is(last, "salt") && ws.len() > 1 {
        return Some(Kind::BareKey);
    }
    // Consul's gossip key: `encrypt = "…"` (base64 of 32 bytes).
    if is(last, "encrypt") && ws.len() == 1 {
        return Some(Kind::BareKey);
    }
    // Bitwarden's CLI session key (`BW_SESSION`) unlocks the whole vault.
    if is(last, "session") && ws.len() == 2 && is(ws[0], "bw") {
        return Some(Kind::Secret);
    }
    // Duo's `SKEY` (the integration's secret key); a PKCS#12 bundle or key
    // store carried in a variable (`P12_BASE64`, `KEYSTORE_B64`).
    if is(last, "skey")
        || ws
            .iter()
            .any(|w| any_of(w, &["p12", "pfx", "pkcs12", "keystore", "jks"]))
    {
        return Some(Kind::Secret);
    }
    // `MJ_APISECRET_PRIVATE`, `SIGNING_KEY_PRIVATE`: a secret's name, then `private`.
    if is(last, "private") && ws.len() >= 2 && classify_words(&name[..name.len() - 8]).is_some() {
        return Some(Kind::Secret);
    }
    if is(last, "auth") || (ends(last, "auth") && !is(last, "oauth") && last.len() > 4) {
        return Some(Kind::Auth);
    }
    // Confluent's `basic.auth.user.info=KEY:SECRET` (Schema Registry).
    if is(last, "info") && prev.is_some_and(|p| is(p, "user")) && ws.iter().any(|w| is(w, "auth")) {
        return Some(Kind::Auth);
    }
    None
}

/// Whether the name at `name_start` is a field of an AWS ARN
/// (`arn:aws:secretsmanager:…:secret:prod/db-AbC123`): a resource's name,
/// not its value.
fn in_arn(text: &[u8], name_start: usize) -> bool {
    if name_start == 0 || text[name_start - 1] != b':' {
        return false;
    }
    let token = run_back(text, name_start, 256, |b| {
        !b.is_ascii_whitespace() && !matches!(b, b'"' | b'\'' | b'\\' | b'=')
    });
    text[token..name_start].starts_with(b"arn:")
}

/// Whether the name at `name_start` is one of Cloud Run's or Cloud
/// Functions' `--set-secrets=NAME=secret:version` pairs (also `--update-secrets`).
fn secret_references(text: &[u8], name_start: usize) -> bool {
    let token = run_back(text, name_start, 512, |b| {
        !b.is_ascii_whitespace() && b != b'"'
    });
    super::lex::contains(&text[token..name_start], b"-secrets=")
}

/// Finds a secret-named assignment or flag around the keyword at `hit..hit_end`.
pub(super) fn assignment(text: &[u8], hit: usize, hit_end: usize, out: &mut Vec<Finding>) {
    let mut name_start = run_back(text, hit, 64, name_byte);
    // `…\npassword: …` inside a JSON string: the escape is not the name's.
    if name_start < hit && super::lex::after_escape(text, name_start + 1) {
        name_start += 1;
    }
    let name_end = run(text, hit_end, 64, name_byte);
    // `scheme://user:password@host`: the URL rule keeps the host.
    // `${DB_PASSWORD:?required}`: a shell parameter expansion, no value;
    // `--set-secrets=DB_PASSWORD=db-password:latest`: references to secrets.
    // detect-secrets' "Hashed Secret: <sha1>" names a digest.
    if text[..name_start].ends_with(b"://")
        || text[..name_start].ends_with(b"${")
        || text[..name_start].ends_with(b"Hashed ")
        || in_arn(text, name_start)
        || secret_references(text, name_start)
    {
        return;
    }
    let full = &text[name_start..name_end];
    // A Firebase web config's `apiKey` is public by design, and so is the
    // VAPID public key a page hands to `pushManager.subscribe`.
    if (full.eq_ignore_ascii_case(b"apikey")
        && (super::context::in_firebase_config(text, name_start)
            || search_only_key(text, name_start)))
        || full.eq_ignore_ascii_case(b"applicationServerKey")
    {
        return;
    }
    let flag = full.starts_with(b"-");
    let name_from = name_start + full.iter().take_while(|&&b| b == b'-' || b == b'.').count();
    let name = &text[name_from..name_end];
    let Some((mut value, mut sep)) = value_after(text, name_start, name_end, flag) else {
        // A CSV export's header cell (`name,url,username,password`).
        if let Some(kind) = classify(name)
            && super::csv::secret_column(text, name_start, name_end, kind, out)
        {
            return;
        }
        // `- name: DB_PASSWORD` / `value: …`, CloudFormation's
        // `"DBPassword": {"Type": "String", "Default": "…"}`, an
        // environment lookup's literal fallback, and the like.
        // (Both shapes are checked before the name, which costs more.)
        if let Some(v) = super::pairs::value_beside(text, name_start, name_end)
            .or_else(|| super::pairs::object_after(text, name_end))
            .or_else(|| super::fallback::env_fallback(text, name_start, name_end))
            && let Some(kind) = classify(name)
            && accepts(text, kind, v, Sep::Tight)
        {
            out.push(Finding {
                rule: "secret_pair",
                start: v.start,
                end: v.end,
            });
        }
        return;
    };
    // What no kind accepts, before the name is read: a bare number
    // (`"input_tokens":1234`), `true`, `null`, a PowerShell cmdlet's call
    // (`$secret = Get-AzKeyVaultSecret -VaultName …`)…
    let v = &text[value.start..value.end];
    if !value.quoted
        && (is_number_literal(v)
            || matches!(v, b"true" | b"false" | b"null" | b"None")
            || is_cmdlet_call(text, value))
    {
        return;
    }
    let Some(kind) = key_beside_username(text, name_start, name)
        .or_else(|| classify(name))
        // `<Pass>` is a password element (a bare `pass` is a test verdict).
        .or_else(|| {
            (is(name, "pass") && text[..name_start].ends_with(b"<")).then_some(Kind::Password)
        })
        .or_else(|| openssl_pass(text, name_start, name))
        .or_else(|| pass_line(text, name_start, name_end, name))
        .or_else(|| pagerduty_key(text, name_start, name))
        .or_else(|| (flag && any_of(name, &["pass", "pw"])).then_some(Kind::Password))
    else {
        return;
    };
    // A URL query's bare `key=` is an API key (`…/latest?base=USD&key=X`),
    // hex digits too; elsewhere a hex `key` is a digest or a cache key.
    let in_query = matches!(text.get(name_start.wrapping_sub(1)), Some(b'?' | b'&'));
    let kind = if kind == Kind::BareKey
        && in_query
        && is(name, "key")
        && !text[value.start..value.end].contains(&b':')
    {
        Kind::Secret
    } else {
        kind
    };
    // OpenWeatherMap's `appid` is its API key (32 hex digits); elsewhere an
    // app's id is short and public.
    if is(name, "appid") && value.end - value.start < 24 {
        return;
    }
    // `password: str = "…"`, `const TOKEN: Kind = …`: skip the type annotation.
    let v = &text[value.start..value.end];
    let ident =
        v[0].is_ascii_alphabetic() && v.iter().all(|&b| b.is_ascii_alphanumeric() || b == b'_');
    if !value.quoted && ident {
        let i = skip_blanks(text, value.end);
        if text.get(i) == Some(&b'=') && text.get(i + 1) != Some(&b'=') {
            let j = skip_blanks(text, i + 1);
            // Only a quoted literal is a value; `const X: u32 = 42` is code.
            match value_at(text, j) {
                Some(v) if v.end > v.start && v.quoted => (value, sep) = (v, Sep::Spaced),
                _ => return,
            }
        }
    }
    if kind == Kind::BareKey && word_before_is(text, name_start, KEY_NOT_SECRET) {
        return;
    }
    // (A generated secret key holds them too: Django's `django-insecure-…&=q26`.)
    if matches!(kind, Kind::Password | Kind::Secret) && !value.quoted {
        value.end = password_through_punctuation(text, value.end);
    }
    // Convex's `prod:brave-lynx-459|<token>`: the deployment, then the key.
    if !value.quoted && text.get(value.end) == Some(&b'|') {
        let key_end = run(text, value.end + 1, 512, |b| b.is_ascii_alphanumeric());
        if key_end - value.end > 32 {
            value.end = key_end;
        }
    }
    if !accepts(text, kind, value, sep) {
        return;
    }
    // `--creds user:password`: the user stays.
    if matches!(kind, Kind::Secret | Kind::Auth)
        && words(name)
            .last()
            .is_some_and(|w| any_of(w, &["creds", "credentials", "auth", "userpass"]))
        && let Some(c) = user_prefix(&text[value.start..value.end])
    {
        value.start += c + 1;
    }
    // `0x` says the digits are hex and is no secret: it stays.
    let v = &text[value.start..value.end];
    if v.len() == 66 && v.starts_with(b"0x") {
        value.start += 2;
    }
    let rule = match (kind, flag) {
        (Kind::Password, false) => "password_assignment",
        (Kind::Password, true) => "password_flag",
        (_, false) => "secret_assignment",
        (_, true) => "secret_flag",
    };
    out.push(Finding {
        rule,
        start: value.start,
        end: value.end,
    });
}

/// The end of a bare password that stopped at `,` or `&` (list and query
/// separators, but also what people type in passwords: `DB_PASSWORD=NGQ,-e7&k!g`,
/// `Password=FbLV_&*sq8;` in a connection string): the password runs on
/// through them while what follows is no further `name=value` pair, up to a
/// blank, a quote, a `;`, a line break or the end of the string.
fn password_through_punctuation(text: &[u8], end: usize) -> usize {
    let mut end = end;
    while matches!(text.get(end), Some(b',' | b'&')) {
        let rest = run(text, end + 1, 256, |b| {
            !matches!(
                b,
                b' ' | b'\t' | b'\r' | b'\n' | b'"' | b'\'' | b'`' | b'\\' | b';'
            ) && b >= 0x20
        });
        let piece = &text[end + 1..rest];
        // A further pair starts with its name (`,b=c`, `&next=…`,
        // `,x-honeycomb-dataset=web` in OTLP headers); `&=q26` and `,2=6uc`
        // are more of the password.
        let next_pair = piece
            .iter()
            .position(|&b| b == b'=' || b == b':')
            .is_some_and(|at| {
                at > 0
                    && piece[0].is_ascii_alphabetic()
                    && piece[..at]
                        .iter()
                        .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
            });
        if piece.is_empty() || next_pair {
            break;
        }
        end = rest;
    }
    end
}

/// The value after a name: through an optional closing quote and `]`, then
/// `=`, `:`, `:=`, `=>` (or `,` between two quoted strings in a call; blanks
/// after a flag, a `.netrc` `password` or `… set NAME`).
fn value_after(
    text: &[u8],
    name_start: usize,
    name_end: usize,
    flag: bool,
) -> Option<(Value, Sep)> {
    // `<password>value</password>` (XML and HTML config), also with
    // attributes: FileZilla's `<Pass encoding="base64">…</Pass>`, and with
    // a namespace: WS-Security's `<wsse:Password Type="…#PasswordText">`.
    if name_start > 0
        && (text[name_start - 1] == b'<' || xml_namespace_before(text, name_start))
        && let Some(open_end) = tag_end(text, name_end)
    {
        return super::pairs::element_text(text, open_end + 1).map(|v| (v, Sep::Tight));
    }
    if let Some(v) = table_cell_after(text, name_start, name_end) {
        return Some((v, Sep::Tight));
    }
    // Markdown: `| \`NAME\` | \`X\` |` (a table's next cell), "set \`NAME\` to \`X\`".
    if name_start > 0 && text[name_start - 1] == b'`' && text.get(name_end) == Some(&b'`') {
        return markdown_value(text, name_end + 1).map(|v| (v, Sep::Tight));
    }
    // A CSV row `name,value` alone on its line.
    if text.get(name_end) == Some(&b',') && at_line_start(text, name_start) {
        let v = value_at(text, name_end + 1)?;
        let rest = run(text, v.end, 4, |b| b == b'"' || b == b' ');
        let ends = matches!(text.get(rest), None | Some(b'\n' | b'\r'))
            || matches!(super::lex::escape_at(text, rest), Some((b'n' | b'r', _)));
        return (ends && super::entropy::looks_random(&text[v.start..v.end]))
            .then_some((v, Sep::Tight));
    }
    let mut i = name_end;
    let slashes = run(text, i, 8, |b| b == b'\\') - i;
    let name_quoted = matches!(text.get(i + slashes), Some(b'"' | b'\''));
    if name_quoted {
        i += slashes + 1;
        if text.get(i) == Some(&b']') {
            i += 1;
        }
    } else if text.get(i) == Some(&b']') && text.get(i + 1) == Some(&b'=') {
        // A bracketed field: `config[secret]=…` (`gh api -f`, PHP, Rails forms).
        i += 1;
    }
    let before = i;
    i = skip_blanks(text, i);
    let blank_before = i > before;
    let (op, width) = match (text.get(i), text.get(i + 1)) {
        (Some(b':'), Some(b'=')) | (Some(b'='), Some(b'>')) => (b'=', 2),
        // Scala's and Groovy's map entries: `"sfPassword" -> "…"`.
        (Some(b'-'), Some(b'>')) if name_quoted => (b'=', 2),
        // `NAME==value` (a value starting with `=`) is not `a == b`.
        (Some(b'='), Some(b'='))
            if !blank_before && text.get(i + 2).is_some_and(|b| !b.is_ascii_whitespace()) =>
        {
            (b'=', 1)
        }
        (Some(b'='), Some(b'=')) | (Some(b':'), Some(b':')) => return None,
        // Ruby's `||=`, JavaScript's `??=` and `||=`, make's `?=`.
        (Some(b'|'), Some(b'|')) | (Some(b'?'), Some(b'?')) if text.get(i + 2) == Some(&b'=') => {
            (b'=', 3)
        }
        (Some(b'?'), Some(b'=')) => (b'=', 2),
        // R's `<-`.
        (Some(b'<'), Some(b'-')) => (b'=', 2),
        // A fallback literal: `process.env.SESSION_SECRET || 'X'`, `?? "X"`.
        (Some(b'|'), Some(b'|')) | (Some(b'?'), Some(b'?'))
            if matches!(text.get(skip_blanks(text, i + 2)), Some(b'\'' | b'"')) =>
        {
            (b'=', 2)
        }
        (Some(b'='), _) => (b'=', 1),
        (Some(b':'), _) => (b':', 1),
        // `set("API_KEY", "…")`, and a flag in an argv list: `"--private-key", "…"`.
        (Some(b','), _) if name_quoted && (flag || opens_call(text, name_start)) => (b',', 1),
        // MySQL's `= PASSWORD('…')`.
        (Some(b'('), Some(b'\'' | b'"')) if is(&text[name_start..name_end], "password") => {
            (b',', 1)
        }
        // A builder's or setter's literal: `.password("…")`, `.setApiKey(\"…\")`,
        // `mollie.set_api_key("…")`, PHP's `$mollie->setApiKey("…")`.
        (Some(b'('), _)
            if (text[name_start] == b'.'
                || name_start > 0 && text[name_start - 1] == b'.'
                || text[..name_start].ends_with(b"->")
                || text[name_start..name_end].contains(&b'.'))
                && matches!(
                    text.get(run(text, i + 1, 8, |b| b == b'\\')),
                    Some(b'"' | b'\'')
                ) =>
        {
            (b',', 1)
        }
        // "I set MAILGUN_API_KEY to X".
        (Some(b't'), Some(b'o'))
            if blank_before && text.get(i + 2) == Some(&b' ') && after_set(text, name_start) =>
        {
            (b' ', 2)
        }
        _ if blank_before
            && (flag
                || after_define(text, name_start)
                || (name_start > 0
                    && text[name_start - 1] == b':'
                    && matches!(text.get(i), Some(b'"' | b'\\')))
                || netrc_password(text, name_start, name_end)
                || after_set(text, name_start)
                || config_line(text, name_start, name_end)
                || sql_password(text, name_start, name_end, i)
                || table_row(text, name_start, name_end, i)) =>
        {
            (b' ', 0)
        }
        _ => return None,
    };
    i += width;
    let after = i;
    i = skip_blanks(text, i);
    // `SECRET: &str = "…"`: a reference type, skipped with the type below.
    if op == b':' && text.get(i) == Some(&b'&') {
        i += 1;
    }
    // `SECRET: &[u8] = b"…"`, `KEY: [u8; 32] = *b"…"`: a slice or array
    // type, then the literal.
    if op == b':' && text.get(i) == Some(&b'[') {
        let line = super::lex::line_end(text, i, 40);
        let eq = i + text[i..line].iter().position(|&b| b == b'=')?;
        i = skip_blanks(text, eq + 1);
        if text.get(i) == Some(&b'*') {
            i += 1;
        }
        if text.get(i) != Some(&b'b') || !matches!(text.get(i + 1), Some(b'"' | b'\'')) {
            return None;
        }
        i += 1;
    }
    // SQL Server's Unicode literal `N'…'`, Python's and Rust's byte strings `b"…"`.
    if op == b'='
        && matches!(text.get(i), Some(b'N' | b'b'))
        && matches!(text.get(i + 1), Some(b'\'' | b'"' | b'\\'))
    {
        i += 1;
    }
    // Rust's `String::from("…")` and the like: a literal in a conversion.
    if op == b'='
        && let Some(w) = LITERAL_WRAPPERS.iter().find(|w| text[i..].starts_with(w))
        && matches!(text.get(i + w.len()), Some(b'"' | b'\''))
    {
        i += w.len();
    }
    let value = value_at(text, i)?;
    if value.end == value.start || (op == b',' && !value.quoted) {
        return None;
    }
    let sep = match op {
        b' ' => Sep::Blank,
        b'=' if blank_before && i > after => Sep::Spaced,
        _ => Sep::Tight,
    };
    Some((value, sep))
}

/// A table's bar (`|`, or `│` as CLIs draw it) ending at `i`: where it starts.
fn bar_ending_at(text: &[u8], i: usize) -> Option<usize> {
    if text[..i].ends_with(b"|") {
        Some(i - 1)
    } else if text[..i].ends_with("│".as_bytes()) {
        Some(i - "│".len())
    } else {
        None
    }
}

/// A table's bar starting at `i`: where it ends.
fn bar_starting_at(text: &[u8], i: usize) -> Option<usize> {
    if text[i..].starts_with(b"|") {
        Some(i + 1)
    } else if text[i..].starts_with("│".as_bytes()) {
        Some(i + "│".len())
    } else {
        None
    }
}

/// A name in a table row's first cell, its value in the next:
/// `│ DB_PASSWORD      │ X │` (`doppler secrets`, other CLIs' tables).
fn table_cell_after(text: &[u8], name_start: usize, name_end: usize) -> Option<Value> {
    let lead = run_back(text, name_start, 16, |b| b == b' ' || b == b'\t');
    let bar = bar_ending_at(text, lead)?;
    if !at_line_start(text, bar) {
        return None;
    }
    let start = skip_blanks(text, bar_starting_at(text, skip_blanks(text, name_end))?);
    let end = run(text, start, 512, |b| !b.is_ascii_whitespace() && b != b'|');
    let closed = bar_starting_at(text, skip_blanks(text, end))?;
    // A third cell makes it a listing of columns (MySQL's `DESCRIBE`:
    // `| password | varchar(255) | NO |`), not a name and its value.
    let after = skip_blanks(text, closed);
    if text
        .get(after)
        .is_some_and(|&b| !matches!(b, b'\n' | b'\r' | b'\\' | b'"'))
    {
        return None;
    }
    (end > start).then_some(Value {
        start,
        end,
        quoted: false,
    })
}

/// The `>` that closes an opening tag whose name ends at `name_end`: right
/// there, or after attributes that hold no value of their own (`value=`
/// is the pair rules', `/>` closes an empty element).
fn tag_end(text: &[u8], name_end: usize) -> Option<usize> {
    match text.get(name_end)? {
        b'>' => Some(name_end),
        b' ' => {
            let limit = text.len().min(name_end + 240);
            let close = name_end + text[name_end..limit].iter().position(|&b| b == b'>')?;
            let attrs = &text[name_end..close];
            (!attrs.iter().any(|&b| matches!(b, b'<' | b'\n'))
                && !attrs.ends_with(b"/")
                && !super::lex::contains_ci(attrs, b"value="))
            .then_some(close)
        }
        _ => None,
    }
}

/// Whether the element name at `name_start` has a namespace prefix
/// (`<wsse:` before `Password`).
fn xml_namespace_before(text: &[u8], name_start: usize) -> bool {
    if text.get(name_start.wrapping_sub(1)) != Some(&b':') {
        return false;
    }
    let prefix = run_back(text, name_start - 1, 16, |b| b.is_ascii_alphanumeric());
    prefix < name_start - 1 && prefix > 0 && text[prefix - 1] == b'<'
}

/// A PowerShell cmdlet (`Verb-Noun`) called with a parameter after it.
fn is_cmdlet_call(text: &[u8], value: Value) -> bool {
    let v = &text[value.start..value.end];
    let Some(dash) = v.iter().position(|&b| b == b'-') else {
        return false;
    };
    let (verb, noun) = (&v[..dash], &v[dash + 1..]);
    let capitalised = |w: &[u8]| {
        w.len() >= 3 && w[0].is_ascii_uppercase() && w.iter().all(u8::is_ascii_alphabetic)
    };
    capitalised(verb) && capitalised(noun) && text[value.end..].starts_with(b" -")
}

/// Conversions that wrap an assigned literal (`let token = String::from("…")`).
const LITERAL_WRAPPERS: &[&[u8]] = &[
    b"String::from(",
    // Node's `const KEY = Buffer.from("…", "base64")`, Go's `[]byte("…")`.
    b"Buffer.from(",
    b"[]byte(",
    b"SecretString::from(",
    b"SecretString::new(",
    b"Secret::new(",
    b"String(",
    b"str(",
];

/// The value after a backquoted name in Markdown (from `i`, past its
/// closing backquote): the next table cell (`| \`X\` |`) or what "to"
/// gives it (`to \`X\``), itself backquoted.
fn markdown_value(text: &[u8], i: usize) -> Option<Value> {
    let mut j = skip_blanks(text, i);
    if text.get(j) == Some(&b'|') {
        j = skip_blanks(text, j + 1);
    } else if text[j..].starts_with(b"to ") {
        j = skip_blanks(text, j + 3);
    } else {
        return None;
    }
    if text.get(j) != Some(&b'`') {
        return None;
    }
    let start = j + 1;
    let end = run(text, start, 512, |b| b != b'`' && b != b'\n');
    (text.get(end) == Some(&b'`') && end > start).then_some(Value {
        start,
        end,
        quoted: true,
    })
}

/// PagerDuty's `routing_key` (an integration's secret; a message broker's
/// routing key is not one), told apart by the word `pagerduty` shortly
/// before it.
fn pagerduty_key(text: &[u8], name_start: usize, name: &[u8]) -> Option<Kind> {
    let ws = words(name);
    let routing_key = matches!(&ws[..], [.., r, k] if is(r, "routing") && is(k, "key"));
    let before = &text[name_start.saturating_sub(400)..name_start];
    (routing_key
        && (super::lex::contains_ci(name, b"pagerduty")
            || super::lex::contains_ci(before, b"pagerduty")))
    .then_some(Kind::Secret)
}

/// A bare `key` member beside a `username` in one JSON object: Kaggle's
/// `kaggle.json` (`{"username":"…","key":"<32 hex>"}`) and credentials
/// objects like it, where the key is the account's API key.
fn key_beside_username(text: &[u8], name_start: usize, name: &[u8]) -> Option<Kind> {
    if !is(name, "key") {
        return None;
    }
    let from = name_start.saturating_sub(160);
    let object = text[from..name_start]
        .iter()
        .rposition(|&b| b == b'{')
        .map(|p| &text[from + p..name_start])?;
    (!object.contains(&b'}') && super::lex::contains_ci(object, b"\"username\""))
        .then_some(Kind::Secret)
}

/// In `user:password`, the colon's offset, when what precedes it is a user name.
fn user_prefix(v: &[u8]) -> Option<usize> {
    let c = v.iter().position(|&b| b == b':')?;
    let user = &v[..c];
    let plain = (1..=32).contains(&user.len())
        && user
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-' | b'@'));
    (plain && c + 1 < v.len() && !looks_random(user)).then_some(c)
}

/// Whether the word before `name_start` (across blanks) is one of `list`
/// (`public key: …`, `cache key=…`).
fn word_before_is(text: &[u8], name_start: usize, list: &[&str]) -> bool {
    let end = run_back(text, name_start, 8, |b| b == b' ' || b == b'\t');
    let start = run_back(text, end, 32, |b| b.is_ascii_alphanumeric());
    end < name_start && start < end && any_of(&text[start..end], list)
}

/// SQL's `IDENTIFIED BY 'password'` (MySQL, Oracle); `hit_end` is past `by`.
fn identified_by(text: &[u8], hit_end: usize, out: &mut Vec<Finding>) {
    let i = skip_blanks(text, hit_end);
    if let Some(v) = value_at(text, i)
        && i > hit_end
        && accepts(text, Kind::Password, v, Sep::Blank)
        && (v.quoted || text[v.start].is_ascii_alphanumeric())
    {
        out.push(Finding {
            rule: "password_assignment",
            start: v.start,
            end: v.end,
        });
    }
}

/// SQL's `IDENTIFIED BY 'password'` and MySQL's `IDENTIFIED WITH <plugin>
/// BY 'password'`; `hit_end` is past `identified `.
pub(super) fn identified(text: &[u8], hit_end: usize, out: &mut Vec<Finding>) {
    let word = skip_blanks(text, hit_end);
    let at = |w: &[u8]| {
        text.len() >= word + w.len() && text[word..word + w.len()].eq_ignore_ascii_case(w)
    };
    if at(b"by") {
        identified_by(text, word + 2, out);
    } else if at(b"with") {
        identified_with(text, word + 4, out);
    }
}

/// strongSwan's `ipsec.secrets`: `<ids> : PSK "X"` (also `EAP`, `XAUTH`;
/// keyword ending at `hit_end`): the quoted secret, or a bare one that
/// looks like a password (`%prompt` asks for it at start-up).
pub(super) fn ipsec_secret(text: &[u8], hit_end: usize, out: &mut Vec<Finding>) {
    let Some(v) = value_at(text, skip_blanks(text, hit_end)) else {
        return;
    };
    let secret = &text[v.start..v.end];
    if (v.quoted || looks_like_password(secret))
        && !secret.is_empty()
        && !secret.starts_with(b"%")
        && !is_harmless(secret)
    {
        out.push(Finding {
            rule: "password_assignment",
            start: v.start,
            end: v.end,
        });
    }
}

/// `INSERT INTO t (name, api_key) VALUES ('partner', 'X')` (keyword ending
/// at `hit_end`): the quoted values of the columns named as secrets.
pub(super) fn sql_insert(text: &[u8], hit_end: usize, out: &mut Vec<Finding>) {
    let limit = text.len().min(hit_end + 4096);
    let Some(open) = text[hit_end..limit]
        .iter()
        .position(|&b| b == b'(')
        .map(|p| hit_end + p)
    else {
        return;
    };
    let close = run(text, open + 1, limit - open - 1, |b| b != b')');
    let columns: Vec<&[u8]> = text[open + 1..close]
        .split(|&b| b == b',')
        .map(|c| {
            let quote = |b: &u8| matches!(b, b'"' | b'`' | b'[' | b']' | b'\\');
            let c = c.trim_ascii();
            let from = c.iter().position(|b| !quote(b)).unwrap_or(c.len());
            let to = c.iter().rposition(|b| !quote(b)).map_or(from, |p| p + 1);
            &c[from..to.max(from)]
        })
        .collect();
    let Some(values) = super::lex::find(&text[close..limit], b"VALUES")
        .or_else(|| super::lex::find(&text[close..limit], b"values"))
        .map(|p| close + p + 6)
    else {
        return;
    };
    let Some(start) = text[values..limit]
        .iter()
        .position(|&b| b == b'(')
        .map(|p| values + p + 1)
    else {
        return;
    };
    // The values in order: quoted ones (`'…'`, `\"…\"`) or bare words.
    let mut i = start;
    for column in &columns {
        i = skip_blanks(text, i);
        let Some(v) = value_at(text, i) else {
            return;
        };
        let kind = classify(column);
        if let Some(kind) = kind
            && v.quoted
            && accepts(text, kind, v, Sep::Tight)
        {
            out.push(Finding {
                rule: "secret_assignment",
                start: v.start,
                end: v.end,
            });
        }
        let after = run(text, v.end, 8, |b| matches!(b, b'\'' | b'"' | b'\\'));
        let comma = skip_blanks(text, after);
        if text.get(comma) != Some(&b',') {
            return;
        }
        i = comma + 1;
    }
}

/// A Terraform variable named as a secret, and its default: `variable
/// "api_token" { … default = "X" }` (keyword ending at `hit_end`, past
/// `variable `).
pub(super) fn terraform_variable(text: &[u8], hit_end: usize, out: &mut Vec<Finding>) {
    let Some(name) = value_at(text, hit_end).filter(|v| v.quoted) else {
        return;
    };
    if classify(&text[name.start..name.end]).is_none() {
        return;
    }
    // The block, up to its first closing brace (a default is a scalar).
    let close = run(text, name.end, 1024, |b| b != b'}');
    let block = &text[name.end..close];
    let Some(at) = super::lex::find(block, b"default") else {
        return;
    };
    let eq = skip_blanks(text, name.end + at + 7);
    if text.get(eq) != Some(&b'=') {
        return;
    }
    if let Some(v) = value_at(text, skip_blanks(text, eq + 1)).filter(|v| v.quoted)
        && accepts(text, Kind::Secret, v, Sep::Blank)
    {
        out.push(Finding {
            rule: "secret_assignment",
            start: v.start,
            end: v.end,
        });
    }
}

/// MySQL's `SET PASSWORD [FOR user] = 'password'` (or `= PASSWORD('…')`);
/// `hit_end` is past `set password`.
pub(super) fn set_password(text: &[u8], hit_end: usize, out: &mut Vec<Finding>) {
    let statement = run(text, hit_end, 256, |b| !matches!(b, b';' | b'\n' | b'='));
    if text.get(statement) != Some(&b'=') {
        return;
    }
    let mut i = skip_blanks(text, statement + 1);
    if text.len() >= i + 9 && text[i..i + 9].eq_ignore_ascii_case(b"password(") {
        i += 9;
    }
    if let Some(v) = value_at(text, i).filter(|v| v.quoted)
        && accepts(text, Kind::Password, v, Sep::Blank)
    {
        out.push(Finding {
            rule: "password_assignment",
            start: v.start,
            end: v.end,
        });
    }
}

/// MySQL's `IDENTIFIED WITH <plugin> BY 'password'`; `hit_end` is past `with`.
fn identified_with(text: &[u8], hit_end: usize, out: &mut Vec<Finding>) {
    let plugin = skip_blanks(text, hit_end);
    let plugin_end = run(text, plugin, 64, |b| b.is_ascii_alphanumeric() || b == b'_');
    let by = skip_blanks(text, plugin_end);
    if plugin_end > plugin
        && by > plugin_end
        && text.len() >= by + 2
        && text[by..by + 2].eq_ignore_ascii_case(b"by")
    {
        identified_by(text, by + 2, out);
    }
}

/// OpenSSL's `-passin pass:VALUE` (also `-passout`, `-password`).
fn openssl_pass(text: &[u8], name_start: usize, name: &[u8]) -> Option<Kind> {
    // `-passin pass:X`, also quoted: `-passin 'pass:X'`.
    let end = run_back(text, name_start, 3, |b| matches!(b, b'"' | b'\'' | b'\\'));
    let before = &text[end.saturating_sub(10)..end];
    (name == b"pass"
        && [&b"-passin "[..], b"-passout ", b"-password "]
            .iter()
            .any(|p| before.ends_with(p)))
    .then_some(Kind::Password)
}

/// `pass: X` / `pass=X` opening a line of credentials (`user: …` /
/// `pass: …` pasted in a chat, a config listing, an indented YAML block) or
/// after a user on its line (nodemailer's `auth: { user: '…', pass: '…' }`,
/// "user: admin, pass: X"): `pass` alone is a password only there, lower
/// case and with its own `:` or `=` — `--- PASS: TestX` and Python's
/// `pass` are not.
fn pass_line(text: &[u8], name_start: usize, name_end: usize, name: &[u8]) -> Option<Kind> {
    // `pass = X` in rclone.conf: blanks may stand before the separator.
    let sep = skip_blanks(text, name_end);
    (name == b"pass"
        && (at_line_start(text, name_start) || after_user_field(text, name_start))
        && matches!(text.get(sep), Some(b':' | b'='))
        && text.get(sep + 1) != Some(&b':'))
    .then_some(Kind::Password)
}

/// Whether a `user` (or `username`, `login`) field, with its own `:` or `=`
/// (or said in prose: "user is deploy, pass: X"), stands before `at` on its line.
fn after_user_field(text: &[u8], at: usize) -> bool {
    let from = super::lex::line_start(text, at, 160);
    let line = &text[from..at];
    ["user", "username", "login"].iter().any(|field| {
        let field = field.as_bytes();
        line.windows(field.len())
            .enumerate()
            .filter(|&(_, w)| w.eq_ignore_ascii_case(field))
            .any(|(i, _)| {
                let end = i + field.len();
                let bounded = i == 0 || !name_byte(line[i - 1]);
                let sep = run(line, end, 3, |b| matches!(b, b'"' | b'\'' | b' '));
                bounded
                    && (matches!(line.get(sep), Some(b':' | b'='))
                        || line[end..].starts_with(b" is "))
            })
    })
}

/// Whether the quoted name starting at `name_start` opens a call's
/// arguments: `set("API_KEY", "…")`, `.header("Authorization", "…")`.
pub(super) fn opens_call(text: &[u8], name_start: usize) -> bool {
    let mut j = name_start;
    if j > 0 && matches!(text[j - 1], b'"' | b'\'') {
        j -= 1;
    }
    j = run_back(text, j, 8, |b| b == b'\\');
    j = run_back(text, j, 16, |b| b == b' ' || b == b'\t');
    j > 0 && text[j - 1] == b'('
}

/// `#define NAME VALUE` (C and C++).
fn after_define(text: &[u8], name_start: usize) -> bool {
    let before = run_back(text, name_start, 8, |b| b == b' ' || b == b'\t');
    text[..before].ends_with(b"#define")
}

/// `… set NAME VALUE` (`aws configure set`, `npm config set //host/:_authToken`).
fn after_set(text: &[u8], name_start: usize) -> bool {
    let word_start = run_back(text, name_start, 256, |b| !b.is_ascii_whitespace());
    let mut before = run_back(text, word_start, 8, |b| b == b' ' || b == b'\t');
    // fish's `set -gx NAME VALUE`: the scope flags between.
    let flag = run_back(text, before, 4, |b| b.is_ascii_alphabetic());
    if flag > 0 && flag < before && text[flag - 1] == b'-' {
        before = run_back(text, flag - 1, 8, |b| b == b' ' || b == b'\t');
    }
    before < word_start
        && before >= 3
        && text[before - 3..before].eq_ignore_ascii_case(b"set")
        && (before == 3 || !text[before - 4].is_ascii_alphanumeric())
}

/// `machine host login user password VALUE` (a `.netrc` entry, on one
/// line or over several).
fn netrc_password(text: &[u8], name_start: usize, name_end: usize) -> bool {
    if !is(&text[name_start..name_end], "password") {
        return false;
    }
    let before = &text[name_start.saturating_sub(200)..name_start];
    contains_ci(before, b"login ") || contains_ci(before, b"machine ")
}

/// `requirepass VALUE` at the start of a line (`redis.conf`), and a
/// secret's name there followed by one generated-looking value that ends the
/// line (a space-separated config: `client_secret X`).
fn config_line(text: &[u8], name_start: usize, name_end: usize) -> bool {
    let name = &text[name_start..name_end];
    if !at_line_start(text, name_start) {
        return false;
    }
    if ["requirepass", "masterauth"].iter().any(|w| is(name, w)) {
        return true;
    }
    let start = skip_blanks(text, name_end);
    let end = run(text, start, 256, |b| {
        !b.is_ascii_whitespace() && b != b'"' && b != b'\\'
    });
    let ends_line = match text.get(end) {
        None | Some(b'\n' | b'\r' | b'"') => true,
        Some(b'\\') => matches!(super::lex::escape_at(text, end), Some((b'n' | b'r', _))),
        _ => false,
    };
    matches!(classify(name), Some(Kind::Secret | Kind::Password))
        && ends_line
        && super::entropy::looks_random(&text[start..end])
}

/// A row of a two-column table (`vault kv get`'s `Key  Value`; `pulumi
/// config --show-secrets`, whose keys carry the project: `api:dbPassword`):
/// the key first on its line, two blanks or more, then the value, alone.
fn table_row(text: &[u8], name_start: usize, name_end: usize, value_start: usize) -> bool {
    if value_start < name_end + 2 || !text[name_end..value_start].iter().all(|&b| b == b' ') {
        return false;
    }
    let value_end = run(text, value_start, 512, |b| {
        !b.is_ascii_whitespace() && b != b'"' && b != b'\\'
    });
    let rest = run(text, value_end, 16, |b| b == b' ' || b == b'\t');
    let line_ends = rest >= text.len()
        || matches!(text[rest], b'\n' | b'\r' | b'"')
        || (text[rest] == b'\\' && matches!(text.get(rest + 1), Some(b'n' | b'r' | b'"')));
    let key_start = run_back(text, name_start, 64, |b| name_byte(b) || b == b':');
    line_ends && at_line_start(text, key_start)
}

/// Whether only blanks (and the line numbers of `cat -n` or a file viewer,
/// `  2→`) stand between `name_start` and the start of its line.
fn at_line_start(text: &[u8], name_start: usize) -> bool {
    let mut i = name_start;
    loop {
        let j = run_back(text, i, 16, |b| {
            b == b' ' || b == b'\t' || b.is_ascii_digit()
        });
        if text[..j].ends_with("→".as_bytes()) {
            i = j - "→".len();
        } else if j > 0 && text[j - 1] == b'+' {
            // A line a diff or a patch adds (`+requirepass …`).
            i = j - 1;
        } else if j >= 2 && text[j - 1] == b':' && text[j - 2].is_ascii_digit() {
            // `grep -n`'s line number (`1036:requirepass …`).
            i = j - 1;
        } else if j >= 2 && text[j - 2] == b'\\' && text[j - 1] == b't' {
            i = j - 2;
        } else {
            i = j;
            break;
        }
    }
    i == 0
        || text[i - 1] == b'\n'
        || text[..i].ends_with(b"\\n")
        // The start of a JSON string: a file's text as a tool's output.
        || (text[i - 1] == b'"' && super::lex::backslashes_before(text, i - 1) == 0)
}

/// SQL's `PASSWORD 'literal'` (`CREATE ROLE … WITH LOGIN PASSWORD '…'`,
/// `ALTER USER … PASSWORD '…'`); `value_start` is past the blanks.
fn sql_password(text: &[u8], name_start: usize, name_end: usize, value_start: usize) -> bool {
    is(&text[name_start..name_end], "password") && text.get(value_start) == Some(&b'\'')
}

/// A type written where a value would be (`password: str`, `secret_len: u32`).
fn is_type_name(v: &[u8]) -> bool {
    const TYPES: &[&str] = &[
        "str",
        "string",
        "String",
        "Optional[str]",
        "bytes",
        "SecretStr",
        "Secret",
        "int",
        "bool",
        "u8",
        "u16",
        "u32",
        "u64",
        "u128",
        "usize",
        "i8",
        "i16",
        "i32",
        "i64",
        "i128",
        "isize",
        "f32",
        "f64",
        "char",
        "c_int",
        "c_uint",
        "c_char",
        "c_long",
        "c_ulong",
    ];
    TYPES.iter().any(|t| t.as_bytes() == v)
}

/// `self.password`, `node.colon2_token`, `args.token2`: dotted identifiers
/// whose parts read as code (snake_case, or digits only at the end).
fn is_dotted_identifier(v: &[u8]) -> bool {
    v.contains(&b'.')
        && v.split(|&b| b == b'.').all(|p| {
            // snake_case (`colon2_token`, `token2`) or a capitalised word
            // (`Config`); not mixed case (`orbit.Sable_28` is a password),
            // not digits inside a word (`c2g52z.cmvnmerg405mnt15` is a token).
            let letters = p
                .iter()
                .take_while(|&&b| b.is_ascii_lowercase() || b == b'_')
                .count();
            let snake = p
                .first()
                .is_some_and(|&b| b.is_ascii_lowercase() || b == b'_')
                && p.iter()
                    .all(|&b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
                && (p.contains(&b'_') || p[letters..].iter().all(u8::is_ascii_digit));
            let capitalised = p.first().is_some_and(u8::is_ascii_uppercase)
                && p[1..].iter().all(u8::is_ascii_lowercase);
            snake || capitalised
        })
}

/// A number literal: `42`, `0x030`, `16u32`, `-1540i32`, `1_000`.
fn is_number_literal(v: &[u8]) -> bool {
    let v = v.strip_prefix(b"-").unwrap_or(v);
    // No number literal has more than 32 hex digits; 64 are an EVM
    // private key (`--private-key 0x…`).
    if let Some(hex) = v.strip_prefix(b"0x") {
        return (1..=32).contains(&hex.len())
            && hex.iter().all(|b| b.is_ascii_hexdigit() || *b == b'_');
    }
    let digits = v
        .iter()
        .take_while(|b| b.is_ascii_digit() || **b == b'_')
        .count();
    digits > 0
        && [
            "", "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128",
            "isize", "f32", "f64", "L", "UL", "ULL", "u", "U",
        ]
        .iter()
        .any(|suffix| &v[digits..] == suffix.as_bytes())
}

/// Code rather than a value: a call, an index or a generic type follows
/// (`getpass()`, `os.environ[…]`, `Option<String>`), a path (`a::b`), a
/// pointer or reference type, a number literal, a type name, a dotted
/// identifier or a `__reserved` name.
fn is_code(text: &[u8], value: Value) -> bool {
    let v = &text[value.start..value.end];
    matches!(text.get(value.end), Some(b'(' | b'[' | b'<'))
        || super::lex::contains(v, b"::")
        || v.starts_with(b"__")
        || v == b"*const"
        || v == b"*mut"
        || is_number_literal(v)
        || is_type_name(v)
        || is_dotted_identifier(v)
}

/// An identifier (`str`, `x25519_check_private_key_bytes`, `GenerateKey_t`).
fn is_identifier(v: &[u8]) -> bool {
    v.first()
        .is_some_and(|&b| b.is_ascii_alphabetic() || b == b'_')
        && v.iter()
            .all(|&b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.')
        && (v.contains(&b'_') || v.contains(&b'.') || v.iter().all(u8::is_ascii_alphabetic))
}

/// Letters and underscores only, like a variable name.
fn is_plain_identifier(v: &[u8]) -> bool {
    v.iter().all(|&b| b.is_ascii_alphabetic() || b == b'_')
}

/// A cache key or id that ends in a digest: `deps:<hex>`,
/// `node-modules-Linux-<hex>`, `v1/<hex>`.
fn is_namespaced_hash(v: &[u8]) -> bool {
    v.iter()
        .rposition(|&b| matches!(b, b':' | b'-' | b'/' | b'_' | b'.'))
        .is_some_and(|p| p > 0 && v.len() - p > 16 && is_hex(&v[p + 1..]))
}

/// An app-specific password as its service shows it: four to six groups of
/// four letters or digits, one separator throughout (Google's `abcd efgh
/// ijkl mnop`, Apple's `abcd-efgh-ijkl-mnop`, WordPress's `aut4 Y7lI …`).
pub(super) fn is_app_password(v: &[u8]) -> bool {
    let Some(&sep) = v.get(4).filter(|b| matches!(b, b' ' | b'-')) else {
        return false;
    };
    let groups = (v.len() + 1) / 5;
    (4..=6).contains(&groups)
        && v.len() == groups * 5 - 1
        && v.iter().enumerate().all(|(i, &b)| {
            if i % 5 == 4 {
                b == sep
            } else {
                b.is_ascii_alphanumeric()
            }
        })
        && v.iter().any(u8::is_ascii_lowercase)
}

/// Whether the `apiKey` named at `name_start` is a search-only key, public
/// by design: DocSearch's (`docsearch({ appId, apiKey, … })`), or one whose
/// line's comment says so (`apiKey: '…', // public search-only key`).
fn search_only_key(text: &[u8], name_start: usize) -> bool {
    let line_end = super::lex::line_end(text, name_start, 256);
    let line = &text[name_start..line_end];
    let comment = super::lex::find(line, b"//").or_else(|| super::lex::find(line, b" #"));
    comment.is_some_and(|c| {
        contains_ci(&line[c..], b"search-only") || contains_ci(&line[c..], b"search only")
    }) || contains_ci(
        &text[name_start.saturating_sub(200)..name_start],
        b"docsearch(",
    )
}

/// A here-string given to a command on the line of a secret's name
/// (`vercel env add NEXTAUTH_SECRET production <<< 'X'`, `gh secret set
/// API_TOKEN <<< X`): its word, through the gate of that name's kind.
pub(super) fn here_string(text: &[u8], hit: usize, hit_end: usize, out: &mut Vec<Finding>) {
    let line = super::lex::line_start(text, hit, 512);
    let Some(kind) = text[line..hit]
        .split(|&b| !name_byte(b))
        .filter(|w| w.len() > 3)
        .find_map(classify)
    else {
        return;
    };
    let Some(value) = value_at(text, skip_blanks(text, hit_end)) else {
        return;
    };
    if value.end > value.start && accepts(text, kind, value, Sep::Tight) {
        out.push(Finding {
            rule: "here_string_secret",
            start: value.start,
            end: value.end,
        });
    }
}

/// Whether `value`, found under a name of `kind` as an element's text,
/// passes the shape and entropy gate.
pub(super) fn accepts_value(text: &[u8], kind: Kind, value: Value) -> bool {
    accepts(text, kind, value, Sep::Tight)
}

fn accepts(text: &[u8], kind: Kind, value: Value, sep: Sep) -> bool {
    let v = &text[value.start..value.end];
    if is_harmless(v) || v.starts_with(b"//") || v.starts_with(b":") || v.starts_with(b"-----BEGIN")
    {
        return false;
    }
    if super::lex::contains(v, b"://") || (sep == Sep::Blank && v.starts_with(b"-")) {
        return false;
    }
    // (Letters in both cases at random are a value, `api_secret = OixXRvnCtkOeUPvG`
    // in an INI file; an identifier has one capital per word.)
    if !value.quoted
        && (is_code(text, value)
            || (sep == Sep::Spaced && is_plain_identifier(v) && !looks_random(v)))
    {
        return false;
    }
    // A bare lower-case word followed by more words is prose (`pwd: expected
    // bytes`); after a flag it is an argument (`--password options`).
    let word = v.strip_suffix(b".").unwrap_or(v);
    if !value.quoted && word.iter().all(u8::is_ascii_lowercase) {
        let next = skip_blanks(text, value.end);
        let more_words = next > value.end && text.get(next).is_some_and(u8::is_ascii_alphabetic);
        if more_words || sep == Sep::Blank {
            return false;
        }
    }
    // A word of the value names a secret (`dbPassword`, `GenerateKey_t`).
    let mentions_secret = words(v).iter().any(|w| {
        ["pass", "pwd", "secret", "token", "key", "cred", "auth"]
            .iter()
            .any(|stem| {
                w.len() >= stem.len() && w[..stem.len()].eq_ignore_ascii_case(stem.as_bytes())
            })
    });
    let has_digit = v.iter().any(u8::is_ascii_digit);
    // A generated key may start with a word (Telnyx's `KEY0…`).
    if mentions_secret && is_identifier(v) && !(v.len() >= 32 && looks_random(v)) {
        return false;
    }
    match kind {
        // (A password longer than anyone types is a token: ECR's
        // `docker login --password`, a thousand characters of base64.)
        Kind::Password => {
            looks_like_password(v)
                || (value.quoted && is_app_password(v))
                || (v.len() > 512 && looks_random(v))
        }
        Kind::Secret => looks_random(v) || (value.quoted && is_app_password(v)),
        Kind::BareKey => {
            has_digit
                && v.len() >= 16
                && !is_hex(v)
                && !is_uuid(v)
                && !is_namespaced_hash(v)
                && looks_random(v)
        }
        Kind::Auth => {
            looks_random(v)
                || v.iter()
                    .position(|&b| b == b':')
                    .is_some_and(|c| c > 0 && looks_like_password(&v[c + 1..]))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(name: &str) -> Option<Kind> {
        classify(name.as_bytes())
    }

    #[test]
    fn names() {
        use Kind::*;
        for (n, k) in [
            ("OPENAI_API_KEY", Some(Secret)),
            ("DB_PASSWORD", Some(Password)),
            ("PGPASSWORD", Some(Password)),
            ("client_secret", Some(Secret)),
            ("clientSecret", Some(Secret)),
            // A Google service account key's id names the key; it opens nothing.
            ("private_key_id", None),
            ("auth_token", Some(Secret)),
            ("_authToken", Some(Secret)),
            ("access_token", Some(Secret)),
            ("refresh_token", Some(Secret)),
            ("passwd", Some(Password)),
            ("pwd", Some(Password)),
            ("DB_PASS", Some(Password)),
            ("PASS", None),
            ("pass", None),
            ("SECRET_KEY_BASE", Some(Secret)),
            ("API_KEY_2", Some(Secret)),
            ("AccountKey", Some(Secret)),
            ("SharedAccessKey", Some(Secret)),
            ("APIKEY", Some(Secret)),
            ("X-Api-Key", Some(Secret)),
            ("client-key-data", Some(Secret)),
            ("GITHUB_PAT", Some(Secret)),
            ("auth", Some(Auth)),
            ("BASIC_AUTH", Some(Auth)),
            ("key", Some(BareKey)),
            ("public_key", None),
            ("primary_key", Some(BareKey)),
            ("key_derivation_salt", Some(BareKey)),
            ("cache_key", None),
            ("max_tokens", None),
            ("max_token", None),
            ("input_tokens", None),
            ("token_count", None),
            ("tokenizer", None),
            ("password_hash", None),
            ("PASSWORD_FILE", None),
            ("next_page_token", None),
            ("CancellationToken", None),
            ("author", None),
            ("oauth", None),
            ("monkey", None),
            ("keyboard", None),
        ] {
            assert_eq!(kinds(n), k, "{n}");
        }
    }

    fn red(text: &str) -> Vec<&str> {
        let t = text.as_bytes();
        let mut out = Vec::new();
        for kw in ["key", "token", "secret", "pass", "pwd", "auth", "_pat"] {
            let lower = text.to_ascii_lowercase();
            let mut from = 0;
            while let Some(p) = lower[from..].find(kw) {
                assignment(t, from + p, from + p + kw.len(), &mut out);
                from += p + 1;
            }
        }
        let mut spans: Vec<&str> = out.iter().map(|f| &text[f.start..f.end]).collect();
        spans.dedup();
        spans
    }

    #[test]
    fn assignments_redact_values() {
        assert_eq!(
            red("OPENAI_API_KEY=a8Fk2LmQ9xZ3pR7tW1vB"),
            ["a8Fk2LmQ9xZ3pR7tW1vB"]
        );
        assert_eq!(
            red(r#"{"client_secret": "a8Fk2LmQ9xZ3pR7tW1vB"}"#),
            ["a8Fk2LmQ9xZ3pR7tW1vB"]
        );
        assert_eq!(
            red(r#"{\"client_secret\": \"a8Fk2LmQ9xZ3pR7tW1vB\"}"#),
            ["a8Fk2LmQ9xZ3pR7tW1vB"]
        );
        assert_eq!(red("password = hunter2hunter2"), ["hunter2hunter2"]);
        assert_eq!(red("  db_password: hunter22"), ["hunter22"]);
        assert_eq!(red("DB_PASSWORD=correcthorse"), ["correcthorse"]);
        assert_eq!(
            red("--api-key a8Fk2LmQ9xZ3pR7tW1vB --verbose"),
            ["a8Fk2LmQ9xZ3pR7tW1vB"]
        );
        assert_eq!(red("--password=S3cr3t!pw"), ["S3cr3t!pw"]);
        assert_eq!(red("openssl pkcs12 -passin pass:S3cr3t!pw"), ["S3cr3t!pw"]);
        assert_eq!(
            red("aws configure set aws_secret_access_key a8Fk2LmQ9xZ3pR7tW1vB"),
            ["a8Fk2LmQ9xZ3pR7tW1vB"]
        );
        assert_eq!(
            red("npm config set //registry.npmjs.org/:_authToken a8Fk2LmQ9xZ3pR7tW1vB"),
            ["a8Fk2LmQ9xZ3pR7tW1vB"]
        );
        assert_eq!(
            red(r#"os.setenv("API_KEY", "a8Fk2LmQ9xZ3pR7tW1vB")"#),
            ["a8Fk2LmQ9xZ3pR7tW1vB"]
        );
        assert_eq!(
            red("Server=db;User Id=sa;Password=S3cr3t!pw;"),
            ["S3cr3t!pw"]
        );
        assert_eq!(
            red("machine api.example.com login me password S3cr3t!pw"),
            ["S3cr3t!pw"]
        );
        assert_eq!(
            red(r#"os.environ["API_KEY"] = "a8Fk2LmQ9xZ3pR7tW1vB""#),
            ["a8Fk2LmQ9xZ3pR7tW1vB"]
        );
        assert_eq!(red(r#"const password: string = "hunter2x";"#), ["hunter2x"]);
        assert_eq!(
            red(r#""auth": "dXNlcjpwYXNzd29yZA==""#),
            ["dXNlcjpwYXNzd29yZA=="]
        );
        assert_eq!(
            red("?access_token=a8Fk2LmQ9xZ3pR7tW1vB&x=1"),
            ["a8Fk2LmQ9xZ3pR7tW1vB"]
        );
        assert_eq!(
            red("    token: c2g52z.cmvnmerg405mnt15"),
            ["c2g52z.cmvnmerg405mnt15"]
        );
    }

    #[test]
    fn code_and_placeholders_stay() {
        for t in [
            "password = getpass()",
            "password = hashed",
            "password: str",
            "if password == other:",
            "password = self.password",
            "token = os.environ[\"TOKEN\"]",
            "OPENAI_API_KEY=${OPENAI_API_KEY}",
            "OPENAI_API_KEY=YOUR_API_KEY",
            "api_key: \"{{ secrets.OPENAI }}\"",
            "\"max_tokens\": 4096",
            "\"input_tokens\":1234,\"cached_input_tokens\":0",
            "{\"type\":\"token_count\"}",
            "--password-stdin",
            "--- PASS: TestLifecycle_SessionPersistence/pi (0.00s)",
            r#"{\"cmd\":\"pwd\",\"workdir\":\"/Users/dev/w\"}"#,
            r#"{"key": "a", "token": "x"}"#,
            "--token <TOKEN>",
            "secretName: my-app-secret",
            "key: user_id",
            "\"key\": \"0123456789abcdef0123456789abcdef\"",
            "SSH_KEY=/home/dev/.ssh/id_ed25519",
            "token: my-deploy-token-v2",
            "token = config.auth.token2",
            "        colon2_token: node.colon2_token,",
            "    type Token = private::IdentAny;",
            "    password: Option<String>,",
            "pub log_passwd: __u32,",
            "pub auth_data: __IncompleteArrayField<__u8>,",
            "    pub secret_len: u32,",
            "    // Parse local datetime `key = 1979-05-27T00:32:00.999999`.",
            "https://foo.bar/path?key=value%20with%20%27quotes%27",
            "pub const IOC_OPAL_SET_PW: u32 = 2183164128;",
            "        pub pw_passwd: *const c_char,",
            "    DEVSTAT_PRIORITY_PASS = 0x030,",
            "pub const ES_PASSWORD: i32 = 32i32;",
            "    pub Key: KERB_CRYPTO_KEY32,",
            "    pub ExportKey: BCryptExportKeyFn,",
            "    check_private_key_bytes: x25519_check_private_key_bytes,",
            "    pub m_generateKey: GenerateKey_t,",
            "    let key = \"core.logAllRefUpdates\";",
            "pub const MsV1_0ChangePassword: MSV1_0_PROTOCOL_MESSAGE_TYPE = 5i32;",
            "pub const B_MAIL_WRONG_PASSWORD: status_t = B_MAIL_ERROR_BASE + 2;",
            "pub const InheritPrivateKey: X509RequestInheritOptions = 3i32;",
            "    let key = \"http.schannelUseSSLCAInfo\";",
            "    pub credentials: MI_UserCredentials_0,",
            "        self, private_key: ed25519.Ed25519PrivateKey, f_priv: _FragL",
            "        RegEnumKey = win32api.RegEnumKey",
            "can be provided via the --username and --password options",
            "raise TypeError(\"pwd: expected bytes, got %s\" % type(pwd))",
            "        :type passphrase: :py:data:`bytes`",
            "            user_pass = '%s:%s' % (unquote(user),",
            "password: dbPassword",
            "public_key = \"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG\"",
            "\"integrity\": \"sha512-abcdEFGH1234+/==\"",
            "secret: https://vault.example.com/v1/secret",
        ] {
            assert!(red(t).is_empty(), "{t}: {:?}", red(t));
        }
    }
}
