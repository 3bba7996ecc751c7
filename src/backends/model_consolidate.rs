//! Phase 2 through a model transport: one structured-output call whose answer
//! carries the new files; memkit validates them before writing anything.

use super::consolidate::{ConsolidateResult, ConsolidatedFiles, ConsolidationInput, Consolidator};
use super::transport::{StructuredRequest, Transport};
use crate::error::Result;
use crate::util::text::APPROX_BYTES_PER_TOKEN;
use serde_json::{Value, json};

/// The strict schema of a consolidation answer.
pub fn consolidation_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "memory_md": {"type": "string"},
            "memory_summary_md": {"type": "string"},
            "skills": {
                "type": ["array", "null"],
                "items": {
                    "type": "object",
                    "properties": {"name": {"type": "string"}, "content": {"type": "string"}},
                    "required": ["name", "content"],
                    "additionalProperties": false,
                },
            },
        },
        "required": ["memory_md", "memory_summary_md", "skills"],
        "additionalProperties": false,
    })
}

/// A consolidator that asks a model.
pub struct ModelConsolidator {
    transport: Box<dyn Transport>,
    system: String,
    budget_tokens: usize,
}

impl ModelConsolidator {
    /// `system` is the rendered consolidation prompt; the input is cut to `budget_tokens`.
    pub fn new(transport: Box<dyn Transport>, system: String, budget_tokens: usize) -> Self {
        ModelConsolidator {
            transport,
            system,
            budget_tokens,
        }
    }
}

/// The user message: current files, the diff, the raw memories and notes,
/// each section cut (head and tail) so the whole fits the budget.
pub fn render_user_message(input: &ConsolidationInput<'_>, budget_tokens: usize) -> String {
    let raw = crate::memory::files::render_raw_memories(input.selection);
    let notes: String = input
        .notes
        .iter()
        .map(|n| {
            format!(
                "### extensions/ad_hoc/notes/{}\n{}\n\n",
                n.file_name,
                n.text.trim()
            )
        })
        .collect();
    let sections: Vec<(&str, String, usize)> = vec![
        (
            "Current MEMORY.md",
            input
                .previous_memory
                .clone()
                .unwrap_or_else(|| "(none yet: first run)".into()),
            3,
        ),
        (
            "Current memory_summary.md",
            input
                .previous_summary
                .clone()
                .unwrap_or_else(|| "(none yet)".into()),
            1,
        ),
        ("phase2_workspace_diff.md", input.diff_file.to_string(), 3),
        ("raw_memories.md", raw, 4),
        (
            "User notes (extensions/ad_hoc/notes)",
            if notes.is_empty() {
                "(none)".into()
            } else {
                notes
            },
            1,
        ),
    ];
    let budget = budget_tokens * APPROX_BYTES_PER_TOKEN;
    let total: usize = sections.iter().map(|(_, t, _)| t.len()).sum();
    let weights: usize = sections.iter().map(|(_, _, w)| w).sum();
    let mut out = String::from(
        "Answer with one JSON object: memory_md (the full new MEMORY.md), memory_summary_md (the full new \
         memory_summary.md, first line exactly v1), skills (an array of {name, content} to write as \
         skills/<name>/SKILL.md, adding or rewriting those skills and leaving the others, or null).\n\n",
    );
    for (title, text, weight) in sections {
        let share = if total <= budget {
            text.len()
        } else {
            budget * weight / weights
        };
        let text = crate::redact::cut_middle(&text, share.max(256));
        out.push_str(&format!("=== {title} ===\n{text}\n\n"));
    }
    // Notes and hand-edited files were never redacted: nothing leaves unredacted.
    crate::redact::redact(&out).into_owned()
}

impl Consolidator for ModelConsolidator {
    fn name(&self) -> &'static str {
        "model"
    }

    fn model(&self) -> String {
        format!("{}:{}", self.transport.name(), self.transport.model())
    }

    fn consolidate(&self, input: &ConsolidationInput<'_>) -> Result<ConsolidateResult> {
        let user = render_user_message(input, self.budget_tokens);
        let schema = consolidation_schema();
        let response = self.transport.complete(&StructuredRequest {
            system: &self.system,
            user: &user,
            schema_name: "consolidation_output",
            schema: &schema,
        })?;
        let files: ConsolidatedFiles = response.parse()?;
        let (tokens_in, tokens_out) = response.tokens(self.system.len() + user.len());
        Ok(ConsolidateResult {
            files,
            tokens_in,
            tokens_out,
            tokens_cached: response.tokens_cached.unwrap_or(0),
        })
    }
}
