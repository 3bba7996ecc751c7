//! Shell command lines: their segments, the program each runs and what a
//! build/test/lint command is for.
//!
//! Commands are looked at segment by segment (`cd x && pnpm test | tail` has
//! the segments `cd x` and `pnpm test`); the program is the first word after
//! environment assignments and wrappers such as `sudo` or `timeout 60`.

/// Programs that only look around (their failures teach nothing durable).
const EXPLORATION: &[&str] = &[
    "ls",
    "cat",
    "head",
    "tail",
    "sed",
    "awk",
    "rg",
    "grep",
    "egrep",
    "find",
    "fd",
    "wc",
    "pwd",
    "echo",
    "printf",
    "which",
    "type",
    "file",
    "stat",
    "tree",
    "nl",
    "less",
    "more",
    "diff",
    "git",
    "cd",
    "test",
    "[",
    "true",
    "false",
    "sleep",
    "date",
    "env",
    "du",
    "df",
    "ps",
    "kill",
    "lsof",
    "lsusb",
    "lspci",
    "lsblk",
    "dmesg",
    "id",
    "groups",
    "whoami",
    "uname",
    "hostname",
    "uptime",
    "free",
    "curl",
    "wget",
    "open",
    "xdg-open",
    "jq",
    "sort",
    "uniq",
    "cut",
    "tr",
    "realpath",
    "dirname",
    "basename",
    "readlink",
    "mkdir",
    "touch",
    "rm",
    "cp",
    "mv",
    "chmod",
    "apply_patch",
    "gh",
    "export",
    "set",
    "source",
    ".",
    "unset",
];

/// Whether a program only looks around (`ls`, `rg`, `git`, `cat`, …).
pub(super) fn is_exploration(program: &str) -> bool {
    EXPLORATION.contains(&program)
}

/// Words that only wrap the real program.
const WRAPPERS: &[&str] = &["sudo", "time", "nice", "env", "command", "exec", "nohup"];

/// What a working command is for, when its name says so.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Purpose {
    /// Runs tests.
    Tests,
    /// Builds or compiles.
    Build,
    /// Lints.
    Lint,
    /// Formats code.
    Format,
    /// Type-checks.
    Typecheck,
    /// Runs a project's check / CI target.
    Check,
    /// Starts or runs the program.
    Run,
    /// Starts the services the program needs (a database, a queue).
    Services,
    /// Installs dependencies.
    Install,
    /// A project task whose purpose the name does not tell.
    Task,
}

impl Purpose {
    /// The short description shown after a command, if there is one.
    pub(crate) fn label(self) -> Option<&'static str> {
        match self {
            Purpose::Tests => Some("tests"),
            Purpose::Build => Some("build"),
            Purpose::Lint => Some("lint"),
            Purpose::Format => Some("format"),
            Purpose::Typecheck => Some("type check"),
            Purpose::Check => Some("checks"),
            Purpose::Run => Some("runs the app"),
            Purpose::Services => Some("starts services"),
            Purpose::Install => Some("installs dependencies"),
            Purpose::Task => None,
        }
    }
}

/// Splits a command line into its `&&` / `||` / `;` / newline segments,
/// respecting quotes, and drops pipes into pagers and redirections.
pub(super) fn segments(command: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let chars: Vec<char> = command.chars().collect();
    let mut i = 0;
    let mut in_pipe = false;
    while i < chars.len() {
        let ch = chars[i];
        let next = chars.get(i + 1).copied();
        match quote {
            Some(q) => {
                if ch == q {
                    quote = None;
                }
                if !in_pipe {
                    cur.push(ch);
                }
            }
            None => match ch {
                '\'' | '"' => {
                    quote = Some(ch);
                    if !in_pipe {
                        cur.push(ch);
                    }
                }
                '&' if next == Some('&') => {
                    push_segment(&mut cur, &mut out);
                    in_pipe = false;
                    i += 1;
                }
                '|' if next == Some('|') => {
                    push_segment(&mut cur, &mut out);
                    in_pipe = false;
                    i += 1;
                }
                ';' | '\n' => {
                    push_segment(&mut cur, &mut out);
                    in_pipe = false;
                }
                '|' => in_pipe = true,
                _ if !in_pipe => cur.push(ch),
                _ => {}
            },
        }
        i += 1;
    }
    push_segment(&mut cur, &mut out);
    out
}

