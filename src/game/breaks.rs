//! Line breaks found 64 bytes at a time, for the splitter (`split`): one
//! pass over a block gives a bit per byte that is a `\n`, a `\r`, or a
//! byte up to a space (where a blank line may start), so that finding the
//! next line's end, or passing over lines a game says hold no boundary,
//! costs a few instructions per line rather than a look at every byte.

/// Bytes of a block.
const BLOCK: usize = 64;

/// The masks of a block: bit `i` for the byte `i` places past its start.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Masks {
    /// `\n` and `\r`.
    breaks: u64,
    /// `\r` alone.
    cr: u64,
    /// Bytes up to a space (`\t`, `\n`, `\r`, a space: any blank byte, and
    /// control bytes, which no blank line holds but which stop a pass over
    /// lines all the same), and the byte that stops a pass (see
    /// [`Breaks::new`]).
    low: u64,
}

/// The masks of 64 bytes.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn masks(block: &[u8; BLOCK], stop: u8) -> Masks {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_min_epu8, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
    };
    let mut m = Masks::default();
    // SAFETY: SSE2 is part of every x86_64 processor; each load reads 16
    // bytes inside `block` (offsets 0, 16, 32, 48 of 64), unaligned loads.
    unsafe {
        let (nl, cr, space) = (_mm_set1_epi8(b'\n' as i8), _mm_set1_epi8(b'\r' as i8), _mm_set1_epi8(b' ' as i8));
        let stop = _mm_set1_epi8(stop as i8);
        for k in 0..BLOCK / 16 {
            let v = _mm_loadu_si128(block.as_ptr().add(16 * k).cast::<__m128i>());
            let (is_nl, is_cr) = (_mm_cmpeq_epi8(v, nl), _mm_cmpeq_epi8(v, cr));
            let is_low = _mm_or_si128(_mm_cmpeq_epi8(_mm_min_epu8(v, space), v), _mm_cmpeq_epi8(v, stop));
            let bits = |x| u64::from(_mm_movemask_epi8(x) as u16) << (16 * k);
            m.breaks |= bits(_mm_or_si128(is_nl, is_cr));
            m.cr |= bits(is_cr);
            m.low |= bits(is_low);
        }
    }
    m
}

/// The masks of 64 bytes, 32 at a time, on processors with AVX2 (most
/// x86_64 processors since 2013; [`Breaks::new`] asks the processor).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn masks_avx2(block: &[u8; BLOCK], stop: u8) -> Masks {
    use std::arch::x86_64::{
        __m256i, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_min_epu8, _mm256_movemask_epi8, _mm256_or_si256,
        _mm256_set1_epi8,
    };
    let mut m = Masks::default();
    let (nl, cr, space) = (_mm256_set1_epi8(b'\n' as i8), _mm256_set1_epi8(b'\r' as i8), _mm256_set1_epi8(b' ' as i8));
    let stop = _mm256_set1_epi8(stop as i8);
    for k in 0..BLOCK / 32 {
        // SAFETY: each load reads 32 bytes inside `block` (offsets 0 and
        // 32 of 64), unaligned loads.
        let v = unsafe { _mm256_loadu_si256(block.as_ptr().add(32 * k).cast::<__m256i>()) };
        let (is_nl, is_cr) = (_mm256_cmpeq_epi8(v, nl), _mm256_cmpeq_epi8(v, cr));
        let is_low = _mm256_or_si256(_mm256_cmpeq_epi8(_mm256_min_epu8(v, space), v), _mm256_cmpeq_epi8(v, stop));
        let bits = |x| u64::from(_mm256_movemask_epi8(x) as u32) << (32 * k);
        m.breaks |= bits(_mm256_or_si256(is_nl, is_cr));
        m.cr |= bits(is_cr);
        m.low |= bits(is_low);
    }
    m
}

/// The masks of 64 bytes, a word of 8 bytes at a time.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn masks(block: &[u8; BLOCK], stop: u8) -> Masks {
    swar_masks(block, stop)
}

