//! An external program as a model: the request JSON on stdin, one JSON object
//! on stdout, a time limit, and a non-zero exit status counting as failure.

use super::{StructuredRequest, StructuredResponse, Transport};
use crate::error::{Error, Result};
use serde_json::json;
use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The command transport.
pub struct CommandTransport {
    argv: Vec<String>,
    timeout: Duration,
}

impl CommandTransport {
    /// Runs `argv` (program and arguments) for each request, killing it after `timeout`.
    pub fn new(argv: Vec<String>, timeout: Duration) -> Self {
        CommandTransport { argv, timeout }
    }
}

/// What a program's run produced.
pub struct ProgramOutput {
    /// Exit status code (`None` when killed by a signal).
    pub code: Option<i32>,
    /// Everything it printed on stdout.
    pub stdout: String,
    /// The end of what it printed on stderr.
    pub stderr_tail: String,
}

impl ProgramOutput {
    /// An error naming `program` with its exit status and the end of its
    /// stderr, unless it exited with status 0.
    pub fn check_success(&self, program: &str) -> Result<()> {
        if self.code == Some(0) {
            return Ok(());
        }
        Err(Error::failed(format!(
            "{program} exited with {}: {}",
            self.code
                .map_or("a signal".to_string(), |c| format!("status {c}")),
            self.stderr_tail
        )))
    }
}

/// Runs `argv` in `cwd` with `stdin` as input, killing it (and everything it
/// started, as one process group) after `timeout`.
pub fn run_program(
    argv: &[String],
    stdin: &[u8],
    cwd: Option<&std::path::Path>,
    timeout: Duration,
) -> Result<ProgramOutput> {
    use std::os::unix::process::CommandExt;
    let (program, args) = argv
        .split_first()
        .ok_or_else(|| Error::usage("empty command"))?;
    let mut cmd = Command::new(program);
    cmd.args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    if let Some(dir) = cwd {
        cmd.current_dir(dir);
    }
    #[cfg(target_os = "linux")]
    // SAFETY: prctl is async-signal-safe; it only asks the kernel to kill the
    // program when memkit dies (even by SIGKILL), so no orphan keeps editing.
    unsafe {
        cmd.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            Ok(())
        });
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| Error::failed(format!("cannot run {program}: {e}")))?;
    crate::util::crashpoint::here("program:spawned");
    if let Some(mut pipe) = child.stdin.take() {
        let input = stdin.to_vec();
        std::thread::spawn(move || {
            let _ = pipe.write_all(&input);
        });
    }
    let stdout = read_in_background(child.stdout.take());
    let stderr = read_in_background(child.stderr.take());
    let deadline = Instant::now() + timeout;
    let status = loop {
        if let Some(status) = child
            .try_wait()
            .map_err(|e| Error::failed(format!("{program}: {e}")))?
        {
            break status;
        }
        if Instant::now() >= deadline {
            kill_group(child.id());
            let _ = child.kill();
            let _ = child.wait();
            return Err(Error::failed(format!(
                "{program} did not finish within {} and was stopped",
                humantime::format_duration(timeout)
            )));
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    // Output still held open by a leftover grandchild is not waited for long.
    let grace = Duration::from_secs(5);
    let stdout = stdout.recv_timeout(grace).unwrap_or_default();
    let stderr =
        String::from_utf8_lossy(&stderr.recv_timeout(grace).unwrap_or_default()).into_owned();
    let tail_start =
        crate::util::text::ceil_char_boundary(&stderr, stderr.len().saturating_sub(400));
    Ok(ProgramOutput {
        code: status.code(),
        stdout: String::from_utf8_lossy(&stdout).into_owned(),
        stderr_tail: stderr[tail_start..].trim().to_string(),
    })
}

fn read_in_background(
    pipe: Option<impl Read + Send + 'static>,
) -> std::sync::mpsc::Receiver<Vec<u8>> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(mut p) = pipe {
            let _ = p.read_to_end(&mut buf);
        }
        let _ = tx.send(buf);
    });
    rx
}

/// Kills the process group led by `pid` (the program and what it started).
///
/// The program was spawned as the leader of its own group, so the group id
/// is its pid; ids ≤ 1 are never signalled (that would reach other processes).
fn kill_group(pid: u32) {
    let Ok(pgid) = libc::pid_t::try_from(pid) else {
        return;
    };
    if pgid > 1 {
        // SAFETY: kill(2) with a negative pid signals exactly that process group.
        unsafe {
            libc::kill(-pgid, libc::SIGKILL);
        }
    }
}

impl Transport for CommandTransport {
    fn name(&self) -> &'static str {
        "command"
    }

    fn model(&self) -> String {
        self.argv.first().cloned().unwrap_or_default()
    }

    fn complete(&self, r: &StructuredRequest<'_>) -> Result<StructuredResponse> {
        let request = json!({
            "system": r.system,
            "user": r.user,
            "schema_name": r.schema_name,
            "schema": r.schema,
        });
        let out = run_program(
            &self.argv,
            request.to_string().as_bytes(),
            None,
            self.timeout,
        )?;
        out.check_success(&self.argv[0])?;
        Ok(StructuredResponse {
            text: out.stdout,
            tokens_in: None,
            tokens_out: None,
            tokens_cached: None,
        })
    }
}