/// Ends the current segment (if it holds anything).
fn push_segment(cur: &mut String, out: &mut Vec<String>) {
    let seg = clean_segment(cur);
    if !seg.is_empty() {
        out.push(seg);
    }
    cur.clear();
}

/// Removes redirections (`2>&1`, `> file`) and extra spaces from one segment.
fn clean_segment(seg: &str) -> String {
    let mut words: Vec<&str> = Vec::new();
    let mut skip_next = false;
    for w in seg.split_whitespace() {
        if skip_next {
            skip_next = false;
            continue;
        }
        let is_redirect = w.starts_with('>')
            || w.starts_with("1>")
            || w.starts_with("2>")
            || w.starts_with("&>")
            || w == "<";
        if is_redirect {
            // `> file` keeps its target in the next word.
            skip_next = matches!(w, ">" | ">>" | "1>" | "2>" | "&>" | "<");
            continue;
        }
        words.push(w);
    }
    words.join(" ")
}

/// The words of a segment from the program on: environment assignments and
/// wrappers (`sudo`, `timeout 60`) removed.
pub(super) fn program_words(seg: &str) -> Vec<String> {
    let mut words: Vec<String> = seg
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c| c == '"' || c == '\'' || c == '(' || c == ')')
                .to_string()
        })
        .collect();
    while let Some(first) = words.first() {
        let is_assignment = first.split_once('=').is_some_and(|(k, _)| {
            !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        });
        if is_assignment || WRAPPERS.contains(&first.as_str()) {
            words.remove(0);
        } else if first == "timeout" {
            let n = timeout_wrapper_len(&words);
            words.drain(..n);
        } else {
            break;
        }
    }
    words
}

/// How many of `words` are a `timeout` wrapper (`timeout 60`, `timeout -s
/// KILL 8`): the word itself and the flags and durations after it; 0 when
/// the command does not start with one.
pub(super) fn timeout_wrapper_len<S: AsRef<str>>(words: &[S]) -> usize {
    if words.first().map(AsRef::as_ref) != Some("timeout") {
        return 0;
    }
    1 + words[1..]
        .iter()
        .take_while(|w| {
            let w = w.as_ref();
            w.starts_with('-') || w.starts_with(|c: char| c.is_ascii_digit())
        })
        .count()
}

/// The words of a command without the runner that only starts it in an
/// environment (`poetry run`, `uv run`, `bundle exec`, `npx`, `pnpm exec`,
/// a version manager's `fvm flutter`): `poetry run airflow dags test` is
/// `airflow dags test`.
pub(super) fn without_runner(mut words: Vec<String>) -> Vec<String> {
    let first = words.first().map(|w| program_name(w)).unwrap_or_default();
    let second = words.get(1).map(String::as_str).unwrap_or("");
    let skip = match (first.as_str(), second) {
        ("uv" | "poetry" | "pipenv" | "hatch" | "pdm" | "rye", "run") => 2,
        ("bundle" | "pnpm" | "yarn" | "npm" | "mise" | "rbenv" | "pyenv" | "nodenv", "exec") => 2,
        ("fvm" | "puro", "flutter" | "dart") => 1,
        ("npx" | "bunx" | "pnpx", _) => 1,
        _ => 0,
    };
    if words.len() > skip {
        words.drain(..skip);
    }
    words
}

/// Whether a word is an environment variable's name: upper-case letters,
/// digits and `_`, starting with a letter (`JAVA_HOME`, `CI`).
pub(super) fn is_env_name(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_uppercase())
        && name
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// The base name of a program word (`./gradlew` → `gradlew`).
pub(super) fn program_name(word: &str) -> String {
    let base = word.rsplit('/').next().unwrap_or(word);
    match base {
        "gradlew" => "gradle".to_string(),
        "mvnw" => "mvn".to_string(),
        "python3" => "python".to_string(),
        "docker-compose" => "docker".to_string(),
        "py.test" => "pytest".to_string(),
        other => other.to_string(),
    }
}

/// The first word that is not a flag (skipping the value of `--filter` & co.).
pub(super) fn first_operand(words: &[String]) -> Option<String> {
    let mut skip = false;
    for w in words {
        if skip {
            skip = false;
            continue;
        }
        if w.starts_with('-') {
            skip = matches!(
                w.as_str(),
                "--filter"
                    | "-F"
                    | "-C"
                    | "--dir"
                    | "--prefix"
                    | "-p"
                    | "--package"
                    | "-w"
                    | "--workspace"
                    | "-f"
                    | "--file"
                    | "-m"
            ) && !w.contains('=');
            continue;
        }
        if w.starts_with('+') {
            continue; // cargo +nightly
        }
        return Some(w.to_ascii_lowercase());
    }
    None
}