/// The masks of 64 bytes without processor-specific instructions (the
/// fallback, and the check of the fast version in the tests).
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn swar_masks(block: &[u8; BLOCK], stop: u8) -> Masks {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const ONES: u64 = 0x0101_0101_0101_0101;
    // 0x80 in every byte of `x` that is zero, exactly (no borrow).
    let zero = |x: u64| !((x & LOW7).wrapping_add(LOW7) | x | LOW7);
    // One bit per byte from the top bits of the bytes.
    let gather = |hi: u64| (hi >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56;
    let mut m = Masks::default();
    for (k, word) in block.chunks_exact(8).enumerate() {
        let w = u64::from_le_bytes(word.try_into().unwrap_or([0; 8]));
        let (nl, cr) = (zero(w ^ (b'\n' as u64 * ONES)), zero(w ^ (b'\r' as u64 * ONES)));
        // A byte at most 0x20: its top bit clear, and its low seven bits
        // plus 0x5f below 0x80 (no carry leaves a byte: 0x7f + 0x5f < 0x100).
        let low = !((w & LOW7).wrapping_add(0x5f * ONES) | w) & (0x80 * ONES) | zero(w ^ (stop as u64 * ONES));
        m.breaks |= gather(nl | cr) << (8 * k);
        m.cr |= gather(cr) << (8 * k);
        m.low |= gather(low) << (8 * k);
    }
    m
}

/// The line breaks of a buffer, block by block from where the scan is.
pub(super) struct Breaks<'b> {
    buf: &'b [u8],
    stop: u8,
    /// The processor has AVX2 ([`masks_avx2`]).
    avx2: bool,
    /// The block's start in `buf`, and its masks (bits past the buffer's
    /// end clear).
    base: usize,
    m: Masks,
}

impl<'b> Breaks<'b> {
    /// The breaks of `buf`; a pass over lines stops before a line that
    /// starts with `stop` too (0xFF, which no UTF-8 text holds, for none).
    pub(super) fn new(buf: &'b [u8], stop: u8) -> Self {
        #[cfg(target_arch = "x86_64")]
        let avx2 = std::arch::is_x86_feature_detected!("avx2");
        #[cfg(not(target_arch = "x86_64"))]
        let avx2 = false;
        let mut b = Breaks { buf, stop, avx2, base: 0, m: Masks::default() };
        b.load(0);
        b
    }

    /// Makes the block start at `at`.
    #[inline]
    fn load(&mut self, at: usize) {
        self.base = at;
        self.m = match self.buf.get(at..at + BLOCK) {
            Some(block) => self.masks(block.try_into().unwrap_or(&[b'x'; BLOCK])),
            None => {
                // The last bytes, padded with bytes that are none of those
                // marked.
                let mut block = [b'x'; BLOCK];
                let rest = &self.buf[at.min(self.buf.len())..];
                block[..rest.len()].copy_from_slice(rest);
                self.masks(&block)
            }
        };
    }

    /// The masks of `block`, with AVX2 when the processor has it.
    #[inline(always)]
    fn masks(&self, block: &[u8; BLOCK]) -> Masks {
        #[cfg(target_arch = "x86_64")]
        if self.avx2 {
            // SAFETY: the processor said it has AVX2 (`Breaks::new`).
            return unsafe { masks_avx2(block, self.stop) };
        }
        masks(block, self.stop)
    }

    /// The block's masks from `at` on (`at` inside the block).
    #[inline(always)]
    fn from(&mut self, at: usize) -> Masks {
        if at >= self.base + BLOCK || at < self.base {
            self.load(at);
        }
        let keep = !0u64 << (at - self.base);
        Masks { breaks: self.m.breaks & keep, cr: self.m.cr & keep, low: self.m.low & keep }
    }

    /// The first `\n` or `\r` at or after `at`.
    #[inline(always)]
    fn next_break(&mut self, mut at: usize) -> Option<usize> {
        loop {
            let m = self.from(at);
            if m.breaks != 0 {
                return Some(self.base + m.breaks.trailing_zeros() as usize);
            }
            at = self.base + BLOCK;
            if at >= self.buf.len() {
                return None;
            }
        }
    }

