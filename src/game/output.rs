//! The output sink engines write whole lines to.

use std::io::{self, Write};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// Buffered output that engines write whole lines to. It is flushed when
/// the buffer grows past a threshold, after every case when the output is
/// interactive, when the run ends, and before any diagnostic is printed, so
/// no computed line is ever lost.
///
/// Written to a [`Shared`] sink, the lines of every finished case wait where
/// other threads can write them out too: before the input blocks for more
/// (so a program that feeds cases one by one through pipes gets each answer
/// at once), and when a signal ends the process (SIGINT, SIGTERM).
pub struct Output<'w> {
    buf: Vec<u8>,
    sink: Sink<'w>,
    /// Flush after every case (a terminal).
    eager: bool,
}

enum Sink<'w> {
    Borrowed(&'w mut dyn Write),
    Shared(Shared),
}

const FLUSH_AT: usize = 1 << 16;

impl<'w> Output<'w> {
    pub fn new(sink: &'w mut dyn Write) -> Self {
        Output { buf: Vec::with_capacity(FLUSH_AT + 1024), sink: Sink::Borrowed(sink), eager: false }
    }

    /// Flush after every case (for terminals and pipes read line by line).
    pub fn eager(mut self, eager: bool) -> Self {
        self.eager = eager;
        self
    }

    /// Appends bytes (one or more whole lines).
    pub fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.buf.extend_from_slice(bytes);
        if self.buf.len() >= FLUSH_AT {
            self.flush()?;
        }
        Ok(())
    }

    /// The buffer to render into directly; call [`Output::end_case`] after.
    pub fn buffer(&mut self) -> &mut Vec<u8> {
        &mut self.buf
    }

    /// Marks the end of a case: its lines are finished; flushes when due.
    pub fn end_case(&mut self) -> io::Result<()> {
        match &mut self.sink {
            Sink::Borrowed(_) => {
                if self.eager || self.buf.len() >= FLUSH_AT {
                    self.flush()?;
                }
                Ok(())
            }
            Sink::Shared(shared) => {
                let mut state = shared.lock();
                state.pending.extend_from_slice(&self.buf);
                self.buf.clear();
                if self.eager || state.pending.len() >= FLUSH_AT {
                    state.write_out();
                }
                state.error.take().map_or(Ok(()), Err)
            }
        }
    }

    /// Writes what is buffered to the sink.
    pub fn flush(&mut self) -> io::Result<()> {
        match &mut self.sink {
            Sink::Borrowed(sink) => {
                if !self.buf.is_empty() {
                    let r = sink.write_all(&self.buf);
                    self.buf.clear();
                    r?;
                }
                sink.flush()
            }
            Sink::Shared(shared) => {
                let mut state = shared.lock();
                state.pending.extend_from_slice(&self.buf);
                self.buf.clear();
                state.write_out();
                state.error.take().map_or(Ok(()), Err)
            }
        }
    }
}

impl Output<'static> {
    /// An output whose finished cases wait in `shared` until written.
    pub fn shared(shared: Shared) -> Self {
        Output { buf: Vec::with_capacity(FLUSH_AT + 1024), sink: Sink::Shared(shared), eager: false }
    }
}

impl Drop for Output<'_> {
    fn drop(&mut self) {
        let _ = self.flush();
    }
}

/// A sink shared between the thread that runs the cases and others: the
/// lines of finished cases, waiting to be written, and the writer.
#[derive(Clone)]
pub struct Shared(Arc<Mutex<SharedState>>);

struct SharedState {
    pending: Vec<u8>,
    sink: Box<dyn Write + Send>,
    /// The first write error, until the run reports it.
    error: Option<io::Error>,
}

impl SharedState {
    /// Writes the pending lines; a failure is kept for the run to report
    /// (and what could not be written is dropped).
    fn write_out(&mut self) {
        if self.error.is_some() {
            self.pending.clear();
            return;
        }
        let r = self.sink.write_all(&self.pending).and_then(|()| self.sink.flush());
        self.pending.clear();
        if let Err(e) = r {
            self.error = Some(e);
        }
    }
}

impl Shared {
    pub fn new(sink: impl Write + Send + 'static) -> Shared {
        Shared(Arc::new(Mutex::new(SharedState { pending: Vec::new(), sink: Box::new(sink), error: None })))
    }

    fn lock(&self) -> MutexGuard<'_, SharedState> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Writes the lines of the cases finished so far (before a read that
    /// may block). A write error is kept for the run to report.
    pub fn write_pending(&self) {
        let mut state = self.lock();
        if !state.pending.is_empty() {
            state.write_out();
        }
    }

    /// Writes the lines of the cases finished so far, waiting at most
    /// `patience` for a write in progress (a signal is ending the process:
    /// a reader that stopped reading must not keep it alive). True when
    /// they were written.
    pub fn write_pending_within(&self, patience: Duration) -> bool {
        let deadline = Instant::now() + patience;
        loop {
            match self.0.try_lock() {
                Ok(mut state) => {
                    state.write_out();
                    return state.error.is_none();
                }
                Err(std::sync::TryLockError::Poisoned(p)) => {
                    p.into_inner().write_out();
                    return false;
                }
                Err(std::sync::TryLockError::WouldBlock) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(5));
                }
                Err(std::sync::TryLockError::WouldBlock) => return false,
            }
        }
    }
}

/// A reader that writes the finished cases of `out` before each read: an
/// input fed case by case through a pipe gets each answer before arbiter
/// waits for the next case.
pub struct FlushBeforeRead<R> {
    inner: R,
    out: Shared,
}

impl<R> FlushBeforeRead<R> {
    pub fn new(inner: R, out: Shared) -> Self {
        FlushBeforeRead { inner, out }
    }
}

impl<R: io::Read> io::Read for FlushBeforeRead<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.out.write_pending();
        self.inner.read(buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sink other threads can look into.
    #[derive(Clone, Default)]
    struct Seen(Arc<Mutex<Vec<u8>>>);

    impl Write for Seen {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn finished_cases_can_be_written_by_another_thread() {
        let seen = Seen::default();
        let shared = Shared::new(seen.clone());
        let mut out = Output::shared(shared.clone());
        out.write(b"case 1\n").unwrap();
        out.end_case().unwrap();
        out.write(b"half of case 2").unwrap();
        // What a signal handler does while case 2 is being solved.
        let other = shared.clone();
        assert!(std::thread::spawn(move || other.write_pending_within(Duration::from_secs(1))).join().unwrap());
        assert_eq!(&*seen.0.lock().unwrap(), b"case 1\n", "only finished cases");
        out.write(b"\n").unwrap();
        out.end_case().unwrap();
        drop(out);
        assert_eq!(&*seen.0.lock().unwrap(), b"case 1\nhalf of case 2\n");
    }
}