/// What a task or script name says it does (`test:unit` → tests).
fn purpose_from_name(name: &str) -> Option<Purpose> {
    let n = name.to_ascii_lowercase();
    let has = |k: &str| n.contains(k);
    if has("test") || has("spec") || has("e2e") || has("smoke") {
        Some(Purpose::Tests)
    } else if has("lint") || has("clippy") || has("vet") {
        Some(Purpose::Lint)
    } else if has("fmt") || has("format") || has("prettier") {
        Some(Purpose::Format)
    } else if has("typecheck") || has("tsc") || has("types") {
        Some(Purpose::Typecheck)
    } else if has("build") || has("compile") || has("bundle") {
        Some(Purpose::Build)
    } else if has("check") || n == "ci" || has("verify") || has("validate") {
        Some(Purpose::Check)
    } else if matches!(
        n.as_str(),
        "dev" | "start" | "serve" | "run" | "server" | "up"
    ) {
        Some(Purpose::Run)
    } else {
        None
    }
}

/// Whether `up …` names only services an app depends on (`up -d pg16`,
/// `up redis minio`), not the app itself.
fn starts_backing_services(compose: &[String]) -> bool {
    const BACKING: &[&str] = &[
        "pg",
        "postgres",
        "postgresql",
        "db",
        "database",
        "redis",
        "valkey",
        "mysql",
        "mariadb",
        "mongo",
        "mongodb",
        "kafka",
        "zookeeper",
        "minio",
        "localstack",
        "rabbitmq",
        "elasticsearch",
        "opensearch",
        "memcached",
        "nats",
        "mailhog",
        "mailpit",
        "keycloak",
        "clickhouse",
        "cassandra",
        "dynamodb",
        "azurite",
        "temporal",
    ];
    let services: Vec<String> = compose
        .iter()
        .skip(1)
        .filter(|w| !w.starts_with('-'))
        .map(|w| {
            w.trim_end_matches(|c: char| c.is_ascii_digit() || c == '-')
                .to_ascii_lowercase()
        })
        .collect();
    !services.is_empty()
        && services.iter().all(|s| {
            BACKING.contains(&s.as_str())
                || s.ends_with("db")
                || s.rsplit_once('-')
                    .is_some_and(|(_, kind)| BACKING.contains(&kind))
        })
}

/// What a direct tool invocation does (`vitest`, `eslint`, `tsc`).
fn purpose_of_tool(program: &str) -> Option<Purpose> {
    // A versioned binary is the tool: `clang-format-17`, `gcc-13`.
    let program = match program.trim_end_matches(|c: char| c.is_ascii_digit()) {
        versioned if versioned.len() < program.len() && versioned.ends_with('-') => {
            &versioned[..versioned.len() - 1]
        }
        _ => program,
    };
    Some(match program {
        "pytest" | "vitest" | "jest" | "mocha" | "rspec" | "phpunit" | "pest" | "playwright"
        | "cypress" | "tox" | "nox" | "ctest" | "bats" | "busted" | "gotestsum" | "behave"
        | "ava" | "karma" => Purpose::Tests,
        "eslint" | "ruff" | "flake8" | "pylint" | "golangci-lint" | "staticcheck" | "revive"
        | "shellcheck" | "biome" | "oxlint" | "clippy-driver" | "rubocop" | "standardrb"
        | "erb_lint" | "erblint" | "credo" | "stylelint" | "hadolint" | "yamllint"
        | "markdownlint" | "markdownlint-cli2" | "ansible-lint" | "tflint" | "actionlint"
        | "swiftlint" | "ktlint" | "detekt" | "phpcs" | "clang-tidy" | "cppcheck" | "sqlfluff"
        | "bandit" | "vale" | "clj-kondo" | "eastwood" => Purpose::Lint,
        "prettier" | "black" | "rustfmt" | "isort" | "gofmt" | "goimports" | "gofumpt"
        | "clang-format" | "shfmt" | "stylua" | "dprint" | "taplo" | "php-cs-fixer"
        | "swiftformat" | "ktfmt" | "yapf" | "autopep8" | "cmake-format" | "cljfmt" | "zprint"
        | "ocamlformat" | "ormolu" | "fourmolu" | "zig-fmt" => Purpose::Format,
        "tsc" | "mypy" | "pyright" | "basedpyright" | "vue-tsc" | "phpstan" | "psalm" | "flow"
        | "pyre" | "pytype" => Purpose::Typecheck,
        _ => return None,
    })
}

