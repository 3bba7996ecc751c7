//! The session model the scenario is written in: who said what, which
//! commands ran with what output, and what the harness injected, in order.
//! The format writers turn it into Codex or Claude Code lines.

/// Which agent (and log generation) recorded a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    /// Codex 0.169+: turns, replies and commands as `item_completed` items.
    CodexModern,
    /// Codex 0.1xx: `user_message` events, `exec_command` calls and outputs.
    CodexLegacy,
    /// Claude Code 2.1: user/assistant entries, `Bash` tool_use and tool_result.
    Claude,
}

/// Context the harness puts where user text goes.
#[derive(Debug, Clone)]
pub enum Context {
    /// Project instructions: Codex's AGENTS.md message, Claude Code's
    /// CLAUDE.md reminder on the next prompt.
    Instructions(String),
    /// A `<system-reminder>` Claude Code attaches to the next prompt.
    Reminder(String),
    /// A Claude Code `isMeta` entry (a slash command's expanded prompt).
    Meta(String),
    /// A Claude Code wrapper written as user text (slash command, its output).
    Wrapper(String),
}

/// One thing that happened in a session.
#[derive(Debug, Clone)]
pub enum Step {
    /// The human typed this.
    User(String),
    /// The agent replied.
    Agent(String),
    /// The agent ran a shell command.
    Command {
        cmd: String,
        exit: i64,
        output: String,
    },
    /// The harness injected context.
    Context(Context),
}

/// One session of one project.
#[derive(Debug, Clone)]
pub struct Session {
    pub tool: Tool,
    pub cwd: String,
    pub branch: String,
    /// Days after the corpus's first day.
    pub day: u32,
    /// Start, minutes after midnight (UTC).
    pub minute: u32,
    pub steps: Vec<Step>,
}

impl Session {
    /// A session in `cwd` on `day` at `hh:mm`.
    pub fn new(tool: Tool, cwd: &str, day: u32, at: &str) -> Session {
        let (h, m) = at.split_once(':').expect("start as hh:mm");
        Session {
            tool,
            cwd: cwd.to_string(),
            branch: "main".to_string(),
            day,
            minute: h.parse::<u32>().expect("hour") * 60 + m.parse::<u32>().expect("minute"),
            steps: Vec::new(),
        }
    }

    /// The git branch the session ran on.
    pub fn branch(&mut self, name: &str) -> &mut Session {
        self.branch = name.to_string();
        self
    }

    /// The human says `text`.
    pub fn user(&mut self, text: impl Into<String>) -> &mut Session {
        self.steps.push(Step::User(text.into()));
        self
    }

    /// The agent replies `text`.
    pub fn agent(&mut self, text: impl Into<String>) -> &mut Session {
        self.steps.push(Step::Agent(text.into()));
        self
    }

    /// The agent runs `cmd`, which succeeds with `output`.
    pub fn ok(&mut self, cmd: impl Into<String>, output: impl Into<String>) -> &mut Session {
        self.fail(cmd, 0, output)
    }

    /// The agent runs `cmd`, which exits with `exit` and `output`.
    pub fn fail(
        &mut self,
        cmd: impl Into<String>,
        exit: i64,
        output: impl Into<String>,
    ) -> &mut Session {
        self.steps.push(Step::Command {
            cmd: cmd.into(),
            exit,
            output: output.into(),
        });
        self
    }

    /// The harness injects `context`.
    pub fn context(&mut self, context: Context) -> &mut Session {
        self.steps.push(Step::Context(context));
        self
    }
}
