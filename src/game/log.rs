//! The output of one part of the input (see `pool`): the thread that runs
//! the part appends each finished case's lines; whichever thread writes the
//! output (the driver, a timer, a signal) reads the cases finished so far
//! while more are appended.
//!
//! Appending takes no lock: a case's bytes are copied past the finished
//! ones and published by one store. Only a reader, and the appender when
//! it must move the bytes to a larger buffer, take the lock, so that no
//! buffer is freed while it is read.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

use super::output::copy;

/// Bytes of the first buffer.
const FIRST: usize = 4096;

/// Whole cases, appended by one thread and read by others.
pub(crate) struct Log {
    /// The buffer: `cap` bytes at `ptr`, from a boxed slice. Replaced only
    /// by the appender, under `lock`.
    ptr: AtomicPtr<u8>,
    cap: AtomicUsize,
    /// Bytes of finished cases, stored (release) once they are in place.
    len: AtomicUsize,
    /// Cases appended.
    cases: AtomicUsize,
    /// Bytes already written out by readers (moved under `lock`).
    written: AtomicUsize,
    /// An appender is attached (at most one: see [`Log::appender`]).
    attached: AtomicBool,
    lock: Mutex<()>,
}

// SAFETY: the buffer is owned by the log (freed in `Drop` or when replaced)
// and shared by these rules: the one appender writes only bytes at or past
// `len` (which no reader reads) and publishes them by a release store of
// `len`; readers read only bytes before `len` (loaded with acquire), under
// the lock; the buffer is replaced and freed only under the lock, after its
// finished bytes are copied. No byte is written while another thread reads
// it, and no buffer is freed while it is read.
unsafe impl Send for Log {}
unsafe impl Sync for Log {}

impl Default for Log {
    fn default() -> Log {
        Log {
            ptr: AtomicPtr::new(std::ptr::null_mut()),
            cap: AtomicUsize::new(0),
            len: AtomicUsize::new(0),
            cases: AtomicUsize::new(0),
            written: AtomicUsize::new(0),
            attached: AtomicBool::new(false),
            lock: Mutex::new(()),
        }
    }
}

impl Drop for Log {
    fn drop(&mut self) {
        free(*self.ptr.get_mut(), *self.cap.get_mut());
    }
}

/// Frees a buffer made by [`alloc`].
fn free(ptr: *mut u8, cap: usize) {
    if !ptr.is_null() {
        // SAFETY: `ptr` came from `Box::into_raw` of a boxed slice of
        // `cap` bytes (in `alloc`), and is freed once.
        drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr, cap)) });
    }
}

fn alloc(cap: usize) -> *mut u8 {
    Box::into_raw(vec![0u8; cap].into_boxed_slice()).cast::<u8>()
}

impl Log {
    fn lock(&self) -> MutexGuard<'_, ()> {
        self.lock.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Empties a log for another part (it keeps its buffer).
    pub(crate) fn clear(&mut self) {
        *self.len.get_mut() = 0;
        *self.cases.get_mut() = 0;
        *self.written.get_mut() = 0;
        *self.attached.get_mut() = false;
    }

    /// Claims the one appender of this log (the part's run). Panics when
    /// one is attached already: that is a bug of the driver.
    pub(crate) fn attach(&self) {
        let taken = self.attached.swap(true, Ordering::Relaxed);
        assert!(!taken, "a log has one appender");
    }

    /// Appends a finished case's bytes. Only the attached appender calls it.
    #[inline]
    pub(crate) fn push(&self, bytes: &[u8]) {
        let len = self.len.load(Ordering::Relaxed);
        let mut cap = self.cap.load(Ordering::Relaxed);
        if cap - len < bytes.len() {
            cap = self.grow(len, bytes.len());
        }
        let ptr = self.ptr.load(Ordering::Relaxed);
        debug_assert!(len + bytes.len() <= cap);
        // SAFETY: `len..len + bytes.len()` lies in the buffer (just grown
        // when needed) and past the finished bytes, which is all a reader
        // reads (see the rules on `Log`): no other reference to it exists.
        let free = unsafe { std::slice::from_raw_parts_mut(ptr.add(len), bytes.len()) };
        copy(free, bytes);
        self.len.store(len + bytes.len(), Ordering::Release);
        // One appender: no read-modify-write needed.
        self.cases.store(self.cases.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
    }

    /// Moves the `len` finished bytes to a buffer with room for `more`;
    /// its capacity.
    #[cold]
    fn grow(&self, len: usize, more: usize) -> usize {
        let old_cap = self.cap.load(Ordering::Relaxed);
        let cap = (len + more).max(2 * old_cap).max(FIRST);
        let new = alloc(cap);
        let _guard = self.lock();
        let old = self.ptr.load(Ordering::Relaxed);
        if len > 0 {
            // SAFETY: both buffers hold at least `len` bytes; the old one's
            // are finished (no one writes them) and the new one is ours.
            unsafe { std::ptr::copy_nonoverlapping(old, new, len) };
        }
        self.ptr.store(new, Ordering::Relaxed);
        self.cap.store(cap, Ordering::Relaxed);
        free(old, old_cap);
        cap
    }

    /// Bytes the log holds (its finished cases, written out or not).
    pub(crate) fn held(&self) -> usize {
        self.len.load(Ordering::Relaxed)
    }

    /// Cases appended so far.
    pub(crate) fn cases(&self) -> usize {
        self.cases.load(Ordering::Relaxed)
    }

    /// Whether every finished byte has been written out.
    pub(crate) fn all_written(&self) -> bool {
        self.written.load(Ordering::Relaxed) == self.len.load(Ordering::Acquire)
    }

    /// Writes the finished cases not written yet to `sink`; true when it
    /// wrote any. What could not be written (an error) counts as written.
    pub(crate) fn write_new(&self, sink: &mut dyn Write) -> io::Result<bool> {
        let _guard = self.lock();
        let len = self.len.load(Ordering::Acquire);
        let from = self.written.load(Ordering::Relaxed);
        if len == from {
            return Ok(false);
        }
        self.written.store(len, Ordering::Relaxed);
        let ptr = self.ptr.load(Ordering::Relaxed);
        // SAFETY: `from..len` are finished bytes of the current buffer,
        // which cannot be replaced while the lock is held.
        let bytes = unsafe { std::slice::from_raw_parts(ptr.add(from), len - from) };
        sink.write_all(bytes)?;
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn cases_read_while_more_are_appended_come_whole_in_order_once() {
        let log = Arc::new(Log::default());
        let mut want = Vec::new();
        let cases: Vec<Vec<u8>> = (0..20_000usize)
            .map(|i| {
                let len = if i % 4999 == 4998 { 3 * FIRST + i % 11 } else { i * 7919 % 200 };
                (0..len).map(|k| b'a' + ((i + k) % 26) as u8).chain([b'\n']).collect()
            })
            .collect();
        for c in &cases {
            want.extend_from_slice(c);
        }
        let writer = {
            let log = log.clone();
            std::thread::spawn(move || {
                log.attach();
                for c in &cases {
                    log.push(c);
                }
            })
        };
        let mut seen = Vec::new();
        while !writer.is_finished() {
            log.write_new(&mut seen).unwrap();
            // Only whole cases: what is written so far ends a line.
            assert!(seen.last().is_none_or(|&b| b == b'\n'));
        }
        writer.join().unwrap();
        log.write_new(&mut seen).unwrap();
        assert!(seen == want, "every case, in order, once");
        assert_eq!(log.cases(), 20_000);
        assert!(log.all_written());
    }
}
