//! `memkit note`.

use super::Ctx;
use crate::cli::NoteArgs;
use crate::error::Result;
use crate::memory::notes;
use crate::ui;
use crate::util::time::now_secs;

/// Writes a note file; prints its path.
pub fn run(ctx: &Ctx, args: &NoteArgs) -> Result<i32> {
    let text = match args.text.as_deref() {
        Some(t) if t != "-" => t.to_string(),
        _ => super::read_stdin(MAX_NOTE_BYTES)?,
    };
    let path = notes::create(&ctx.cfg.memory_root, &text, now_secs())?;
    if ctx.json {
        ui::json_line(&serde_json::json!({"note": path.display().to_string()}));
    } else {
        crate::outln!("{}", path.display());
        ui::info("the next `memkit consolidate` folds it into memory");
    }
    Ok(0)
}

/// The longest note read from stdin.
const MAX_NOTE_BYTES: usize = 1 << 20;
