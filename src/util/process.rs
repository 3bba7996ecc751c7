//! Who we are and whether another process is still alive: lease holders are
//! named `memkit-<pid>@<host>` so a lease left by a killed process on this
//! machine can be taken over at once instead of after its expiry.

/// This machine's name (empty if unknown).
pub fn hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: gethostname writes at most buf.len() bytes into buf.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    if rc != 0 {
        return String::new();
    }
    let end = buf.iter().position(|b| *b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

/// The worker id of this process: `memkit-<pid>@<host>`.
pub fn worker_id() -> String {
    format!("memkit-{}@{}", std::process::id(), hostname())
}

/// Whether process `pid` exists (signal 0 probes without sending anything).
pub fn pid_alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    if pid <= 0 {
        return false;
    }
    // SAFETY: kill with signal 0 only checks for existence and permission.
    let rc = unsafe { libc::kill(pid, 0) };
    rc == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// Whether a worker id names a memkit process on this machine that is gone.
pub fn worker_is_dead(worker: &str) -> bool {
    let Some(rest) = worker.strip_prefix("memkit-") else {
        return false;
    };
    let Some((pid, host)) = rest.split_once('@') else {
        return false;
    };
    let Ok(pid) = pid.parse::<u32>() else {
        return false;
    };
    host == hostname() && !pid_alive(pid)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn liveness() {
        assert!(pid_alive(std::process::id()));
        assert!(!worker_is_dead(&worker_id()));
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        assert!(worker_is_dead(&format!("memkit-{pid}@{}", hostname())));
        assert!(!worker_is_dead(&format!("memkit-{pid}@another-host")));
        assert!(!worker_is_dead("someone-else"));
    }
}