/// Classifies a segment's words (program first) as a build/test/… command.
pub(super) fn classify(words: &[String]) -> Option<Purpose> {
    let program = program_name(words.first()?);
    let rest = &words[1..];
    let sub = first_operand(rest).unwrap_or_default();
    let after_sub = || -> Vec<String> {
        let i = rest
            .iter()
            .position(|w| w.to_ascii_lowercase() == sub)
            .map_or(rest.len(), |i| i + 1);
        rest[i..].to_vec()
    };
    let by_sub = |table: &[(&str, Purpose)]| table.iter().find(|(s, _)| *s == sub).map(|(_, p)| *p);
    match program.as_str() {
        "cargo" => by_sub(&[
            ("test", Purpose::Tests),
            ("nextest", Purpose::Tests),
            ("build", Purpose::Build),
            ("check", Purpose::Check),
            ("clippy", Purpose::Lint),
            ("fmt", Purpose::Format),
            ("run", Purpose::Run),
            ("bench", Purpose::Tests),
            ("watch", Purpose::Check),
        ]),
        "make" | "just" | "rake" | "task" => {
            if sub.is_empty() {
                Some(if program == "make" {
                    Purpose::Build
                } else {
                    Purpose::Task
                })
            } else {
                Some(purpose_from_name(&sub).unwrap_or(Purpose::Task))
            }
        }
        "mise" => match sub.as_str() {
            "exec" | "x" => {
                let inner: Vec<String> = rest
                    .iter()
                    .skip_while(|w| *w != "--")
                    .skip(1)
                    .cloned()
                    .collect();
                classify(&inner)
            }
            "run" | "r" => {
                let target = first_operand(&after_sub())?;
                Some(purpose_from_name(&target).unwrap_or(Purpose::Task))
            }
            "install" => Some(Purpose::Install),
            _ => None,
        },
        "npm" => match sub.as_str() {
            "test" | "t" => Some(Purpose::Tests),
            "install" | "i" | "ci" => Some(Purpose::Install),
            "run" | "run-script" => {
                let target = first_operand(&after_sub())?;
                Some(purpose_from_name(&target).unwrap_or(Purpose::Task))
            }
            "start" => Some(Purpose::Run),
            _ => None,
        },
        "pnpm" | "yarn" | "bun" => match sub.as_str() {
            // `bun add pdf-lib` adds one package for one task; it is no
            // way of working on the project.
            "install" | "i" => Some(Purpose::Install),
            "test" => Some(Purpose::Tests),
            "run" => {
                let target = first_operand(&after_sub())?;
                Some(purpose_from_name(&target).unwrap_or(Purpose::Task))
            }
            "exec" | "dlx" | "x" => {
                let inner = after_sub();
                classify(&inner)
            }
            "" => (program == "yarn").then_some(Purpose::Install),
            // `pnpm turbo test`: a binary of the project's, run by name.
            other => purpose_from_name(other)
                .or_else(|| purpose_of_tool(other))
                .or_else(|| classify(&rest[rest.iter().position(|w| *w == other)?..])),
        },
        // Monorepo task runners: `turbo test`, `turbo run build`, `nx test web`.
        "turbo" | "nx" => {
            let target = if sub == "run" {
                first_operand(&after_sub())?
            } else {
                sub
            };
            purpose_from_name(&target)
        }
        "flutter" | "dart" => match sub.as_str() {
            "test" => Some(Purpose::Tests),
            "analyze" => Some(Purpose::Lint),
            "format" => Some(Purpose::Format),
            "build" => Some(Purpose::Build),
            // `dart run build_runner build` generates code; it runs no app.
            "run" => (program == "flutter").then_some(Purpose::Run),
            "pub" => {
                (first_operand(&after_sub()).as_deref() == Some("get")).then_some(Purpose::Install)
            }
            _ => None,
        },
        // A version manager running the SDK it pinned: `fvm flutter test`.
        "fvm" | "puro" => match sub.as_str() {
            "flutter" | "dart" => classify(rest),
            "install" => Some(Purpose::Install),
            _ => None,
        },
        "npx" | "bunx" => {
            let inner: Vec<String> = rest
                .iter()
                .filter(|w| !w.starts_with('-'))
                .cloned()
                .collect();
            classify(&inner)
        }
        "uv" | "poetry" | "pipenv" | "hatch" | "pdm" => match sub.as_str() {
            // `poetry run pytest`, or a script: `hatch run test:unit`.
            // …or the project's own command line (`uv run herb export`).
            "run" => {
                let after = after_sub();
                classify(&after)
                    .or_else(|| first_operand(&after).and_then(|s| purpose_from_name(&s)))
                    .or_else(|| (!after.is_empty()).then_some(Purpose::Task))
            }
            "sync" | "install" => Some(Purpose::Install),
            "pip" => Some(Purpose::Install),
            _ => None,
        },
        "bundle" => match sub.as_str() {
            "exec" => classify(&after_sub()),
            "install" => Some(Purpose::Install),
            _ => None,
        },
        "python" => {
            if rest.first().is_some_and(|w| w == "-m") {
                classify(&rest[1..])
            } else if sub == "manage.py" {
                let target = first_operand(&after_sub())?;
                Some(purpose_from_name(&target).unwrap_or(Purpose::Task))
            } else {
                None
            }
        }
        "unittest" => Some(Purpose::Tests),
        // Laravel's `php artisan test`, `php artisan serve`, its own commands.
        "php" if sub == "artisan" => match first_operand(&after_sub()).as_deref() {
            Some("serve") => Some(Purpose::Run),
            Some(target) => Some(purpose_from_name(target).unwrap_or(Purpose::Task)),
            None => None,
        },
        // Laravel Sail runs the same commands in its containers:
        // `sail artisan test` is `php artisan test`, `sail composer install`.
        "sail" => match sub.as_str() {
            "artisan" => {
                let mut inner = vec!["php".to_string()];
                inner.extend(rest.iter().cloned());
                classify(&inner)
            }
            "up" => Some(Purpose::Run),
            _ => classify(rest),
        },
        // Leiningen: `lein test`, `lein cljfmt check`, `lein eastwood`.
        "lein" => match sub.as_str() {
            "test" | "midje" | "kaocha" => Some(Purpose::Tests),
            "cljfmt" | "zprint" => Some(Purpose::Format),
            "eastwood" | "kibit" | "bikeshed" | "clj-kondo" => Some(Purpose::Lint),
            "uberjar" | "jar" | "compile" => Some(Purpose::Build),
            "run" | "ring" => Some(Purpose::Run),
            "deps" => Some(Purpose::Install),
            _ => None,
        },
        // The Clojure CLI runs an alias: `clojure -M:test`, `clj -X:lint`.
        "clojure" | "clj" => rest
            .iter()
            .find_map(|w| w.strip_prefix("-M:").or_else(|| w.strip_prefix("-X:")))
            .and_then(purpose_from_name),
        // `opam install . --deps-only`: the project's dependencies.
        "opam" if sub == "install" && rest.iter().any(|w| w == "--deps-only") => {
            Some(Purpose::Install)
        }
        "go" => by_sub(&[
            ("test", Purpose::Tests),
            ("build", Purpose::Build),
            ("vet", Purpose::Lint),
            ("run", Purpose::Run),
            ("generate", Purpose::Build),
        ]),
        "mix" => match sub.as_str() {
            "test" => Some(Purpose::Tests),
            "compile" => Some(Purpose::Build),
            "format" => Some(Purpose::Format),
            "credo" | "dialyzer" => Some(Purpose::Lint),
            "phx.server" => Some(Purpose::Run),
            "deps.get" => Some(Purpose::Install),
            // The project's own tasks (`mix tide.fixtures`).
            "" => None,
            s => Some(purpose_from_name(s).unwrap_or(Purpose::Task)),
        },
        "gradle" => Some(match sub.as_str() {
            "test" => Purpose::Tests,
            "build" | "assemble" => Purpose::Build,
            "check" => Purpose::Check,
            "run" | "bootrun" => Purpose::Run,
            "" => return None,
            // The build's own tasks (`:sim:smoke`, `openApiGenerate`).
            s => purpose_from_name(s).unwrap_or(Purpose::Task),
        }),
        "mvn" => by_sub(&[
            ("test", Purpose::Tests),
            ("package", Purpose::Build),
            ("compile", Purpose::Build),
            ("install", Purpose::Build),
            ("verify", Purpose::Check),
        ]),
        "dotnet" | "swift" | "zig" | "deno" | "bazel" | "bazelisk" => by_sub(&[
            ("test", Purpose::Tests),
            ("build", Purpose::Build),
            ("run", Purpose::Run),
            ("format", Purpose::Format),
            ("fmt", Purpose::Format),
            ("lint", Purpose::Lint),
            ("check", Purpose::Check),
            ("task", Purpose::Task),
            ("restore", Purpose::Install),
        ]),
        "docker" => {
            let inner = if sub == "compose" {
                after_sub()
            } else {
                return None;
            };
            match first_operand(&inner).as_deref() {
                Some("up") if starts_backing_services(&inner) => Some(Purpose::Services),
                Some("up" | "run") => Some(Purpose::Run),
                Some("build") => Some(Purpose::Build),
                _ => None,
            }
        }
        // `cmake --build …` builds; `cmake --preset dev` or `cmake -S . -B
        // build` configures, the first step of every build.
        "cmake" => rest
            .iter()
            .any(|w| {
                ["--build", "--preset", "-S", "-B"].contains(&w.as_str())
                    || w.starts_with("--preset=")
            })
            .then_some(Purpose::Build),
        "ansible-playbook" => Some(if rest.iter().any(|w| w == "--check" || w == "-C") {
            Purpose::Check
        } else {
            Purpose::Task
        }),
        "molecule" => by_sub(&[("test", Purpose::Tests), ("verify", Purpose::Tests)]),
        "terraform" | "tofu" | "terragrunt" => by_sub(&[
            ("validate", Purpose::Check),
            ("plan", Purpose::Check),
            ("fmt", Purpose::Format),
            ("test", Purpose::Tests),
            ("init", Purpose::Install),
        ]),
        "helm" => by_sub(&[("lint", Purpose::Lint), ("template", Purpose::Check)]),
        "nix" => match sub.as_str() {
            "fmt" => Some(Purpose::Format),
            "build" => Some(Purpose::Build),
            "flake" => {
                (first_operand(&after_sub()).as_deref() == Some("check")).then_some(Purpose::Check)
            }
            _ => None,
        },
        // A watcher that re-runs checks, tests or the app on each change.
        "bacon" => Some(Purpose::Check),
        "dvc" => match sub.as_str() {
            "repro" => Some(Purpose::Build),
            "metrics" | "plots" | "status" | "diff" => Some(Purpose::Check),
            "pull" | "fetch" | "checkout" => Some(Purpose::Install),
            _ => None,
        },
        "nixos-rebuild" | "darwin-rebuild" | "home-manager" => {
            by_sub(&[("build", Purpose::Build), ("dry-build", Purpose::Build)])
        }
        other => purpose_of_tool(other).or_else(|| purpose_of_subcommand(rest, &sub)),
    }
}

