//! The shared real-world samples (read in place, never copied into the
//! repository). Expected values were worked out from the files with `jq`:
//! Codex human turns = `event_msg/user_message` lines, or for 0.169+ files
//! `item_completed` items of type `UserMessage` (pre-envelope: user
//! messages minus the two injected-context ones); tool calls = function,
//! custom, local-shell, web-search and tool-search call items, except that a
//! code-mode `exec` script counts as the `CommandExecution` items it ran;
//! Claude human turns by reading every non-sidechain user entry; tool calls =
//! distinct `tool_use` ids of the dialogue.
//!
//! Skipped (with a note) when the samples folder is absent.

mod common;

use memkit::sources::{Event, ReadOptions, Role, Tool, read_transcript};

struct Expect {
    file: &'static str,
    tool: Tool,
    id: &'static str,
    cwd: &'static str,
    source: &'static str,
    human: u64,
    tools: u64,
}

const EXPECTED: &[Expect] = &[
    Expect {
        file: "codex/legacy-2025-09-10-pre-envelope-cf4def41.jsonl",
        tool: Tool::Codex,
        id: "cf4def41-21e0-4b91-adb4-5397c1492084",
        cwd: "/home/user/projects/codex-session-viewer",
        source: "cli",
        human: 45,
        tools: 246,
    },
    Expect {
        file: "codex/v0.104.0-alpha.1-desktop-redacted-rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl",
        tool: Tool::Codex,
        id: "019c8a70-dda7-7f33-98ea-f30553347322",
        cwd: "/redacted/path/da0ba47443",
        source: "vscode",
        human: 1,
        tools: 1,
    },
    Expect {
        file: "codex/v0.121.0-tui-019da9bd.jsonl",
        tool: Tool::Codex,
        id: "019da9bd-7cbb-7d22-b21c-80faf72e7f8a",
        cwd: "/Users/soph/Work/entire/devenv/external-agents",
        source: "cli",
        human: 15,
        tools: 152,
    },
    Expect {
        file: "codex/v0.135.0-exec-redacted-019e9625.jsonl",
        tool: Tool::Codex,
        id: "019e9625-802f-7e91-840a-cfe88d14117a",
        cwd: "/tmp/agent-history-real-agent/codex/workspace",
        source: "exec",
        human: 1,
        tools: 0,
    },
    Expect {
        file: "codex/v0.136.0-tui-compacted-turn-aborted-019e9ea7.jsonl",
        tool: Tool::Codex,
        id: "019e9ea7-f3e7-7463-8542-41b2e0fcb033",
        cwd: "/Users/thomi/Projects/entire-sem",
        source: "cli",
        human: 6,
        tools: 424,
    },
    Expect {
        file: "codex/v0.145.0-alpha.18-desktop-subagents-compacted-019f80ed.jsonl",
        tool: Tool::Codex,
        id: "019f80ed-65ac-7eb3-9c28-9885c0fbca91",
        cwd: "/Users/thomi/Projects/entire-graph",
        source: "vscode",
        human: 3,
        tools: 204,
    },
    Expect {
        file: "codex/v0.47.0-cli-019a085e-pomodoro.jsonl",
        tool: Tool::Codex,
        id: "019a085e-04c1-7f81-a09e-9555f6a1fb40",
        cwd: "/Users/yoavfarhi/dev/pomodoro/codex",
        source: "cli",
        human: 3,
        tools: 18,
    },
    Expect {
        file: "codex/v0.58.0-cli-rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl",
        tool: Tool::Codex,
        id: "019a93b9-f380-7600-98ff-940e6b99603c",
        cwd: "/home/user/projects/temp/chatbot-ui",
        source: "cli",
        human: 1,
        tools: 39,
    },
    Expect {
        file: "claude/v1.0.98-fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl",
        tool: Tool::Claude,
        id: "fe5e1c67-53e7-4862-81ae-d0e013e3270b",
        cwd: "/path/to/Demo",
        source: "cli",
        human: 2,
        tools: 11,
    },
    Expect {
        file: "claude/v2.0.24-pomodoro.jsonl",
        tool: Tool::Claude,
        id: "36d9e1bc-63bf-4e97-8a3e-2b20ba8583f2",
        cwd: "/Users/yoavfarhi/dev/pomodoro/claude",
        source: "cli",
        human: 3,
        tools: 37,
    },
    Expect {
        file: "claude/v2.0.76-main-compact-boundary-c45af7b1.jsonl",
        tool: Tool::Claude,
        id: "c45af7b1-cb7c-4e51-93db-8cbb250a877a",
        cwd: "/workspace",
        source: "cli",
        human: 5,
        tools: 10,
    },
    Expect {
        file: "claude/v2.0.76-agent-sidechain-af1ff21.jsonl",
        tool: Tool::Claude,
        id: "c45af7b1-cb7c-4e51-93db-8cbb250a877a-agent-af1ff21",
        cwd: "/workspace",
        source: "subagent",
        human: 0,
        tools: 0,
    },
    Expect {
        file: "claude/v2.1.38-short-55604662.jsonl",
        tool: Tool::Claude,
        id: "55604662-cf2a-4331-851a-ec234028f8ca",
        cwd: "/home/marco/projects/spotter",
        source: "cli",
        human: 1,
        tools: 2,
    },
    Expect {
        file: "claude/v2.1.39-ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl",
        tool: Tool::Claude,
        id: "ae4a77f8-aedd-4bc1-888f-c94edc91af04",
        cwd: "/home/USER/projects/spotter-worktrees/spotter-4te",
        source: "cli",
        human: 2,
        tools: 242,
    },
    Expect {
        file: "claude/v2.1.39-ae4a77f8__subagents__agent-aac57f5.jsonl",
        tool: Tool::Claude,
        id: "ae4a77f8-aedd-4bc1-888f-c94edc91af04-agent-aac57f5",
        cwd: "/home/USER/projects/spotter-worktrees/spotter-4te",
        source: "subagent",
        human: 0,
        tools: 12,
    },
    Expect {
        file: "codex/v0.169.0-exec-toolcall-01a23040.jsonl",
        tool: Tool::Codex,
        id: "01a23040-0685-7983-a315-3fd9d2ab31c9",
        cwd: "/home/dev/src/demo",
        source: "exec",
        human: 1,
        tools: 1,
    },
    Expect {
        file: "codex/v0.169.0-exec-citation-01a23040.jsonl",
        tool: Tool::Codex,
        id: "01a23040-098b-77c1-8b72-063a881699f5",
        cwd: "/home/dev/src/demo",
        source: "exec",
        human: 1,
        tools: 0,
    },
    Expect {
        file: "codex/v0.169.0-exec-codemode-01a2303c.jsonl",
        tool: Tool::Codex,
        id: "01a2303c-5409-7722-b51b-5a90f1c9e089",
        cwd: "/home/dev/src/demo",
        source: "exec",
        human: 1,
        tools: 1,
    },
    Expect {
        file: "codex/v0.169.0-tui-01a23035.jsonl",
        tool: Tool::Codex,
        id: "01a23035-e95f-7121-9d79-96083b1f2189",
        cwd: "/home/dev/src/demo",
        source: "vscode",
        human: 1,
        tools: 0,
    },
    Expect {
        file: "claude/v2.1.332-sdk-cli-toolcall-5b77aad0.jsonl",
        tool: Tool::Claude,
        id: "5b77aad0-f1a5-453e-b285-79f678efc6cf",
        cwd: "/home/dev/src/demo",
        source: "sdk-cli",
        human: 1,
        tools: 1,
    },
];

