//! csv-cleanup: throw-away Python scripts for a data clean-up; almost all
//! one-off work, plus two rules the user gives for every project.

use super::super::session::Tool::*;
use super::{FactKind::*, NoiseKind::*, Project};

pub fn add(p: &mut Project<'_>) {
    p.session(CodexModern, 10, "18:30")
        .user("write a script that dedupes customers.csv by email and keeps the newest row per address")
        .fail("python3 -c 'import pandas'", 1, "Traceback (most recent call last):\n  File \"<string>\", line 1, in <module>\nModuleNotFoundError: No module named 'pandas'\n")
        .agent("pandas isn't installed. I can install it with `sudo apt-get install python3-pandas` — go ahead?")
        .user("no — never use sudo, in any of my repos. and no pandas here: plain python3, standard library only, this runs on a locked-down box")
        .agent("Rewrote it with `csv.DictReader` and a dict keyed by lower-cased email.")
        .ok("python3 dedupe.py customers.csv -o customers_clean.csv", "read 5190 rows, kept 4812\n")
        .agent("Done: 4812 of 5190 rows kept in customers_clean.csv.");
    p.noise("scratch-dedupe", OneOff, &["keeps the newest row"]);
    p.fact(
        "scratch-stdlib-only",
        Preference,
        &["standard library only"],
    );
    p.global("global-no-sudo", &["sudo"]);

    p.session(Claude, 20, "19:10")
        .user("same script for vendors.csv but the key is the VAT number")
        .agent("Copied dedupe.py to dedupe_vendors.py with the VAT number as the key. Overwrite vendors_clean.csv if it exists?")
        .user("yes. I want it clean every time.")
        .ok("python3 dedupe_vendors.py vendors.csv -o vendors_clean.csv", "read 812 rows, kept 790\n")
        .agent("790 of 812 vendors kept. To re-run it: `python3 dedupe_vendors.py vendors.csv -o vendors_clean.csv`.")
        .user("give me fish syntax when you tell me commands to run, I use fish in all my projects")
        .agent("Noted — e.g. `set -x CSV_DIR ~/exports; python3 dedupe_vendors.py $CSV_DIR/vendors.csv`.");
    p.noise("scratch-vendors", OneOff, &["VAT number"]);
    p.noise("scratch-clean-every-time", Status, &["clean every time"]);
    p.global("global-fish", &["fish"]);
}
