//! Small tables that every thread reads for every case, each on cache
//! lines of its own.
//!
//! A table of a few dozen bytes, allocated among the rule file's other
//! small allocations, can share a cache line with a chunk the allocator
//! later hands to a thread's working memory; each case that thread writes
//! then costs every other thread a cache miss at its next read of the
//! table. Get Straight on two threads, where a card's rank is read from a
//! table of 52 bytes, took 1.4 times its usual processor time in some runs
//! for this reason alone (a reader's line buffer in the chunk before the
//! table). A [`LineBytes`] is allocated in whole lines of [`LINE`] bytes,
//! aligned to them: no other allocation shares them.

/// The bytes two adjacent cache lines hold: the unit of false sharing on
/// x86-64, whose prefetcher fetches lines in pairs.
pub const LINE: usize = 128;

#[derive(Clone, Copy, Debug)]
#[repr(C, align(128))]
struct Line([u8; LINE]);

/// A byte table on cache lines of its own.
#[derive(Clone, Debug, Default)]
pub struct LineBytes {
    lines: Vec<Line>,
    len: usize,
}

impl LineBytes {
    /// The table of `bytes`.
    pub fn new(bytes: impl IntoIterator<Item = u8>) -> LineBytes {
        let mut table = LineBytes::default();
        for b in bytes {
            table.push(b);
        }
        table
    }

    pub fn push(&mut self, b: u8) {
        if self.len.is_multiple_of(LINE) {
            self.lines.push(Line([0; LINE]));
        }
        self.lines[self.len / LINE].0[self.len % LINE] = b;
        self.len += 1;
    }

    /// The table as a slice.
    #[inline]
    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: `Line` is `repr(C)` over `[u8; LINE]` and its size is its
        // alignment, so the lines are `LINE * lines.len()` contiguous
        // initialised bytes, of which the first `len` are the table's.
        unsafe { std::slice::from_raw_parts(self.lines.as_ptr().cast::<u8>(), self.len) }
    }

    /// Entry `i`; panics past the end, as a slice does.
    #[inline]
    pub fn get(&self, i: usize) -> u8 {
        self.as_slice()[i]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_holds_its_bytes_on_lines_of_its_own() {
        let table = LineBytes::new((0..300u32).map(|i| (i % 251) as u8));
        assert!((0..300).all(|i| table.get(i) == (i % 251) as u8));
        assert_eq!(table.as_slice().len(), 300);
        assert_eq!(table.lines.as_ptr() as usize % LINE, 0);
        assert_eq!(std::mem::size_of_val(table.lines.as_slice()), 3 * LINE);
    }

    #[test]
    #[should_panic(expected = "out of bounds")]
    fn an_index_past_the_end_panics_as_a_slice_would() {
        LineBytes::new([1, 2, 3]).get(3);
    }
}
