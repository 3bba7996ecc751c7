//! The corpus's story: one user ("maren") on six projects over four weeks.
//! Each project module writes its sessions and, next to the text that plants
//! them, the answer-key entries those sessions justify.

mod infra;
mod ledger;
mod relay;
mod scratch;
mod storefront;
mod tidewatch;

use super::rng::{Rng, Secret};
use super::session::{Session, Tool};
use crate::quality::key::{Fact, Key, Noise, Stale};

/// The user whose home the projects live in.
pub const USER: &str = "maren";

/// Kinds of durable facts.
#[derive(Debug, Clone, Copy)]
pub enum FactKind {
    Preference,
    Correction,
    Procedure,
    Environment,
    Superseded,
    Repeated,
}

impl FactKind {
    fn as_str(self) -> &'static str {
        match self {
            FactKind::Preference => "preference",
            FactKind::Correction => "correction",
            FactKind::Procedure => "procedure",
            FactKind::Environment => "environment",
            FactKind::Superseded => "superseded",
            FactKind::Repeated => "repeated",
        }
    }
}

/// Kinds of noise.
#[derive(Debug, Clone, Copy)]
pub enum NoiseKind {
    OneOff,
    TaskCorrection,
    Declined,
    PastedSpec,
    InjectedContext,
    PromptInjection,
    Question,
    Status,
}

impl NoiseKind {
    fn as_str(self) -> &'static str {
        match self {
            NoiseKind::OneOff => "one-off",
            NoiseKind::TaskCorrection => "task-correction",
            NoiseKind::Declined => "declined",
            NoiseKind::PastedSpec => "pasted-spec",
            NoiseKind::InjectedContext => "injected-context",
            NoiseKind::PromptInjection => "prompt-injection",
            NoiseKind::Question => "question",
            NoiseKind::Status => "status",
        }
    }
}

/// The sessions and the answer key being written.
pub struct Plan {
    pub key: Key,
    pub sessions: Vec<Session>,
    rng: Rng,
}

impl Plan {
    /// The whole story.
    pub fn build() -> Plan {
        let mut plan = Plan {
            key: Key {
                path_user_names: vec![USER.to_string()],
                ..Key::default()
            },
            sessions: Vec::new(),
            rng: Rng::new(0x5eed_0013),
        };
        ledger::add(&mut plan.project("work/ledger-api"));
        storefront::add(&mut plan.project("work/storefront"));
        tidewatch::add(&mut plan.project("src/tidewatch"));
        relay::add(&mut plan.project("work/relay-gw"));
        infra::add(&mut plan.project("ops/infra-live"));
        scratch::add(&mut plan.project("scratch/csv-cleanup"));
        plan
    }

    /// The project at `~/<path>`.
    fn project(&mut self, path: &str) -> Project<'_> {
        let cwd = format!("/home/{USER}/{path}");
        self.key.projects.push(cwd.clone());
        Project { plan: self, cwd }
    }
}

/// One project's part of the plan.
pub struct Project<'a> {
    plan: &'a mut Plan,
    cwd: String,
}

impl Project<'_> {
    /// A new session of this project on `day` (0 = the first of the four weeks) at `hh:mm`.
    pub fn session(&mut self, tool: Tool, day: u32, at: &str) -> &mut Session {
        self.plan
            .sessions
            .push(Session::new(tool, &self.cwd, day, at));
        self.plan.sessions.last_mut().expect("just pushed")
    }

    /// A fact of this project: found when all `needles` are on one line.
    pub fn fact(&mut self, id: &str, kind: FactKind, needles: &[&str]) {
        self.plan.key.facts.push(Fact {
            id: id.to_string(),
            kind: kind.as_str().to_string(),
            project: Some(self.cwd.clone()),
            all: strings(needles),
        });
    }

    /// A rule the user gave for every project.
    pub fn global(&mut self, id: &str, needles: &[&str]) {
        self.plan.key.facts.push(Fact {
            id: id.to_string(),
            kind: "global".to_string(),
            project: None,
            all: strings(needles),
        });
    }

    /// Noise: leaked when any of `needles` is on a line.
    pub fn noise(&mut self, id: &str, kind: NoiseKind, needles: &[&str]) {
        self.plan.key.noise.push(Noise {
            id: id.to_string(),
            kind: kind.as_str().to_string(),
            any: strings(needles),
        });
    }

    /// A replaced value of this project: stale when a line holds all of
    /// `needles` and none of `unless`.
    pub fn stale(&mut self, id: &str, needles: &[&str], unless: &[&str]) {
        self.plan.key.stale.push(Stale {
            id: id.to_string(),
            project: Some(self.cwd.clone()),
            all: strings(needles),
            unless: strings(unless),
        });
    }

    /// A fresh fake credential, recorded in the key.
    pub fn secret(&mut self, kind: Secret) -> String {
        let s = self.plan.rng.secret(kind);
        self.plan.key.secrets.push(s.clone());
        s
    }
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}