/// What a program with no table of its own does, by a subcommand whose
/// name is a plain verb of the trade (`flutter test`, `cabal build`, `sbt
/// compile`, `xcodebuild test`, `dart analyze`, `pod install`, `flutter pub
/// get`): "test" or "build" inside another word (`contest`) is no verb, and
/// an install or a run of a named thing (`brew install ffmpeg`, `kubectl
/// run debug`) is one task's.
fn purpose_of_subcommand(rest: &[String], sub: &str) -> Option<Purpose> {
    let after: Vec<&String> = rest
        .iter()
        .skip_while(|w| w.as_str() != sub)
        .skip(1)
        .filter(|w| !w.starts_with('-'))
        .collect();
    let alone = after.is_empty();
    match sub {
        "test" | "tests" | "e2e" | "bench" => Some(Purpose::Tests),
        "build" | "compile" | "assemble" | "package" => Some(Purpose::Build),
        "lint" | "analyze" | "analyse" => Some(Purpose::Lint),
        "fmt" | "format" => Some(Purpose::Format),
        "typecheck" | "type-check" => Some(Purpose::Typecheck),
        "check" | "verify" => Some(Purpose::Check),
        "install" | "restore" | "sync" | "bootstrap" if alone => Some(Purpose::Install),
        "pub" | "deps" if after.first().is_some_and(|w| *w == "get") && after.len() == 1 => {
            Some(Purpose::Install)
        }
        "serve" | "dev" | "start" | "run" if alone => Some(Purpose::Run),
        _ => None,
    }
}

