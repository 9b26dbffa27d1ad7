//! The output sink engines write whole lines to.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use super::log::Log;

/// Buffered output that engines write whole lines to. It is flushed when
/// the buffer grows past a threshold, after every case when the output is
/// interactive, when the run ends, and before any diagnostic is printed, so
/// no computed line is ever lost.
///
/// Written to a [`Shared`] sink, the lines of every finished case wait where
/// other threads can write them out too: before the input blocks for more
/// (so a program that feeds cases one by one through pipes gets each answer
/// at once), and when a signal ends the process (SIGINT, SIGTERM); until
/// the sink's writer starts (see [`Shared::start_writer_later`]), each
/// finished case is written as it ends instead.
pub struct Output<'w> {
    buf: Vec<u8>,
    sink: Sink<'w>,
    /// Flush after every case (a terminal).
    eager: bool,
    /// A shared sink's writer has not started yet (see
    /// [`Shared::start_writer_later`]): each finished case is written at
    /// once, so that none waits, while the cases come slowly and few.
    young: Option<Young>,
    /// Cases finished on other threads, written after the buffer (a
    /// borrowed sink's; a shared sink keeps them in its state).
    pending: Option<Arc<dyn Pending>>,
}

enum Sink<'w> {
    Borrowed(&'w mut dyn Write),
    Shared(Shared),
    /// A part's log (see `pool`): finished cases are appended to it, and a
    /// flush writes nothing (the driver writes parts in input order).
    Log(&'w Log),
}

/// Cases finished on other threads that come after everything an
/// [`Output`] holds: the parts the parallel driver runs. Whoever writes the
/// output (a flush, a read about to block, a timer, a signal) writes the
/// ones finished in input order too.
pub(crate) trait Pending: Send + Sync {
    /// Writes the cases finished in input order that are not written yet;
    /// true when it wrote any.
    fn write_new(&self, sink: &mut dyn Write) -> io::Result<bool>;
}

/// The one flush threshold: the buffer is written when it grows past this
/// (between cases, and within a long case through [`Output::flush_if_full`]).
const FLUSH_AT: usize = 1 << 16;

/// Most bytes of output a part run on a worker holds (its log and the case
/// being rendered): a part whose cases print more stops at the end of the
/// case that passes it (or within a case, where the engine asks
/// [`Output::flush_if_full`]), and the driver reads the rest of the input
/// on one thread, which writes as it goes. Parts are cut by input bytes and
/// processor time, not by what their cases print: a rule file whose
/// template prints megabytes a case made a part of a thousand deals hold
/// gigabytes, and the run end for want of memory. The usual parts print
/// far less (Snooker's referee: about 250 KB for a part of 128 KiB); at 16
/// MiB, the parts in flight of a referee printing 15 MB a frame took 120 MB
/// and 0.22 s against 0.09 s on one thread; at 4 MiB, 14 MB and 0.09 s.
pub(crate) const PART_OUTPUT: usize = 4 << 20;

/// The error that stops a part whose output reached [`PART_OUTPUT`] (never
/// reported: the driver reads the part again on one thread).
#[derive(Debug)]
struct PartFull;

impl std::fmt::Display for PartFull {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "a part's output reached {PART_OUTPUT} bytes")
    }
}

impl std::error::Error for PartFull {}

/// Whether `e` is the error of a part whose output is full.
pub(crate) fn is_part_full(e: &io::Error) -> bool {
    e.get_ref().is_some_and(|inner| inner.is::<PartFull>())
}

/// The cases of a run before its writer starts (see [`Young`]).
#[derive(Debug, Clone, Copy)]
struct Young {
    /// Cases written at once so far.
    cases: u32,
    /// When the last one ended (or the output was made).
    since: Instant,
}

/// Cases written one by one, at most, before the writer starts: a write
/// costs a few microseconds, the writer's thread 0.1-0.3 ms of processor
/// time (measured on an empty input and on Havannah's large input, 20
/// cases of 0.4 ms: 9.05 ms against 8.87 without it).
const YOUNG_CASES: u32 = 32;
/// A case that took less than this starts the writer at once: fast cases
/// are handed over to be written together, not one write each.
const QUICK_CASE: Duration = Duration::from_micros(100);

