//! Analyses off the typing path: one thread checks buffers while the
//! message loop keeps answering.
//!
//! The queue holds at most one job per buffer: a newer text of a buffer
//! replaces its job still waiting, so that twenty quick edits cost one or
//! two analyses, not twenty. A job whose buffer (or a base it read) has
//! changed since is cancelled: its token is set, and the check stops at its
//! next cancellation point (`crate::cancel`).

use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};

use super::analysis::Analysis;
use crate::load::LoadOptions;

/// The open buffers a job sees, by canonical path: their generation and
/// their text.
pub(super) type Overlays = HashMap<PathBuf, (u64, Arc<str>)>;

/// What a job does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Task {
    /// Check the buffer (its diagnostics, names, engine).
    Check,
    /// The figures of `arbiter analyze` (after a save or a pause).
    Figures,
    /// Run the buffer's worked examples (asked for by the user).
    Examples,
}

/// One job to run.
pub struct Job {
    pub task: Task,
    pub uri: String,
    /// The job's number (each job has its own); for figures and examples,
    /// the generation of the text.
    pub ticket: u64,
    /// The generation of the buffer's text it reads.
    pub generation: u64,
    pub path: PathBuf,
    pub text: Arc<str>,
    pub overlays: Arc<Overlays>,
    pub opts: LoadOptions,
    pub cancel: Arc<AtomicBool>,
}

/// A finished job.
pub struct Done {
    pub uri: String,
    pub ticket: u64,
    pub generation: u64,
    /// `None` when the job was cancelled.
    pub analysis: Option<Analysis>,
    /// An analysis of the text without the lines of its errors, made
    /// after one that did not load (names and engine for completion while
    /// a line is being typed); never published.
    pub fallback: bool,
    /// The open buffers it read, with their generations then.
    pub used: Vec<(PathBuf, u64)>,
}

#[derive(Default)]
struct Queue {
    jobs: VecDeque<Job>,
    closed: bool,
}

/// The analysis thread and its queue.
pub(super) struct Worker {
    queue: Arc<(Mutex<Queue>, Condvar)>,
}

impl Worker {
    /// Starts the thread; `done` receives every finished job.
    pub(super) fn start(done: impl Fn(Report) + Send + 'static) -> Worker {
        let queue: Arc<(Mutex<Queue>, Condvar)> = Arc::default();
        let q = queue.clone();
        std::thread::Builder::new()
            .name("arbiter-lsp-analysis".into())
            .spawn(move || {
                while let Some(job) = take(&q) {
                    match job.task {
                        Task::Check => check(&job, &done),
                        Task::Figures | Task::Examples => done(super::figures::run(&job)),
                    }
                }
            })
            .expect("a thread can be started");
        Worker { queue }
    }

    /// Queues a job, in place of a waiting one for the same buffer.
    pub(super) fn submit(&self, job: Job) {
        let (lock, ready) = &*self.queue;
        let mut q = lock.lock().unwrap_or_else(|e| e.into_inner());
        submit_to(&mut q.jobs, job);
        ready.notify_one();
    }

    /// Stops taking jobs (the one running ends on its own).
    pub(super) fn close(&self) {
        let (lock, ready) = &*self.queue;
        lock.lock().unwrap_or_else(|e| e.into_inner()).closed = true;
        ready.notify_all();
    }
}

/// What the thread reports.
pub enum Report {
    Checked(Done),
    /// Figures or examples, of the buffer's text at `generation`.
    Extra(super::figures::Extra),
}

/// A check of a buffer, then (when it does not load) the checks of its
/// text without the lines of its errors.
fn check(job: &Job, done: &impl Fn(Report)) {
    let (first, retry) = run(job, &job.text, false);
    // Names for completion first, so that a completion asked once the
    // diagnostics are out has them.
    if let Some(text) = retry {
        let (second, again) = run(job, &text, true);
        // The line before a syntax error is often the one being typed:
        // without it too.
        let before = second.analysis.as_ref().zip(again).and_then(|(a, t)| blank_before_error(a, t));
        match before {
            Some(text) => done(Report::Checked(run(job, &text, true).0)),
            None => done(Report::Checked(second)),
        }
    }
    done(Report::Checked(first));
}

/// A newer job for a buffer replaces its waiting job of the same task; a
/// check also replaces its waiting figures and examples (they would be of
/// an older text).
fn submit_to(jobs: &mut VecDeque<Job>, job: Job) {
    jobs.retain(|j| {
        let stale = j.uri == job.uri && (j.task == job.task || job.task == Task::Check);
        if stale {
            j.cancel.store(true, Ordering::Relaxed);
        }
        !stale
    });
    jobs.push_back(job);
}