    /// The length of the line starting at `at` and of it with its
    /// terminator, as [`Input`](super::Input) reads it; `None` when the
    /// line is not whole yet (no terminator, or a `\r` that a `\n` may
    /// follow, unless `eof`).
    #[inline(always)]
    pub(super) fn line_end(&mut self, at: usize, eof: bool) -> Option<(usize, usize)> {
        let i = self.next_break(at)?;
        if self.buf[i] == b'\n' {
            return Some((i - at, i - at + 1));
        }
        match self.buf.get(i + 1) {
            Some(b'\n') => Some((i - at, i - at + 2)),
            Some(_) => Some((i - at, i - at + 1)),
            None => eof.then_some((i - at, i - at + 1)),
        }
    }

    /// Passes over whole lines from `at` (a line's start) that start with
    /// a byte above a space (and not the stop byte) and end with `\n` alone: at most `most` of
    /// them, and up to the first other line (one that may be blank, or
    /// ends with `\r`) or the end of the bytes. Returns where it stopped
    /// and the lines passed. It stops too once a line ends at `until` or
    /// past it (or up to 63 bytes past it).
    #[inline]
    pub(super) fn pass_plain(&mut self, start: usize, most: u64, until: usize) -> (usize, u64) {
        let mut passed = 0;
        // The start of the line being passed over, and where the blocks
        // are looked at (past the line's start inside a long line).
        let (mut line, mut at) = (start, start);
        while passed < most && at < self.buf.len() && line < until {
            let m = self.from(at);
            let off = at - self.base;
            // The lines that start in the block from `at` on (one that
            // starts past it is looked at in the next block).
            let starts = u64::from(at == line) << off | m.breaks << 1;
            if m.cr != 0 || starts & m.low != 0 {
                // A line that may be blank or ends with `\r` in the block:
                // one line at a time up to it.
                if at == line && m.low & 1 << off != 0 {
                    break;
                }
                let Some(i) = self.next_break(at) else { break };
                if self.buf[i] != b'\n' {
                    break;
                }
                (line, at) = (i + 1, i + 1);
                passed += 1;
                continue;
            }
            if m.breaks == 0 {
                // The line goes on past the block.
                at = self.base + BLOCK;
                continue;
            }
            // Every line ending in the block is plain: count them.
            let left = most - passed;
            let k = u64::from(m.breaks.count_ones());
            if k <= left {
                passed += k;
                // The line after the last break starts in the block (its
                // first byte was looked at above) or at the next one.
                line = self.base + BLOCK - m.breaks.leading_zeros() as usize;
                at = self.base + BLOCK;
                continue;
            }
            let mut b = m.breaks;
            for _ in 1..left {
                b &= b - 1;
            }
            return (self.base + b.trailing_zeros() as usize + 1, most);
        }
        (line, passed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slow_masks(block: &[u8; BLOCK], stop: u8) -> Masks {
        let mut m = Masks::default();
        for (i, &b) in block.iter().enumerate() {
            m.breaks |= u64::from(b == b'\n' || b == b'\r') << i;
            m.cr |= u64::from(b == b'\r') << i;
            m.low |= u64::from(b <= b' ' || b == stop) << i;
        }
        m
    }

    /// Every byte value at every place of a block, with neighbours that
    /// would make a borrow go wrong.
    #[test]
    fn the_masks_mark_exactly_the_bytes_they_name() {
        for v in 0..=255u8 {
            for at in [0, 1, 7, 8, 15, 16, 31, 33, 63] {
                for fill in [0u8, b' ', b'!', b'\n', 0x80, 0xff, b'x'] {
                    let mut block = [fill; BLOCK];
                    block[at] = v;
                    for stop in [b'#', 0xFF, b'a'] {
                        let want = slow_masks(&block, stop);
                        assert_eq!(masks(&block, stop), want, "{v} at {at} in {fill}, stop {stop}");
                        assert_eq!(swar_masks(&block, stop), want, "{v} at {at} in {fill}, stop {stop}");
                        #[cfg(target_arch = "x86_64")]
                        if std::arch::is_x86_feature_detected!("avx2") {
                            // SAFETY: the processor has AVX2.
                            let fast = unsafe { masks_avx2(&block, stop) };
                            assert_eq!(fast, want, "{v} at {at} in {fill}, stop {stop}");
                        }
                    }
                }
            }
        }
    }

    /// Line ends as the byte-by-byte search finds them, across blocks.
    #[test]
    fn line_ends_are_found_across_blocks() {
        let mut text = Vec::new();
        for i in 0..300usize {
            text.extend(std::iter::repeat_n(b'a' + (i % 26) as u8, i * 7 % 150));
            text.extend_from_slice([&b"\n"[..], b"\r\n", b"\r"][i % 3]);
        }
        for eof in [false, true] {
            let mut b = Breaks::new(&text, b'#');
            let mut at = 0;
            while let Some((len, step)) = b.line_end(at, eof) {
                let slow = memchr::memchr2(b'\n', b'\r', &text[at..]).unwrap();
                assert_eq!(len, slow);
                at += step;
            }
            // Without the end of the input, the last line's `\r` waits for the next byte.
            let last = memchr::memchr2(b'\n', b'\r', &text[at..]).map(|i| at + i);
            assert!(at == text.len() || !eof && last == Some(text.len() - 1));
        }
    }

    #[test]
    fn a_pass_stops_before_a_line_that_may_be_blank_or_ends_with_a_carriage_return() {
        let text = b"ab\ncd\nef\n \ngh\nij\r\nkl\n\nmn\nop";
        let mut b = Breaks::new(text, 0xFF);
        assert_eq!(b.pass_plain(0, 2, usize::MAX), (6, 2));
        assert_eq!(b.pass_plain(6, 10, usize::MAX), (9, 1));
        assert_eq!(b.pass_plain(11, 10, usize::MAX), (14, 1));
        assert_eq!(b.pass_plain(18, 10, usize::MAX), (21, 1));
        // The last line has no terminator yet.
        assert_eq!(b.pass_plain(22, 10, usize::MAX), (25, 1));
        assert_eq!(b.pass_plain(25, 10, usize::MAX), (25, 0));
    }

    /// The slow pass: line by line.
    fn slow_pass(text: &[u8], mut at: usize, most: u64) -> (usize, u64) {
        let mut passed = 0;
        while passed < most && at < text.len() && text[at] > b' ' && text[at] != b'#' {
            match memchr::memchr2(b'\n', b'\r', &text[at..]) {
                Some(i) if text[at + i] == b'\n' => {
                    at += i + 1;
                    passed += 1;
                }
                _ => break,
            }
        }
        (at, passed)
    }

    /// Passes from every line start, with every limit, over lines of all
    /// lengths (within a block and across several), blank lines and `\r`.
    #[test]
    fn a_pass_over_blocks_stops_where_one_line_at_a_time_stops() {
        let mut text = Vec::new();
        let mut starts = vec![0];
        for i in 0..400usize {
            let len = [3, 9, 0, 14, 70, 1, 130, 8][i % 8] + i % 5;
            let first = if i % 37 == 5 {
                b' '
            } else if i % 41 == 9 {
                b'#'
            } else {
                b'a'
            };
            text.push(first);
            text.extend(std::iter::repeat_n(b'a' + (i % 26) as u8, len));
            text.extend_from_slice(if i % 53 == 7 { b"\r\n" } else { b"\n" });
            if i % 61 == 3 {
                text.push(b'\n');
            }
            starts.push(text.len());
        }
        text.extend_from_slice(b"tail");
        let mut b = Breaks::new(&text, b'#');
        for &at in &starts {
            for most in [0, 1, 2, 3, 7, 8, 9, 50, u64::MAX] {
                assert_eq!(b.pass_plain(at, most, usize::MAX), slow_pass(&text, at, most), "from {at}, at most {most}");
            }
        }
    }
}
