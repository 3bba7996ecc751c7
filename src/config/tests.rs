use super::*;

fn opts_with(file: Option<&str>, env: &[(&str, &str)]) -> (LoadOptions, PathBuf) {
    let dir = std::env::temp_dir().join(format!("memkit-cfg-{}", crate::util::ids::new_uuid_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut vars: Vec<(String, String)> = vec![("HOME".into(), dir.display().to_string())];
    vars.extend(env.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    let env = LoadOptions::with_env(vars).env;
    let config_path = file.map(|text| {
        let p = dir.join("config.toml");
        std::fs::write(&p, text).unwrap();
        p
    });
    (
        LoadOptions {
            config_path,
            flags: vec![],
            env,
        },
        dir,
    )
}

#[test]
fn defaults_follow_codex() {
    let (opts, home) = opts_with(None, &[]);
    let c = Config::load(&opts).unwrap();
    assert_eq!(c.codex_home, home.join(".codex"));
    assert_eq!(c.claude_home, home.join(".claude"));
    assert_eq!(c.memkit_home, home.join(".local/share/memkit"));
    assert_eq!(c.memory_root, home.join(".local/share/memkit/memories"));
    assert!(!c.memory_root_explicit);
    assert_eq!(c.legacy_memory_root(), home.join(".codex/memories"));
    assert_eq!(c.gemini_home, Some(home.join(".gemini")));
    assert_eq!(c.max_raw_memories_for_consolidation, 256);
    assert_eq!(c.max_unused, Duration::from_secs(30 * 86_400));
    assert_eq!(c.max_rollout_age, Duration::from_secs(10 * 86_400));
    assert_eq!(c.min_rollout_idle, Duration::from_secs(6 * 3600));
    assert_eq!(c.extract_jobs, 8);
    assert_eq!(c.extract.backend, ExtractBackendKind::Heuristic);
    assert_eq!(c.consolidate.backend, ConsolidateBackendKind::Heuristic);
    let agent = c.consolidate.agent_command.join(" ");
    assert!(
        agent.starts_with("codex exec --ephemeral --disable memories --sandbox workspace-write"),
        "no memory prompt, session file or memory writer in Codex's own run: {agent}"
    );
}

#[test]
fn environment_paths_and_xdg() {
    let (opts, _) = opts_with(
        None,
        &[
            ("CODEX_HOME", "/x/codex"),
            ("CLAUDE_CONFIG_DIR", "/x/claude"),
            ("XDG_DATA_HOME", "/x/data"),
        ],
    );
    let c = Config::load(&opts).unwrap();
    assert_eq!(c.codex_home, PathBuf::from("/x/codex"));
    assert_eq!(c.memory_root, PathBuf::from("/x/data/memkit/memories"));
    assert_eq!(c.legacy_memory_root(), PathBuf::from("/x/codex/memories"));
    assert_eq!(c.claude_home, PathBuf::from("/x/claude"));
    assert_eq!(c.memkit_home, PathBuf::from("/x/data/memkit"));
}

#[test]
fn precedence_flag_over_env_over_file() {
    let (mut opts, _) = opts_with(
        Some("max_unused_days = 20\nextract_jobs = 2\n[extract]\nbackend = \"chat\"\n"),
        &[
            ("MEMKIT_MAX_UNUSED_DAYS", "14d"),
            ("MEMKIT_EXTRACT_BACKEND", "command"),
        ],
    );
    let c = Config::load(&opts).unwrap();
    assert_eq!(c.max_unused, Duration::from_secs(14 * 86_400));
    assert_eq!(c.extract_jobs, 2);
    assert_eq!(c.extract.backend, ExtractBackendKind::Command);
    opts.flags
        .push(("max_unused_days".into(), toml::Value::Integer(3)));
    let c = Config::load(&opts).unwrap();
    assert_eq!(c.max_unused, Duration::from_secs(3 * 86_400));
}

#[test]
fn humantime_durations_are_accepted() {
    let (opts, _) = opts_with(
        Some("min_rollout_idle_hours = \"90m\"\nmax_rollout_age_days = \"2w\"\n"),
        &[],
    );
    let c = Config::load(&opts).unwrap();
    assert_eq!(c.min_rollout_idle, Duration::from_secs(5400));
    assert_eq!(c.max_rollout_age, Duration::from_secs(14 * 86_400));
}

#[test]
fn unknown_key_names_key_and_file() {
    let (opts, _) = opts_with(Some("max_unusd_days = 3\n"), &[]);
    let err = Config::load(&opts).unwrap_err();
    assert_eq!(err.exit_code(), 2);
    let msg = err.to_string();
    assert!(msg.contains("max_unusd_days"), "{msg}");
    assert!(msg.contains("config.toml"), "{msg}");
    assert!(msg.contains("line 1"), "{msg}");
}

#[test]
fn unknown_key_in_section_is_rejected() {
    let (opts, _) = opts_with(Some("[extract]\nbakend = \"chat\"\n"), &[]);
    let msg = Config::load(&opts).unwrap_err().to_string();
    assert!(msg.contains("bakend"), "{msg}");
}

#[test]
fn out_of_range_names_key_file_and_range() {
    let (opts, _) = opts_with(Some("max_unused_days = 400\n"), &[]);
    let err = Config::load(&opts).unwrap_err();
    assert_eq!(err.exit_code(), 2);
    let msg = err.to_string();
    assert!(msg.contains("max_unused_days = 400"), "{msg}");
    assert!(msg.contains("config.toml"), "{msg}");
    assert!(msg.contains("0..=365"), "{msg}");

    let (opts, _) = opts_with(None, &[("MEMKIT_EXTRACT_JOBS", "9")]);
    let msg = Config::load(&opts).unwrap_err().to_string();
    assert!(msg.contains("extract_jobs = 9"), "{msg}");
    assert!(msg.contains("MEMKIT_EXTRACT_JOBS"), "{msg}");
    assert!(msg.contains("1..=8"), "{msg}");

    let (opts, _) = opts_with(Some("max_rollout_age_days = \"100d\"\n"), &[]);
    let msg = Config::load(&opts).unwrap_err().to_string();
    assert!(msg.contains("max_rollout_age_days"), "{msg}");
    assert!(msg.contains("0..=90"), "{msg}");
}

#[test]
fn bad_duration_names_key() {
    let (opts, _) = opts_with(Some("min_rollout_idle_hours = \"soon\"\n"), &[]);
    let err = Config::load(&opts).unwrap_err();
    assert_eq!(err.exit_code(), 2);
    assert!(err.to_string().contains("min_rollout_idle_hours"), "{err}");
}

#[test]
fn wrong_type_names_key() {
    let (opts, _) = opts_with(Some("extract_jobs = \"four\"\n"), &[]);
    let msg = Config::load(&opts).unwrap_err().to_string();
    assert!(
        msg.contains("extract_jobs") || msg.contains("line 1"),
        "{msg}"
    );
}

#[test]
fn missing_explicit_config_is_a_usage_error() {
    let (mut opts, dir) = opts_with(None, &[]);
    opts.config_path = Some(dir.join("nope.toml"));
    assert_eq!(Config::load(&opts).unwrap_err().exit_code(), 2);
}

#[test]
fn example_config_documents_every_key_and_loads() {
    let text = include_str!("../../config.example.toml");
    let (opts, _) = opts_with(Some(text), &[]);
    let c = Config::load(&opts).unwrap();
    assert_eq!(c.max_raw_memories_for_consolidation, 256);
    for key in KEYS {
        let name = key.rsplit('.').next().unwrap();
        let section = key.split_once('.').map(|(s, _)| s);
        assert!(
            text.contains(&format!("{name} =")) || text.contains(&format!("# {name} =")),
            "config.example.toml does not document {key}"
        );
        if let Some(section) = section {
            assert!(
                text.contains(&format!("[{section}]")),
                "missing section {section}"
            );
        }
    }
}

#[test]
fn paths_must_be_absolute_folders_and_time_limits_not_zero() {
    let err = |file: Option<&str>, env: &[(&str, &str)]| {
        let (opts, _) = opts_with(file, env);
        let e = Config::load(&opts).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        e.to_string()
    };
    let e = err(Some("memory_root = \"\"\n"), &[]);
    assert!(
        e.contains("memory_root = \"\"") && e.contains("empty path"),
        "{e}"
    );
    let e = err(Some("codex_home = \"rel/codex\"\n"), &[]);
    assert!(
        e.contains("codex_home = \"rel/codex\"") && e.contains("not an absolute path"),
        "{e}"
    );
    let e = err(None, &[("MEMKIT_HOME", "/dev/null")]);
    assert!(
        e.contains("memkit_home") && e.contains("MEMKIT_HOME") && e.contains("not a folder"),
        "{e}"
    );
    let e = err(None, &[("CLAUDE_CONFIG_DIR", "claude")]);
    assert!(
        e.contains("CLAUDE_CONFIG_DIR") && e.contains("not an absolute path"),
        "{e}"
    );
    let e = err(Some("[extract]\ntimeout = \"0s\"\n"), &[]);
    assert!(e.contains("extract.timeout = 0 is not a time limit"), "{e}");
    let e = err(Some("[consolidate]\ntimeout = 0\n"), &[]);
    assert!(e.contains("consolidate.timeout"), "{e}");
    let no_home = LoadOptions::with_env([("PATH", "/usr/bin")]);
    let e = Config::load(&no_home).unwrap_err().to_string();
    assert!(e.contains("HOME is not set"), "{e}");
}
