//! A background thread that renews a lease at an interval, from its own
//! database connection, until stopped (or until renewing fails).

use crate::store::Store;
use std::path::PathBuf;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

/// The running renewer.
pub struct Keepalive {
    stop: mpsc::Sender<()>,
    handle: std::thread::JoinHandle<()>,
}

impl Keepalive {
    /// Calls `renew` every `every` until [`Keepalive::stop`] or until it returns `false`.
    pub fn start(
        db: PathBuf,
        every: Duration,
        mut renew: impl FnMut(&Store) -> bool + Send + 'static,
    ) -> Keepalive {
        let (stop, rx) = mpsc::channel::<()>();
        let handle = std::thread::spawn(move || {
            // Opened at the first renewal: work shorter than `every` (a
            // quiet night) never opens a second connection.
            let mut store = None;
            while let Err(RecvTimeoutError::Timeout) = rx.recv_timeout(every) {
                if store.is_none() {
                    store = Store::open(&db).ok();
                }
                let Some(store) = &store else { return };
                if !renew(store) {
                    return;
                }
            }
        });
        Keepalive { stop, handle }
    }

    /// Stops renewing and waits for the thread.
    pub fn stop(self) {
        let _ = self.stop.send(());
        let _ = self.handle.join();
    }
}
