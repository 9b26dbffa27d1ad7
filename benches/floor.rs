//! The floor of every line-format game: a minimal parser that only reads
//! its input and tokenises it, as a hand-written contest solution would
//! before solving anything. `benches/table.py` builds it (`rustc -O`) and
//! times it beside `arbiter run --jobs 1` on each game's large input.
//!
//!     floor < INPUT      prints: lines, tokens, a checksum of the values
//!
//! Input is read in 64 KiB blocks; lines end at `\n` (a `\r` counts as
//! whitespace); tokens are runs of bytes other than ASCII whitespace. A
//! token of digits is read as its number, any other as its first two bytes
//! and its length (a card, a ball's name, a player), and every value goes
//! into a checksum, so that nothing is skipped.

use std::io::Read;

fn main() {
    let mut input = std::io::stdin().lock();
    let mut buf = vec![0u8; 1 << 16];
    // The token carried over from the end of the last block.
    let mut token: Vec<u8> = Vec::with_capacity(64);
    let (mut lines, mut tokens, mut sum) = (0u64, 0u64, 0u64);
    let value = |t: &[u8]| -> u64 {
        if t.iter().all(u8::is_ascii_digit) {
            t.iter().fold(0u64, |v, &d| v.wrapping_mul(10).wrapping_add(u64::from(d - b'0')))
        } else {
            u64::from(t[0]) << 16 | u64::from(*t.get(1).unwrap_or(&0)) << 8 | t.len() as u64
        }
    };
    loop {
        let n = match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                eprintln!("floor: {e}");
                std::process::exit(1);
            }
        };
        let mut start = None;
        for (i, &b) in buf[..n].iter().enumerate() {
            if b.is_ascii_whitespace() {
                if let Some(s) = start.take() {
                    let t: &[u8] = if token.is_empty() {
                        &buf[s..i]
                    } else {
                        token.extend_from_slice(&buf[s..i]);
                        &token
                    };
                    sum = sum.wrapping_mul(31).wrapping_add(value(t));
                    tokens += 1;
                    token.clear();
                } else if !token.is_empty() {
                    sum = sum.wrapping_mul(31).wrapping_add(value(&token));
                    tokens += 1;
                    token.clear();
                }
                lines += u64::from(b == b'\n');
            } else if start.is_none() {
                start = Some(i);
            }
        }
        if let Some(s) = start {
            token.extend_from_slice(&buf[s..n]);
        }
    }
    if !token.is_empty() {
        sum = sum.wrapping_mul(31).wrapping_add(value(&token));
        tokens += 1;
    }
    println!("{lines} lines, {tokens} tokens, checksum {sum:016x}");
}