/// Whether a command is tied to one moment: it names single source files,
/// one test (`-run TestX`, `-k name`, `path::test`) or an absolute path.
pub(super) fn is_specific(command: &str) -> bool {
    narrows_tests(command)
        || command.split_whitespace().any(|w| {
            let w = w.trim_matches(|c| c == '"' || c == '\'');
            names_a_file(w)
                || is_an_id(w)
                || w.starts_with('/')
                || w.starts_with("~/")
                || w.contains("=/")
                || pins_a_version(w)
        })
}

/// Whether a command selects some tests (`-run X`, `-k name`, `a::b`):
/// narrowing a failing run down is debugging, not a fix.
pub(super) fn narrows_tests(command: &str) -> bool {
    const TEST_SELECTORS: &[&str] = &[
        "-run",
        "-k",
        "-t",
        "--test",
        "--grep",
        "-g",
        "--testNamePattern",
        "--test-name-pattern",
        "--testPathPattern",
        "-R",
        "--tests-regex",
        "--select",
        "--models",
    ];
    // `zig build test -Dtest-filter='…'`, `--filter=X`, `-k=X`.
    command.split_whitespace().any(|w| {
        TEST_SELECTORS.contains(&w)
            || w.starts_with("-run=")
            || w.contains("::")
            || w.contains("test-filter=")
            || w.starts_with("--filter=")
    })
}

