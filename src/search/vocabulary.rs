//! A small vocabulary of developer synonyms: words that name the same job
//! (deploy / release / ship), or a job and the tools that do it (type-check /
//! mypy / tsc). A query word found here is widened to its whole group, so
//! "how do we ship?" finds "production deploys go through `make ship-prod`".
//!
//! Entries are lower-case base forms; multi-word entries are searched as
//! phrases. Groups may overlap: a word takes every group it is in.

/// The synonym groups.
pub const GROUPS: &[&[&str]] = &[
    &[
        "deploy",
        "deployment",
        "release",
        "ship",
        "publish",
        "rollout",
        "production",
        "prod",
        "live",
    ],
    &[
        "test",
        "spec",
        "suite",
        "pytest",
        "jest",
        "vitest",
        "mocha",
        "rspec",
        "nextest",
        "phpunit",
        "junit",
        "unittest",
        "e2e",
        "playwright",
        "cypress",
        "integration",
    ],
    &[
        "lint",
        "linter",
        "clippy",
        "eslint",
        "ruff",
        "flake8",
        "pylint",
        "golangci",
        "credo",
        "rubocop",
        "shellcheck",
        "static analysis",
        "vet",
        "staticcheck",
    ],
    &[
        "format",
        "formatter",
        "fmt",
        "prettier",
        "black",
        "rustfmt",
        "gofmt",
        "isort",
        "style",
        "indent",
    ],
    &[
        "typecheck",
        "type check",
        "types",
        "type",
        "mypy",
        "pyright",
        "tsc",
        "dialyzer",
        "typing",
    ],
    &[
        "build", "compile", "compiler", "bundle", "webpack", "vite", "esbuild", "make",
    ],
    &["start", "launch", "serve", "boot", "dev server", "up"],
    &[
        "install",
        "dependency",
        "deps",
        "package",
        "library",
        "lockfile",
        "vendor",
        "module",
    ],
    &[
        "package manager",
        "npm",
        "pnpm",
        "yarn",
        "bun",
        "pip",
        "uv",
        "poetry",
        "bundler",
        "cargo",
    ],
    &[
        "port",
        "listen",
        "bind",
        "localhost",
        "host",
        "address",
        "url",
    ],
    &[
        "env",
        "environment",
        "variable",
        "setting",
        "config",
        "configuration",
        "dotenv",
        "option",
    ],
    &[
        "database",
        "db",
        "postgres",
        "postgresql",
        "psql",
        "mysql",
        "sqlite",
        "sql",
        "redis",
    ],
    &[
        "migrate",
        "migration",
        "schema",
        "alembic",
        "sqlx",
        "prisma",
        "flyway",
        "liquibase",
    ],
    &[
        "ci",
        "pipeline",
        "workflow",
        "github actions",
        "actions",
        "jenkins",
        "gitlab",
        "buildkite",
        "circleci",
    ],
    &[
        "flaky",
        "flake",
        "intermittent",
        "intermittently",
        "nondeterministic",
        "sporadic",
        "random",
        "retry",
        "timeout",
    ],
    &[
        "secret",
        "credential",
        "token",
        "password",
        "apikey",
        "api key",
        "vault",
        "keychain",
        "1password",
    ],
    &[
        "error",
        "failure",
        "fail",
        "crash",
        "exception",
        "panic",
        "broken",
        "bug",
        "traceback",
    ],
    &[
        "fix",
        "workaround",
        "solution",
        "resolve",
        "instead",
        "worked",
    ],
    &[
        "docs",
        "documentation",
        "readme",
        "guide",
        "manual",
        "docstring",
        "mkdocs",
        "sphinx",
    ],
    &["version", "reports", "runtime"],
    &["branch", "git", "checkout", "rebase", "trunk", "main"],
    &[
        "review",
        "pr",
        "pull request",
        "merge request",
        "approve",
        "approval",
        "reviewer",
        "codeowners",
    ],
    &[
        "commit",
        "commit message",
        "conventional",
        "changelog",
        "sign",
    ],
    &["log", "logging", "logger", "tracing", "trace", "verbose"],
    &[
        "debug",
        "debugging",
        "troubleshoot",
        "diagnose",
        "inspect",
        "breakpoint",
        "gdb",
    ],
    &[
        "feature flag",
        "flag",
        "toggle",
        "launchdarkly",
        "unleash",
        "rollout",
    ],
    &[
        "benchmark",
        "bench",
        "perf",
        "performance",
        "profile",
        "profiling",
        "slow",
        "fast",
    ],
    &[
        "upgrade",
        "update",
        "bump",
        "dependabot",
        "renovate",
        "outdated",
    ],
    &[
        "container",
        "docker",
        "image",
        "compose",
        "podman",
        "kubernetes",
        "k8s",
        "helm",
    ],
    &["cache", "caching", "cached", "memoize"],
    &[
        "auth",
        "authentication",
        "login",
        "oauth",
        "sso",
        "jwt",
        "signin",
    ],
    &[
        "api", "endpoint", "route", "rest", "graphql", "grpc", "handler",
    ],
    &[
        "frontend",
        "ui",
        "web",
        "css",
        "react",
        "vue",
        "svelte",
        "component",
    ],
    &["backend", "server", "service", "daemon"],
    &[
        "generated",
        "generate",
        "codegen",
        "autogenerated",
        "do not edit",
    ],
    &[
        "monitor",
        "metrics",
        "alert",
        "grafana",
        "prometheus",
        "sentry",
        "dashboard",
    ],
    &[
        "queue",
        "worker",
        "job",
        "background",
        "celery",
        "sidekiq",
        "cron",
    ],
    &["coverage", "tarpaulin", "istanbul", "codecov", "nyc"],
    &["schedule", "nightly", "scheduled", "cron", "daily"],
    &["python", "py", "pip", "venv", "virtualenv"],
    &["javascript", "js", "node", "nodejs", "typescript", "ts"],
    &["rust", "cargo", "crate", "rustc"],
    &["go", "golang"],
    &["ruby", "rails", "gem", "bundle", "rake"],
    &["elixir", "mix", "phoenix", "hex"],
    &[
        "prefer",
        "preference",
        "always",
        "never",
        "rule",
        "convention",
    ],
    &["mock", "stub", "fake", "fixture"],
    &["snapshot", "insta", "golden"],
    &["seed", "fixture", "sample data"],
];

