//! Named points where a test can kill memkit on purpose, to prove that a
//! crash anywhere leaves the database and the memory folder recoverable.
//!
//! `MEMKIT_TEST_CRASH_AT=<point>:<n>` sends SIGKILL to this process the
//! `n`-th time it reaches `<point>` (`n` defaults to 1). Unset, a point costs
//! one comparison. Only tests set it.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

/// The variable that arms a crash point.
pub const CRASH_AT_VAR: &str = "MEMKIT_TEST_CRASH_AT";

static ARMED: OnceLock<Option<(String, u64)>> = OnceLock::new();
static REACHED: AtomicU64 = AtomicU64::new(0);

fn armed() -> Option<&'static (String, u64)> {
    ARMED
        .get_or_init(|| {
            let spec = std::env::var(CRASH_AT_VAR).ok()?;
            // Point names contain ':' themselves; a count is a number at the end.
            Some(match spec.rsplit_once(':') {
                Some((name, n)) if n.parse::<u64>().is_ok() => {
                    (name.to_string(), n.parse().unwrap_or(1))
                }
                _ => (spec, 1),
            })
        })
        .as_ref()
}

/// Marks the point `name`; kills the process here when a test armed it.
pub fn here(name: &str) {
    let Some((point, n)) = armed() else {
        return;
    };
    if point == name && REACHED.fetch_add(1, Ordering::SeqCst) + 1 == *n {
        // SAFETY: sending a signal to our own pid has no memory effects.
        unsafe {
            libc::kill(libc::getpid(), libc::SIGKILL);
        }
    }
}