impl<'w> Output<'w> {
    pub fn new(sink: &'w mut dyn Write) -> Self {
        Output {
            buf: Vec::with_capacity(FLUSH_AT + 1024),
            sink: Sink::Borrowed(sink),
            eager: false,
            young: None,
            pending: None,
        }
    }

    /// An output that appends each finished case to `log` (one output per
    /// log), for a part run on a worker thread.
    pub(crate) fn to_log(log: &'w Log) -> Self {
        log.attach();
        Output { buf: Vec::with_capacity(1024), sink: Sink::Log(log), eager: false, young: None, pending: None }
    }

    /// From now on, cases finished elsewhere (`pending`) are written after
    /// this output's own, by whoever writes them out; `None` stops that.
    pub(crate) fn set_pending(&mut self, pending: Option<Arc<dyn Pending>>) {
        if pending.is_some() {
            // Cases finish on other threads: the writer writes them.
            self.grow_up();
        }
        match &self.sink {
            Sink::Shared(shared) => {
                shared.0.has_pending.store(pending.is_some(), Ordering::Relaxed);
                shared.lock().pending = pending;
            }
            _ => self.pending = pending,
        }
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

    /// Within a long case (a frame of thousands of strokes): writes the
    /// lines rendered so far when the buffer has grown past the flush
    /// threshold, so that memory stays bounded; true when it did (the buffer
    /// is then empty).
    pub fn flush_if_full(&mut self) -> io::Result<bool> {
        if let Sink::Log(log) = &self.sink {
            // A part's lines are written once the parts before it are: a
            // case that prints too much stops the part (see PART_OUTPUT).
            if log.held() + self.buf.len() >= PART_OUTPUT {
                return Err(io::Error::other(PartFull));
            }
            return Ok(false);
        }
        if self.buf.len() < FLUSH_AT {
            return Ok(false);
        }
        self.flush()?;
        Ok(true)
    }

    /// Marks the end of a case: its lines are finished; flushes when due.
    #[inline]
    pub fn end_case(&mut self) -> io::Result<()> {
        // The usual cases, without a call: the lines handed over to the
        // ring, or to a part's log.
        match &self.sink {
            Sink::Shared(shared) if !self.eager && self.young.is_none() && shared.0.hand_over(&self.buf) => {
                self.buf.clear();
                return Ok(());
            }
            Sink::Log(log) => {
                log.push(&self.buf);
                self.buf.clear();
                if log.held() >= PART_OUTPUT {
                    return Err(io::Error::other(PartFull));
                }
                return Ok(());
            }
            _ => {}
        }
        if self.young.is_some() {
            return self.end_young_case();
        }
        self.end_case_now()
    }

    /// [`Output::end_case`] before the writer starts: the case is written
    /// at once, unless it came quickly or after [`YOUNG_CASES`], which
    /// start the writer (and the case is handed over to it).
    #[inline(never)]
    fn end_young_case(&mut self) -> io::Result<()> {
        let now = Instant::now();
        if let Some(young) = &mut self.young {
            let quick = now.saturating_duration_since(young.since) < QUICK_CASE;
            young.since = now;
            young.cases += 1;
            if quick || young.cases > YOUNG_CASES {
                self.grow_up();
                return self.end_case();
            }
        }
        self.flush()
    }

    /// Starts the shared sink's writer, if it waits (see
    /// [`Shared::start_writer_later`]).
    fn grow_up(&mut self) {
        if self.young.take().is_some() {
            if let Sink::Shared(shared) = &self.sink {
                shared.start_writer();
            }
        }
    }

    /// [`Output::end_case`] when the lines are written now.
    #[inline(never)]
    fn end_case_now(&mut self) -> io::Result<()> {
        match &mut self.sink {
            Sink::Borrowed(_) => {
                if self.eager || self.buf.len() >= FLUSH_AT {
                    self.flush()?;
                }
                Ok(())
            }
            Sink::Shared(_) | Sink::Log(_) => self.flush(),
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
                if let Some(pending) = &self.pending {
                    pending.write_new(*sink)?;
                }
                sink.flush()
            }
            Sink::Shared(shared) => {
                let mut state = shared.lock();
                shared.0.write_out_and_rewind(&mut state, &self.buf);
                self.buf.clear();
                shared.0.take_error(&mut state)
            }
            // A part's unfinished case stays in the buffer: the driver
            // writes parts, whole cases only.
            Sink::Log(_) => Ok(()),
        }
    }
}

