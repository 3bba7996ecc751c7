//! `memkit scan`.

use super::Ctx;
use crate::catalog::{ScanReport, scan};
use crate::error::Result;
use crate::ui;

/// Scans and reports; exit 0 even when some files could not be read (they are listed).
pub fn run(ctx: &Ctx) -> Result<i32> {
    let mut store = ctx.store()?;
    let report = scan(&ctx.cfg, &mut store)?;
    report_scan(ctx, &report);
    Ok(0)
}

/// Prints a scan report: warnings on stderr, the summary on stdout.
pub fn report_scan(ctx: &Ctx, report: &ScanReport) {
    for w in &report.warnings {
        ui::warn(w);
    }
    if ctx.json {
        ui::json_line(report);
    } else {
        crate::outln!("{}", summary_line(report));
    }
}

/// `scanned 12 files: 3 read, 9 unchanged, 0 failed; 2 new sessions, 1 updated, 0 missing`.
pub fn summary_line(r: &ScanReport) -> String {
    format!(
        "scanned {} files: {} read, {} unchanged, {} failed; {} new sessions, {} updated, {} missing",
        r.files_found,
        r.files_read,
        r.files_unchanged,
        r.files_failed,
        r.sessions_new,
        r.sessions_updated,
        r.sessions_missing
    )
}
