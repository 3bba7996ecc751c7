//! Passwords passed to well-known commands as short flags, which the
//! secret-name rule cannot see: `docker login -p X` (any `… login`),
//! `mysql -pX`, `sshpass -p X`, `redis-cli -a X`, `mongosh -p X`,
//! `curl -u user:X`.

use super::Finding;
use super::entropy::looks_like_password;
use super::lex::{alnum, ends_word, find, run, starts_word};
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
    /// `curl -u user:X`, `--user user:X`.
    Curl,
}

/// The arguments on the rest of the line: `(start, end)` of each, quotes removed.
fn args(text: &[u8], from: usize, to: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = from;
    while i < to {
        i = run(text, i, to - i, |b| b == b' ' || b == b'\t');
        if i >= to {
            break;
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
            let end = run(text, i, to - i, |b| b != b' ' && b != b'\t');
            out.push((i, end));
            i = end;
        }
    }
    out
}

fn push(text: &[u8], start: usize, end: usize, out: &mut Vec<Finding>) {
    let v = &text[start..end];
    if !is_harmless(v) && looks_like_password(v) {
        out.push(Finding {
            rule: "cli_password",
            start,
            end,
        });
    }
}

/// Looks at the arguments after the command name at `hit..hit_end`.
pub(super) fn command(text: &[u8], hit: usize, hit_end: usize, cmd: Cmd, out: &mut Vec<Finding>) {
    if !starts_word(text, hit) {
        return;
    }
    let name_end = match cmd {
        Cmd::Mysql | Cmd::Mongo => run(text, hit_end, 16, alnum),
        _ if ends_word(text, hit_end) => hit_end,
        _ => return,
    };
    // Shell quotes are plain `"` here, so only line breaks (real or escaped) end the command.
    let mut end = run(text, name_end, 2048, |b| b != b'\n' && b != b'\r');
    if let Some(p) = find(&text[name_end..end], b"\\n") {
        end = name_end + p;
    }
    let list = args(text, name_end, end);
    let arg = |i: usize| &text[list[i].0..list[i].1];
    for i in 0..list.len() {
        let a = arg(i);
        let next = list.get(i + 1).copied();
        match cmd {
            Cmd::Login | Cmd::Sshpass | Cmd::Mongo if a == b"-p" => {
                if let Some((s, e)) = next {
                    push(text, s, e, out);
                }
            }
            Cmd::Redis if a == b"-a" => {
                if let Some((s, e)) = next {
                    push(text, s, e, out);
                }
            }
            Cmd::Mysql if a.len() > 2 && a.starts_with(b"-p") => {
                push(text, list[i].0 + 2, list[i].1, out);
            }
            Cmd::Curl if a == b"-u" || a == b"--user" || (a.starts_with(b"-u") && a.len() > 2) => {
                let (s, e) = if a.len() > 2 && a[1] == b'u' {
                    (list[i].0 + 2, list[i].1)
                } else if let Some(n) = next {
                    n
                } else {
                    continue;
                };
                if let Some(c) = text[s..e].iter().position(|&b| b == b':') {
                    push(text, s + c + 1, e, out);
                }
            }
            _ => {}
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
    fn prompts_and_references_stay() {
        assert!(red("mysql -u root -p shop", "mysql", Cmd::Mysql).is_empty());
        assert!(red("mysql -P 3306 -h db", "mysql", Cmd::Mysql).is_empty());
        assert!(red("docker login -u me --password-stdin", "login", Cmd::Login).is_empty());
        assert!(red("docker login -p \"$PASS\" x", "login", Cmd::Login).is_empty());
        assert!(red("curl -u admin https://x", "curl", Cmd::Curl).is_empty());
        assert!(red("curl -u $USER:$TOKEN https://x", "curl", Cmd::Curl).is_empty());
        assert!(red("the login page", "login", Cmd::Login).is_empty());
    }
}
