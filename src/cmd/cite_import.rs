//! `memkit cite-import`.

use super::Ctx;
use crate::cli::CiteImportArgs;
use crate::error::{Error, Result};
use crate::stages::cite_import::{self, CiteImportReport};
use crate::ui;
use crate::util::time::now_secs;

/// Imports citations from session logs, or from stdin with `-`.
pub fn run(ctx: &Ctx, args: &CiteImportArgs) -> Result<i32> {
    let mut store = ctx.store()?;
    let report = match args.input.as_deref() {
        Some("-") => cite_import::import_reader(&mut store, std::io::stdin().lock(), now_secs())?,
        Some(other) => {
            return Err(Error::usage(format!(
                "unexpected argument {other:?}; use `-` to read stdin"
            )));
        }
        None => {
            let since = args.since.unwrap_or(ctx.cfg.max_unused).as_secs() as i64;
            super::run_stage(&mut store, "cite-import", false, |store| {
                cite_import::run(&ctx.cfg, store, since, now_secs(), None)
            })?
        }
    };
    for e in &report.errors {
        ui::warn(e);
    }
    if ctx.json {
        ui::json_line(&report);
    } else {
        crate::outln!("{}", summary_line(&report));
    }
    Ok(0)
}

/// One line for people.
pub fn summary_line(r: &CiteImportReport) -> String {
    format!(
        "cite-import: {} sessions, {} replies scanned, {} with citations ({} already imported); {} memories bumped, {} unknown ids, {} invalid ids",
        r.sessions_scanned,
        r.replies_scanned,
        r.citations_found,
        r.already_imported,
        r.outputs_bumped,
        r.unknown_ids,
        r.invalid_ids
    )
}