/// The next job, waiting for one; checks first; `None` once closed.
fn take(queue: &(Mutex<Queue>, Condvar)) -> Option<Job> {
    let (lock, ready) = queue;
    let mut q = lock.lock().unwrap_or_else(|e| e.into_inner());
    loop {
        if q.closed {
            return None;
        }
        let i = q.jobs.iter().position(|j| j.task == Task::Check).unwrap_or(0);
        if let Some(job) = q.jobs.remove(i) {
            return Some(job);
        }
        q = ready.wait(q).unwrap_or_else(|e| e.into_inner());
    }
}

/// Runs a job (a panic in the check is reported like a cancellation: the
/// server goes on, and the panic message is on stderr); and the text to
/// check next when the buffer does not load.
fn run(job: &Job, text: &str, fallback: bool) -> (Done, Option<String>) {
    let used = std::cell::RefCell::new(Vec::new());
    let mut retry = None;
    let analysis = if job.cancel.load(Ordering::Relaxed) {
        None
    } else {
        let overlay = |p: &std::path::Path| {
            let canon = super::text::canonical(p);
            let (generation, text) = job.overlays.get(&canon)?;
            used.borrow_mut().push((canon, *generation));
            Some(text.to_string())
        };
        let work = || Analysis::with(&job.path, text, &job.opts, &overlay);
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| crate::cancel::run(&job.cancel, work))) {
            Ok(Ok(a)) => {
                retry = blanked(&a);
                Some(a)
            }
            Ok(Err(crate::cancel::Cancelled)) | Err(_) => None,
        }
    };
    let used = used.into_inner();
    let done = Done { uri: job.uri.clone(), ticket: job.ticket, generation: job.generation, analysis, fallback, used };
    (done, retry)
}

/// `text` (already without its error lines) without the last line before
/// the first error of `a` that holds anything.
fn blank_before_error(a: &Analysis, text: String) -> Option<String> {
    let d = a.diags.iter().find(|d| d.span.file == 0 && d.is_error())?;
    let mut text = text.into_bytes();
    let mut end = text[..(d.span.start as usize).min(text.len())].iter().rposition(|&b| b == b'\n')?;
    loop {
        let start = text[..end].iter().rposition(|&b| b == b'\n').map_or(0, |n| n + 1);
        if text[start..end].iter().any(|b| !b.is_ascii_whitespace()) {
            text[start..end].fill(b' ');
            return String::from_utf8(text).ok();
        }
        end = start.checked_sub(1)?;
    }
}

/// The text of a buffer that does not load, without the lines of its
/// errors (spaces in their place, so that offsets stay): while a line is
/// being typed, the rest of the buffer still names things. Every such line
/// goes, so that this costs no more than checking the rest.
fn blanked(a: &Analysis) -> Option<String> {
    if a.items.is_some() {
        return None;
    }
    let file = a.sources.file(0);
    let mut text = file.text.to_string().into_bytes();
    let mut any = false;
    for d in a.diags.iter().filter(|d| d.span.file == 0 && d.is_error()) {
        let (start, end) = file.line_span(file.line_index(d.span.start as usize));
        text[start..end].fill(b' ');
        any = true;
    }
    any.then(|| String::from_utf8_lossy(&text).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(uri: &str, ticket: u64) -> Job {
        Job {
            task: Task::Check,
            uri: uri.into(),
            ticket,
            generation: ticket,
            path: PathBuf::from("/nowhere/x.rules"),
            text: Arc::from("engine: exchange\n"),
            overlays: Arc::default(),
            opts: LoadOptions::default(),
            cancel: Arc::default(),
        }
    }

    /// Twenty edits of one buffer queued before the thread takes any: one
    /// job, the last, and the nineteen before it cancelled.
    #[test]
    fn queued_edits_of_a_buffer_coalesce() {
        let mut jobs = VecDeque::new();
        let mut tokens = Vec::new();
        for g in 1..=20 {
            let j = job("file:///a.rules", g);
            tokens.push(j.cancel.clone());
            submit_to(&mut jobs, j);
            if g == 10 {
                submit_to(&mut jobs, job("file:///b.rules", 100));
            }
        }
        let left: Vec<(String, u64)> = jobs.iter().map(|j| (j.uri.clone(), j.ticket)).collect();
        assert_eq!(left, [("file:///b.rules".to_string(), 100), ("file:///a.rules".to_string(), 20)]);
        assert_eq!(tokens.iter().filter(|t| t.load(Ordering::Relaxed)).count(), 19);
    }

    #[test]
    fn a_cancelled_job_is_not_run() {
        let j = job("file:///a.rules", 1);
        j.cancel.store(true, Ordering::Relaxed);
        assert!(run(&j, &j.text, false).0.analysis.is_none());
        let j = job("file:///a.rules", 2);
        assert!(run(&j, &j.text, false).0.analysis.is_some());
    }
}