/// Whether a word is a number too big for a port (a station, ticket or
/// record id: `--station 8443970`), which names one thing of one task.
fn is_an_id(word: &str) -> bool {
    let digits = word.rsplit('=').next().unwrap_or(word);
    digits.len() >= 5
        && digits.chars().all(|c| c.is_ascii_digit())
        && digits.parse::<u64>().map_or(true, |n| n > 65_535)
}

/// Whether a word pins one package version (`vite@5.4.8`, `flask==3.0.2`):
/// an upgrade done once, not how the project is worked on.
fn pins_a_version(word: &str) -> bool {
    ["@", "=="].iter().any(|sep| {
        word.rsplit_once(sep).is_some_and(|(name, v)| {
            !name.is_empty() && v.starts_with(|c: char| c.is_ascii_digit())
        })
    })
}

/// Whether a word is the path of a single source or config file.
fn names_a_file(word: &str) -> bool {
    const EXTENSIONS: &[&str] = &[
        "go", "rs", "ts", "tsx", "js", "jsx", "mjs", "py", "rb", "ex", "exs", "java", "kt", "c",
        "h", "cc", "cpp", "cs", "swift", "php", "lua", "sh", "json", "yaml", "yml", "toml", "md",
        "sql", "txt", "html", "css",
    ];
    if word.starts_with('-') || word == "manage.py" {
        return false;
    }
    word.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty() && !stem.ends_with(['.', '/']) && EXTENSIONS.contains(&ext)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn segments_split_on_operators_and_drop_pipes() {
        assert_eq!(
            segments("cd web && pnpm test 2>&1 | tail -20; echo 'a;b'"),
            vec!["cd web", "pnpm test", "echo 'a;b'"]
        );
    }

    #[test]
    fn programs_without_a_table_are_classified_by_their_verb() {
        for (command, purpose) in [
            ("flutter test", Some(Purpose::Tests)),
            ("cabal build all", Some(Purpose::Build)),
            ("sbt compile", Some(Purpose::Build)),
            (
                "xcodebuild test -scheme PantryPal -destination 'platform=iOS Simulator,name=iPhone 16'",
                Some(Purpose::Tests),
            ),
            ("dart analyze", Some(Purpose::Lint)),
            ("pod install", Some(Purpose::Install)),
            ("flutter pub get", Some(Purpose::Install)),
            ("flutter run", Some(Purpose::Run)),
            ("brew install ffmpeg", None),
            ("bun add pdf-lib", None),
            ("pnpm install", Some(Purpose::Install)),
            ("kubectl run debug --image=busybox", None),
            ("codeforces contest 1900", None),
        ] {
            assert_eq!(classify(&words(command)), purpose, "{command}");
        }
    }

    #[test]
    fn classifies_common_tools() {
        assert_eq!(
            classify(&words("cargo test --locked")),
            Some(Purpose::Tests)
        );
        assert_eq!(
            classify(&words("pnpm --filter web lint")),
            Some(Purpose::Lint)
        );
        assert_eq!(classify(&words("npm run build")), Some(Purpose::Build));
        assert_eq!(classify(&words("pnpm turbo test")), Some(Purpose::Tests));
        assert_eq!(classify(&words("turbo run build")), Some(Purpose::Build));
        assert_eq!(classify(&words("nx test web")), Some(Purpose::Tests));
        assert_eq!(classify(&words("mise run test:e2e")), Some(Purpose::Tests));
        assert_eq!(classify(&words("uv run pytest -q")), Some(Purpose::Tests));
        assert_eq!(
            classify(&words("hatch run test:unit")),
            Some(Purpose::Tests)
        );
        assert_eq!(
            without_runner(words("poetry run airflow dags test x")),
            words("airflow dags test x")
        );
        assert_eq!(classify(&words("make")), Some(Purpose::Build));
        assert_eq!(classify(&words("fvm flutter test")), Some(Purpose::Tests));
        assert_eq!(
            classify(&words("./vendor/bin/sail artisan test --parallel")),
            Some(Purpose::Tests)
        );
        assert_eq!(
            classify(&words("./vendor/bin/sail composer install")),
            Some(Purpose::Install)
        );
        assert_eq!(classify(&words("flutter analyze")), Some(Purpose::Lint));
        assert_eq!(classify(&words("fvm dart format .")), Some(Purpose::Format));
        assert_eq!(
            classify(&words("fvm flutter pub get")),
            Some(Purpose::Install)
        );
        assert_eq!(classify(&words("dart run build_runner build")), None);
        assert_eq!(
            without_runner(words("fvm flutter build apk")),
            words("flutter build apk")
        );
        assert_eq!(
            classify(&words("npx tsc --noEmit")),
            Some(Purpose::Typecheck)
        );
        assert_eq!(classify(&words("docker compose up -d")), Some(Purpose::Run));
        assert_eq!(
            classify(&words("docker compose up -d pg16 redis")),
            Some(Purpose::Services)
        );
        assert_eq!(
            classify(&words("docker compose up web")),
            Some(Purpose::Run)
        );
        assert_eq!(classify(&words("npm view react")), None);
        assert_eq!(classify(&words("git status")), None);
        for (command, purpose) in [
            ("php artisan test --parallel", Purpose::Tests),
            ("php artisan serve", Purpose::Run),
            ("lein test", Purpose::Tests),
            ("lein cljfmt check", Purpose::Format),
            ("clj-kondo --lint src test", Purpose::Lint),
            ("clojure -M:test", Purpose::Tests),
            (
                "opam install . --deps-only --with-test -y",
                Purpose::Install,
            ),
            ("bundle exec standardrb", Purpose::Lint),
            ("cmake --preset dev-clang", Purpose::Build),
            (
                "ansible-playbook -i hosts.yml site.yml --check",
                Purpose::Check,
            ),
            ("ansible-playbook -i hosts.yml site.yml", Purpose::Task),
            ("terraform validate", Purpose::Check),
            ("./gradlew :sim:smoke", Purpose::Tests),
            ("./gradlew openApiGenerate", Purpose::Task),
            ("mix tide.fixtures", Purpose::Task),
            ("uv run herb export --dwc", Purpose::Task),
            ("clang-format-17 --dry-run", Purpose::Format),
            ("nix fmt", Purpose::Format),
            ("uv run dvc metrics diff main", Purpose::Check),
            ("nix flake check", Purpose::Check),
            ("nixos-rebuild build --flake .#kestrel", Purpose::Build),
        ] {
            assert_eq!(classify(&words(command)), Some(purpose), "{command}");
        }
        assert!(narrows_tests("ctest --test-dir build -R antimeridian"));
        assert!(is_specific(
            "go run ./cmd/tidewatch predict --station 8443970 --days 1"
        ));
        assert!(!is_specific("go run ./cmd/tidewatch serve --port 8080"));
        assert!(!is_specific("go run ./cmd/server --port 50051"));
        assert_eq!(
            classify(&words("mise exec -- go test ./x")),
            Some(Purpose::Tests)
        );
        assert_eq!(
            program_words("FOO=1 timeout 60 go test ./..."),
            words("go test ./...")
        );
    }

    #[test]
    fn one_off_commands_are_specific() {
        assert!(is_specific("pnpm up vite@5.4.8"));
        assert!(is_specific("pip install flask==3.0.2"));
        assert!(!is_specific("pnpm add -D @types/node"));
        assert!(is_specific("gofmt -w internal/sem/parser.go"));
        assert!(is_specific(
            "go test ./internal/sem -run TestDebugSQLTree -v"
        ));
        assert!(is_specific("pytest tests/test_a.py::test_b"));
        assert!(!is_specific("go test ./..."));
        assert!(!is_specific("mix deps.get"));
    }
}