/// Every entry of every group `word` is in (compared by [`stem`]).
pub fn synonyms(word: &str) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for group in GROUPS {
        if group.iter().any(|entry| stem(entry) == stem(word)) {
            for entry in *group {
                if !out.contains(entry) {
                    out.push(entry);
                }
            }
        }
    }
    out
}

/// A crude English stem for vocabulary look-up (applied to query words and
/// entries alike): lower case; one of the endings `-ies`, `-ing`, `-ed`,
/// `-es`, `-s` removed from a longer word; then a final `e` and a doubled
/// final consonant dropped (`shipping`, `ships` and `ship` agree; so do
/// `caching` and `cache`).
pub fn stem(word: &str) -> String {
    let mut w = word.to_lowercase();
    for (suffix, keep) in [("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")] {
        if let Some(base) = w.strip_suffix(suffix)
            && base.len() >= 3
            && !(suffix == "s" && base.ends_with('s'))
        {
            w = format!("{base}{keep}");
            break;
        }
    }
    if w.len() > 3 && w.ends_with('e') {
        w.pop();
    }
    let b = w.as_bytes();
    if b.len() > 3
        && b[b.len() - 1] == b[b.len() - 2]
        && !matches!(b[b.len() - 1], b'l' | b's' | b'z' | b'e' | b'o')
        && b[b.len() - 1].is_ascii_alphabetic()
    {
        w.pop();
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_word_takes_its_groups_and_endings_do_not_matter() {
        let ship = synonyms(&stem("shipping"));
        assert!(
            ship.contains(&"deploy") && ship.contains(&"release"),
            "{ship:?}"
        );
        let types = synonyms(&stem("types"));
        assert!(
            types.contains(&"mypy") && types.contains(&"tsc"),
            "{types:?}"
        );
        assert!(synonyms(&stem("zebra")).is_empty());
        assert_eq!(stem("tests"), "test");
        assert_eq!(stem("dependencies"), stem("dependency"));
        assert_eq!(stem("shipping"), stem("ship"));
        assert_eq!(stem("caching"), stem("cache"));
        assert_eq!(stem("releases"), stem("release"));
        assert_eq!(stem("class"), "class");
    }
}
