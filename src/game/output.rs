//! The output sink engines write whole lines to.

use std::io::{self, Write};

/// Buffered output that engines write whole lines to. It is flushed when
/// the buffer grows past a threshold, after every case when the output is
/// interactive, when the run ends, and before any diagnostic is printed, so
/// no computed line is ever lost.
pub struct Output<'w> {
    buf: Vec<u8>,
    sink: &'w mut dyn Write,
    /// Flush after every case (a terminal).
    eager: bool,
}

const FLUSH_AT: usize = 1 << 16;

impl<'w> Output<'w> {
    pub fn new(sink: &'w mut dyn Write) -> Self {
        Output { buf: Vec::with_capacity(FLUSH_AT + 1024), sink, eager: false }
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

    /// Marks the end of a case: flushes when due.
    pub fn end_case(&mut self) -> io::Result<()> {
        if self.eager || self.buf.len() >= FLUSH_AT {
            self.flush()?;
        }
        Ok(())
    }

    /// Writes what is buffered to the sink.
    pub fn flush(&mut self) -> io::Result<()> {
        if !self.buf.is_empty() {
            let r = self.sink.write_all(&self.buf);
            self.buf.clear();
            r?;
        }
        self.sink.flush()
    }
}

impl Drop for Output<'_> {
    fn drop(&mut self) {
        let _ = self.flush();
    }
}