impl Output<'static> {
    /// An output whose finished cases wait in `shared` until written. Each
    /// `Shared` has one such output (the thread that runs the cases).
    pub fn shared(shared: Shared) -> Self {
        let taken = shared.0.producer.swap(true, Ordering::Relaxed);
        assert!(!taken, "a Shared sink takes the cases of one Output");
        let young = shared.writer_waits().then(|| Young { cases: 0, since: Instant::now() });
        Output {
            buf: Vec::with_capacity(FLUSH_AT + 1024),
            sink: Sink::Shared(shared),
            eager: false,
            young,
            pending: None,
        }
    }
}

impl Drop for Output<'_> {
    fn drop(&mut self) {
        let _ = self.flush();
    }
}

/// A sink shared between the thread that runs the cases and others: the
/// lines of finished cases, waiting to be written, and the writer.
///
/// Finished cases wait in a ring of bytes that the thread running the
/// cases fills without a lock (a case is handed over with plain stores:
/// a lock per case would cost more than reading and solving a fast case);
/// whoever writes them out (that thread when the ring is full, a read of
/// the input about to block, a signal ending the process) takes the lock.
#[derive(Clone)]
pub struct Shared(Arc<Inner>);

struct Inner {
    /// The ring: `RING` bytes; the finished cases not yet written are the
    /// bytes from `tail` to `head` (counts of bytes ever handed over and
    /// ever taken out, taken modulo `RING`).
    ring: *mut u8,
    /// Moved only by the output (the one producer), with release stores
    /// after the bytes are in the ring.
    head: AtomicUsize,
    /// Moved only under `state`'s lock, after the bytes are written out.
    tail: AtomicUsize,
    /// An [`Output`] fills this ring (at most one).
    producer: AtomicBool,
    /// A write failed: `state.error` may hold the error.
    failed: AtomicBool,
    /// `state.pending` is set.
    has_pending: AtomicBool,
    state: Mutex<SharedState>,
    /// The writer, until it starts (see [`Shared::start_writer_later`]).
    writer: Mutex<Option<Writer>>,
}

/// What starts a shared sink's writer.
type Writer = Box<dyn FnOnce(&Shared) + Send>;

// SAFETY: `ring` is owned by `Inner` (freed in its `Drop`) and its bytes
// are shared by the rules above: the one producer writes only bytes
// outside `tail..head` (free space) and publishes them by a release store
// of `head`; consumers, under the lock, read only bytes of `tail..head`
// (loaded with acquire) and free them by a release store of `tail`, which
// the producer loads with acquire before reusing them. No byte is written
// while another thread reads it, and no reference to the whole ring exists.
unsafe impl Send for Inner {}
unsafe impl Sync for Inner {}

/// Bytes of finished cases waiting at most: a case that does not fit is
/// written out at once with what waits.
const RING: usize = FLUSH_AT;

struct SharedState {
    sink: Box<dyn Write + Send>,
    /// The first write error, until the run reports it.
    error: Option<io::Error>,
    /// Cases finished on other threads, after those of the ring.
    pending: Option<Arc<dyn Pending>>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        // SAFETY: `ring` came from `Box::into_raw` of a boxed slice of
        // `RING` bytes, and is freed once, here.
        drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(self.ring, RING)) });
    }
}

impl Inner {
    /// Hands `bytes` (whole cases) over without a lock, when they fit in
    /// the ring before its end (and no write failed); false when they do
    /// not (nothing is done).
    #[inline(always)]
    fn hand_over(&self, bytes: &[u8]) -> bool {
        let head = self.head.load(Ordering::Relaxed);
        let tail = self.tail.load(Ordering::Acquire);
        let at = head % RING;
        if bytes.len() > RING - at || head - tail > at || self.failed.load(Ordering::Relaxed) {
            return false;
        }
        // SAFETY: `at..at + bytes.len()` lies in the ring (before its end)
        // and in its free space (what waits, `tail..head`, lies before
        // `at`), which no other thread reads or writes (see `Inner`'s rules).
        let free = unsafe { std::slice::from_raw_parts_mut(self.ring.add(at), bytes.len()) };
        copy(free, bytes);
        self.head.store(head + bytes.len(), Ordering::Release);
        true
    }

