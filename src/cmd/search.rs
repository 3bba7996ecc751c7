//! `memkit search`.

use super::Ctx;
use crate::cli::SearchArgs;
use crate::error::Result;
use crate::search::{self, Hit, SearchOptions};
use crate::ui;

/// Searches the memory and prints the hits (JSON Lines with `--json`).
pub fn run(ctx: &Ctx, args: &SearchArgs) -> Result<i32> {
    let mut store = ctx.store()?;
    let root = &ctx.cfg.memory_root;
    if args.reindex {
        search::index::clear(store.conn())?;
        let report = search::refresh(store.conn_mut(), root)?;
        ui::info(format!(
            "reindexed {} units from {} memory files",
            report.units_added, report.files_read
        ));
        if args.query.is_empty() {
            return Ok(0);
        }
    }
    let project = args
        .project
        .clone()
        .or_else(|| std::env::current_dir().ok())
        .map(|p| p.display().to_string());
    let opts = SearchOptions {
        query: args.query.join(" "),
        project,
        limit: args.limit as usize,
        sessions: args.sessions,
    };
    let embedder = search::configured_embedder(&ctx.cfg);
    let hits = search::search(&mut store, root, &opts, embedder.as_ref())?;
    if hits.is_empty() {
        let msg = format!("nothing in memory matches {:?}", opts.query);
        if ctx.json {
            ui::info(msg);
        } else {
            crate::outln!("{msg}");
        }
        return Ok(0);
    }
    for (n, hit) in hits.iter().enumerate() {
        if ctx.json {
            ui::json_line(&hit.to_json());
        } else {
            print_hit(n + 1, hit);
        }
    }
    Ok(0)
}

fn print_hit(n: usize, hit: &Hit) {
    let mut about: Vec<String> = Vec::new();
    if let Some(project) = &hit.project {
        about.push(project.rsplit('/').next().unwrap_or(project).to_string());
    }
    if let Some(date) = hit.date {
        about.push(crate::util::time::date(date));
    }
    if let Some(first) = hit.sessions.first() {
        let more = hit.sessions.len() - 1;
        let short = first.get(..8).unwrap_or(first);
        about.push(if more > 0 {
            format!("{short} +{more}")
        } else {
            short.to_string()
        });
    }
    crate::outln!("{n}. {}  {}", hit.location(), about.join(" · "));
    let snippet = crate::util::text::one_line(&hit.snippet, 200);
    crate::outln!("   {snippet}");
}