/// Openings that would mean injected context leaked into human text.
const CONTEXT_OPENINGS: &[&str] = &[
    "<environment_context>",
    "# AGENTS.md",
    "<user_instructions>",
    "<turn_aborted>",
    "<system-reminder>",
    "Caveat:",
    "<command-name>",
    "<command-message>",
    "<local-command",
    "<bash-",
    "This session is being continued",
    "[Request interrupted",
    "<permissions",
    "<recommended_plugins>",
    "<INSTRUCTIONS>",
];

#[test]
fn every_sample_parses_with_the_right_metadata_and_counts() {
    let Some(dir) = common::samples_dir() else {
        return;
    };
    for e in EXPECTED {
        let path = dir.join(e.file);
        let t = read_transcript(&path, e.tool, ReadOptions::default())
            .unwrap_or_else(|err| panic!("{}: {err}", e.file));
        assert_eq!(t.info.id, e.id, "{}: id", e.file);
        assert_eq!(t.info.cwd.as_deref(), Some(e.cwd), "{}: cwd", e.file);
        assert_eq!(t.info.source, e.source, "{}: source", e.file);
        assert_eq!(t.stats.human_turns, e.human, "{}: human turns", e.file);
        assert_eq!(t.stats.tool_calls, e.tools, "{}: tool calls", e.file);
        assert_eq!(t.stats.malformed, 0, "{}: malformed lines", e.file);
        for ev in &t.events {
            if let Event::Message(m) = ev
                && m.role == Role::User
            {
                let start = m.text.trim_start();
                for o in CONTEXT_OPENINGS {
                    assert!(
                        !start.starts_with(o),
                        "{}: injected context in human text: {}",
                        e.file,
                        &start[..start.len().min(80)]
                    );
                }
                assert!(
                    !m.text.contains("data:image/"),
                    "{}: image data in human text",
                    e.file
                );
            }
        }
    }
}