    /// Writes the cases waiting in the ring, then `more` (under the lock,
    /// which `state` is). A failure is kept for the run to report (and
    /// what could not be written is dropped).
    fn write_out(&self, state: &mut SharedState, more: &[u8]) {
        let tail = self.tail.load(Ordering::Relaxed);
        let head = self.head.load(Ordering::Acquire);
        let at = tail % RING;
        let len = head - tail;
        let first = len.min(RING - at);
        // SAFETY: `tail..head` holds bytes the producer published (release
        // store of `head`, loaded with acquire) and does not touch until
        // `tail` moves past them, which only this thread does, under the lock.
        let (a, b) = unsafe {
            (std::slice::from_raw_parts(self.ring.add(at), first), std::slice::from_raw_parts(self.ring, len - first))
        };
        if state.error.is_none() {
            let SharedState { sink, pending, .. } = state;
            let mut write = || -> io::Result<()> {
                let mut wrote = len > 0 || !more.is_empty();
                if wrote {
                    sink.write_all(a)?;
                    sink.write_all(b)?;
                    sink.write_all(more)?;
                }
                if let Some(pending) = pending {
                    wrote |= pending.write_new(&mut **sink)?;
                }
                if wrote {
                    sink.flush()?;
                }
                Ok(())
            };
            if let Err(e) = write() {
                state.error = Some(e);
                self.failed.store(true, Ordering::Relaxed);
            }
        }
        self.tail.store(head, Ordering::Release);
    }

    /// [`Inner::write_out`] by the producer, which then starts the empty
    /// ring over at its beginning.
    fn write_out_and_rewind(&self, state: &mut SharedState, more: &[u8]) {
        self.write_out(state, more);
        // Nothing waits, and no other thread moves `tail` or reads the ring
        // while the lock is held.
        let start = self.head.load(Ordering::Relaxed).next_multiple_of(RING);
        self.tail.store(start, Ordering::Release);
        self.head.store(start, Ordering::Release);
    }

    /// The write error kept, if any (reported once).
    fn take_error(&self, state: &mut SharedState) -> io::Result<()> {
        self.failed.store(false, Ordering::Relaxed);
        state.error.take().map_or(Ok(()), Err)
    }
}

/// Copies `src` to `dst` (as long): the lines of a fast case are a few
/// bytes, copied here in two overlapping words rather than by a call.
#[inline(always)]
pub(super) fn copy(dst: &mut [u8], src: &[u8]) {
    let n = src.len().min(dst.len());
    let (dst, src) = (&mut dst[..n], &src[..n]);
    match n {
        0 => {}
        1..=3 => {
            dst[0] = src[0];
            dst[n / 2] = src[n / 2];
            dst[n - 1] = src[n - 1];
        }
        4..=7 => {
            dst[..4].copy_from_slice(&src[..4]);
            dst[n - 4..].copy_from_slice(&src[n - 4..]);
        }
        8..=16 => {
            dst[..8].copy_from_slice(&src[..8]);
            dst[n - 8..].copy_from_slice(&src[n - 8..]);
        }
        17..=32 => {
            dst[..16].copy_from_slice(&src[..16]);
            dst[n - 16..].copy_from_slice(&src[n - 16..]);
        }
        _ => dst.copy_from_slice(src),
    }
}

impl Shared {
    pub fn new(sink: impl Write + Send + 'static) -> Shared {
        let ring = Box::into_raw(vec![0u8; RING].into_boxed_slice()).cast::<u8>();
        Shared(Arc::new(Inner {
            ring,
            head: AtomicUsize::new(0),
            tail: AtomicUsize::new(0),
            producer: AtomicBool::new(false),
            failed: AtomicBool::new(false),
            has_pending: AtomicBool::new(false),
            state: Mutex::new(SharedState { sink: Box::new(sink), error: None, pending: None }),
            writer: Mutex::new(None),
        }))
    }

