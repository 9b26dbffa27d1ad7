//! A child process measured by the kernel (its processor time: wait4(2)'s
//! rusage) or held within a memory limit, for tests of resources, not of
//! speed.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What a finished child used.
pub struct Usage {
    /// The exit code (`None`: killed by a signal).
    pub code: Option<i32>,
    /// User and system time of every thread.
    pub cpu: Duration,
    /// From its start to its end, as this process saw it.
    pub wall: Duration,
}

/// Runs `cmd` (its output thrown away) and measures it.
pub fn measured(cmd: &mut Command) -> Usage {
    let start = Instant::now();
    // Reaped by wait4 below, which also gives its usage.
    #[allow(clippy::zombie_processes)]
    let child = cmd.stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    let mut status = 0;
    // SAFETY: wait4(2) on the pid of a child of this process, which nothing
    // else waits for; `usage` is plain data the kernel fills in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let reaped = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    let wall = start.elapsed();
    assert_eq!(reaped, child.id() as i32);
    let time = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    Usage {
        code: libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status)),
        cpu: time(usage.ru_utime) + time(usage.ru_stime),
        wall,
    }
}

/// Runs `cmd` with its address space limited to `bytes` (RLIMIT_AS): an
/// allocation past it fails, and the child aborts. Not peak memory as
/// wait4 reports it: a child forked from this test program may count its
/// parent's pages there.
pub fn within_memory(cmd: &mut Command, bytes: u64) -> std::process::Output {
    use std::os::unix::process::CommandExt;
    // SAFETY: setrlimit(2) is async-signal-safe, the one call made between
    // fork and exec; it touches no memory of the parent.
    unsafe {
        cmd.pre_exec(move || {
            let limit = libc::rlimit { rlim_cur: bytes as libc::rlim_t, rlim_max: bytes as libc::rlim_t };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) == 0 {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        });
    }
    cmd.output().unwrap()
}