#[test]
fn compacted_sample_counts_each_human_message_once() {
    let Some(dir) = common::samples_dir() else {
        return;
    };
    let path = dir.join("codex/v0.136.0-tui-compacted-turn-aborted-019e9ea7.jsonl");
    let t = read_transcript(&path, Tool::Codex, ReadOptions::default()).unwrap();
    let humans = common::humans(&t);
    let mut unique = humans.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), humans.len(), "a human message appears twice");
    assert!(humans[0].starts_with("# Fix: SQL grammar can't parse PostgreSQL/Supabase migrations"));
    assert_eq!(humans[1], "Continue");
    assert_eq!(humans[5], "Create a branch and commit your changes");
}

#[test]
fn zstd_copy_of_a_sample_reads_the_same() {
    let Some(dir) = common::samples_dir() else {
        return;
    };
    let src = dir.join("codex/v0.121.0-tui-019da9bd.jsonl");
    let tmp = std::env::temp_dir().join(format!("memkit-zs-{}", memkit::util::ids::new_uuid_v4()));
    std::fs::create_dir_all(&tmp).unwrap();
    let z = tmp.join("v0.121.0-tui-019da9bd.jsonl.zst");
    std::fs::write(
        &z,
        zstd::encode_all(&std::fs::read(&src).unwrap()[..], 3).unwrap(),
    )
    .unwrap();
    let a = read_transcript(&src, Tool::Codex, ReadOptions::default()).unwrap();
    let b = read_transcript(&z, Tool::Codex, ReadOptions::default()).unwrap();
    assert_eq!(a.events, b.events);
    assert_eq!(a.info, b.info);
    std::fs::remove_dir_all(&tmp).unwrap();
}

#[test]
fn codex_0169_samples_give_commands_with_exit_codes_and_one_cited_reply() {
    let Some(dir) = common::samples_dir() else {
        return;
    };
    for file in [
        "codex/v0.169.0-exec-toolcall-01a23040.jsonl",
        "codex/v0.169.0-exec-codemode-01a2303c.jsonl",
    ] {
        let t = read_transcript(&dir.join(file), Tool::Codex, ReadOptions::default()).unwrap();
        let calls: Vec<_> = t
            .events
            .iter()
            .filter_map(|e| match e {
                Event::ToolCall(c) => Some(c),
                _ => None,
            })
            .collect();
        assert_eq!(calls.len(), 1, "{file}");
        let call = calls[0];
        assert_eq!(
            call.input,
            "printf '\\n- edited by the mock consolidation agent\\n' >> MEMORY.md && echo ok",
            "{file}: the command, not a script or its bash -lc wrapper"
        );
        assert_eq!(call.exit_code, Some(0), "{file}");
        assert_eq!(call.output.as_deref().map(str::trim), Some("ok"), "{file}");
        assert_eq!(
            common::humans(&t),
            vec![if file.contains("codemode") {
                "patch MEMORY.md"
            } else {
                "append a line to MEMORY.md"
            }]
        );
    }
    let t = read_transcript(
        &dir.join("codex/v0.169.0-exec-citation-01a23040.jsonl"),
        Tool::Codex,
        ReadOptions::default(),
    )
    .unwrap();
    let replies: Vec<_> = t
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Message(m) if m.role == Role::Assistant => Some(m),
            _ => None,
        })
        .collect();
    assert_eq!(
        replies.len(),
        1,
        "AgentMessage and response item are one reply"
    );
    assert_eq!(
        replies[0].text,
        "Using memory: run cargo fmt before committing."
    );
    let cited = replies[0].citation.as_ref().expect("the reply's citation");
    assert_eq!(
        cited.rollout_ids,
        vec!["019da9bd-7cbb-7d22-b21c-80faf72e7f8a"]
    );
    assert_eq!(
        cited.entries.len(),
        1,
        "block and field cite the same lines once"
    );
    assert_eq!(cited.entries[0].path, "MEMORY.md");
}