    /// `start` starts the writer of this sink (the thread that writes the
    /// finished cases every so often, and when a signal ends the process),
    /// when the [`Output`] made after this call first lets cases wait: the
    /// first case that came quickly, the case after the 32 first, or
    /// threads that run parts. Until then each case is written as it
    /// ends, so that none waits for a writer: a run of a few slow cases (a
    /// board game's, a search's) never starts the thread.
    pub fn start_writer_later(&self, start: impl FnOnce(&Shared) + Send + 'static) {
        *self.0.writer.lock().unwrap_or_else(PoisonError::into_inner) = Some(Box::new(start));
    }

    /// Whether a writer waits to start.
    fn writer_waits(&self) -> bool {
        self.0.writer.lock().unwrap_or_else(PoisonError::into_inner).is_some()
    }

    /// Starts the writer, if it waits.
    fn start_writer(&self) {
        let start = self.0.writer.lock().unwrap_or_else(PoisonError::into_inner).take();
        if let Some(start) = start {
            start(self);
        }
    }

    fn lock(&self) -> MutexGuard<'_, SharedState> {
        self.0.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Writes the lines of the cases finished so far (before a read that
    /// may block). A write error is kept for the run to report.
    pub fn write_pending(&self) {
        if self.0.head.load(Ordering::Acquire) != self.0.tail.load(Ordering::Relaxed)
            || self.0.has_pending.load(Ordering::Relaxed)
        {
            self.0.write_out(&mut self.lock(), &[]);
        }
    }

    /// Writes the lines of the cases finished so far, waiting at most
    /// `patience` for a write in progress (a signal is ending the process:
    /// a reader that stopped reading must not keep it alive). True when
    /// they were written.
    pub fn write_pending_within(&self, patience: Duration) -> bool {
        let deadline = Instant::now() + patience;
        loop {
            match self.0.state.try_lock() {
                Ok(mut state) => {
                    self.0.write_out(&mut state, &[]);
                    return state.error.is_none();
                }
                Err(std::sync::TryLockError::Poisoned(p)) => {
                    self.0.write_out(&mut p.into_inner(), &[]);
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

    /// Every length up to 40 is copied whole, and nothing after it.
    #[test]
    fn copies_are_exact_at_every_length() {
        let src: Vec<u8> = (1..=40).collect();
        for n in 0..=40 {
            let mut dst = [0u8; 48];
            copy(&mut dst[..n], &src[..n]);
            assert_eq!(&dst[..n], &src[..n], "{n}");
            assert!(dst[n..].iter().all(|&b| b == 0), "{n}");
        }
    }

    /// A part's output stops the part once it holds PART_OUTPUT bytes: at
    /// the end of the case that reaches it, or within a case that would
    /// (where the engine asks `flush_if_full`); every case finished before
    /// stays in the log.
    #[test]
    fn a_part_stops_once_its_output_is_full() {
        let log = Log::default();
        let mut out = Output::to_log(&log);
        let case = vec![b'x'; PART_OUTPUT / 4 + 1];
        for k in 1..=3 {
            out.buffer().extend_from_slice(&case);
            assert!(out.end_case().is_ok(), "case {k}");
            assert!(matches!(out.flush_if_full(), Ok(false)), "case {k}");
        }
        out.buffer().extend_from_slice(&case);
        let e = out.flush_if_full().expect_err("a case that fills the output stops within");
        assert!(is_part_full(&e), "{e}");
        let e = out.end_case().expect_err("and at its end");
        assert!(is_part_full(&e), "{e}");
        assert_eq!((log.cases(), log.held()), (4, 4 * case.len()));
        assert!(!is_part_full(&io::Error::other("full disk")));
    }

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
    fn a_long_case_is_written_once_the_buffer_reaches_the_threshold() {
        let mut sink = Vec::new();
        let mut out = Output::new(&mut sink);
        out.buffer().resize(FLUSH_AT - 1, b'x');
        assert!(!out.flush_if_full().unwrap());
        out.buffer().push(b'x');
        assert!(out.flush_if_full().unwrap());
        assert!(out.buffer().is_empty());
        drop(out);
        assert_eq!(sink.len(), FLUSH_AT);
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

    /// Before its writer starts, a slow case (slower than QUICK_CASE: the
    /// test sleeps longer) is written as it ends; the writer starts once,
    /// after YOUNG_CASES of them, and the cases after it wait to be written
    /// (by the writer, a read, or the end).
    #[test]
    fn slow_cases_are_written_at_once_until_the_writer_starts() {
        let seen = Seen::default();
        let shared = Shared::new(seen.clone());
        let starts = Arc::new(AtomicUsize::new(0));
        let s = starts.clone();
        shared.start_writer_later(move |_| {
            s.fetch_add(1, Ordering::Relaxed);
        });
        let mut out = Output::shared(shared.clone());
        let mut want = Vec::new();
        for i in 0..YOUNG_CASES as usize + 3 {
            std::thread::sleep(QUICK_CASE * 2);
            let line = format!("case {i}\n");
            out.buffer().extend_from_slice(line.as_bytes());
            out.end_case().unwrap();
            want.extend_from_slice(line.as_bytes());
            let young = i < YOUNG_CASES as usize;
            assert_eq!(starts.load(Ordering::Relaxed), usize::from(!young), "after case {i}");
            if young {
                assert!(*seen.0.lock().unwrap() == want, "case {i} written as it ended");
            }
        }
        assert!(seen.0.lock().unwrap().len() < want.len(), "the cases after the writer started wait");
        drop(out);
        assert!(*seen.0.lock().unwrap() == want);
        assert_eq!(starts.load(Ordering::Relaxed), 1);
    }

    /// Parts run on other threads start the writer at once; an output
    /// whose sink has no writer to start hands every case over.
    #[test]
    fn threads_that_run_parts_start_the_writer() {
        struct Nothing;
        impl Pending for Nothing {
            fn write_new(&self, _: &mut dyn Write) -> io::Result<bool> {
                Ok(false)
            }
        }
        let shared = Shared::new(Seen::default());
        let starts = Arc::new(AtomicUsize::new(0));
        let s = starts.clone();
        shared.start_writer_later(move |_| {
            s.fetch_add(1, Ordering::Relaxed);
        });
        let mut out = Output::shared(shared.clone());
        assert!(out.young.is_some());
        out.set_pending(Some(Arc::new(Nothing)));
        out.set_pending(None);
        out.set_pending(Some(Arc::new(Nothing)));
        assert_eq!(starts.load(Ordering::Relaxed), 1);
        assert!(out.young.is_none());
        assert!(Output::shared(Shared::new(Seen::default())).young.is_none());
    }

    #[test]
    fn cases_written_out_by_other_threads_while_more_come_stay_whole_and_in_order() {
        let seen = Seen::default();
        let shared = Shared::new(seen.clone());
        let mut want = Vec::new();
        let stop = Arc::new(AtomicBool::new(false));
        let writers: Vec<_> = (0..2)
            .map(|_| {
                let (shared, stop) = (shared.clone(), stop.clone());
                std::thread::spawn(move || {
                    while !stop.load(Ordering::Relaxed) {
                        shared.write_pending();
                        shared.write_pending_within(Duration::from_millis(1));
                    }
                })
            })
            .collect();
        let mut out = Output::shared(shared.clone());
        // Cases of every length, some larger than the ring.
        for i in 0..20_000usize {
            let len = if i % 5000 == 4999 { RING + i % 7 } else { i * 7919 % 300 };
            let line: Vec<u8> = (0..len).map(|k| b'a' + ((i + k) % 26) as u8).chain([b'\n']).collect();
            out.buffer().extend_from_slice(&line);
            out.end_case().unwrap();
            want.extend_from_slice(&line);
            // What is written is always whole cases, in order.
            let now = seen.0.lock().unwrap().len();
            assert!(now <= want.len());
        }
        drop(out);
        stop.store(true, Ordering::Relaxed);
        for w in writers {
            w.join().unwrap();
        }
        assert!(*seen.0.lock().unwrap() == want, "the cases as written, in order, once");
    }
}
