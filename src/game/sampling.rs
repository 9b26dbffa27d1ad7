//! A sampled analysis on several threads. The samples of a range are cut
//! into consecutive chunks, taken in order by whichever thread is free and
//! sampled by [`Sampled::sample`] (sample j is drawn alike wherever it is
//! computed); [`Sampled::join`] puts the chunks' parts together in sample
//! order into the part one thread would have made of the whole range, so
//! that the figures, and `--partial`'s JSON, are the same whatever the
//! number of threads.
//!
//! An analysis that stops short of its samples (a search's node budget)
//! stops here too: once the chunks done so far, in order, make a part that
//! ends early ([`Sampled::ended`]), no thread takes another chunk. Work is
//! then at most a chunk per thread more than one thread's.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Mutex};

use serde_json::Value;

use super::{AnalyzeOptions, Sampled};

/// Chunks per thread: enough that threads finish together when samples
/// cost unevenly (a search's deals do), few enough that joining is cheap.
const CHUNKS_PER_THREAD: u64 = 8;

/// The chunks of `range` for `threads` threads: consecutive, in order,
/// covering it, none empty.
pub(crate) fn chunks(range: Range<u64>, threads: usize) -> Vec<Range<u64>> {
    let total = range.end.saturating_sub(range.start);
    if total == 0 {
        return Vec::new();
    }
    let per = total.div_ceil((threads.max(1) as u64).saturating_mul(CHUNKS_PER_THREAD)).max(1);
    (0..total.div_ceil(per)).map(|i| range.start + i * per..(range.start + (i + 1) * per).min(range.end)).collect()
}

/// The part of the samples `range` (of `opts.samples`), sampled on up to
/// `opts.jobs` threads: the same as `s.sample(opts, range, progress)`.
/// `progress(done, total)` is called on this thread as chunks report.
pub fn sample_range(
    s: &dyn Sampled,
    opts: &AnalyzeOptions,
    range: Range<u64>,
    progress: &mut dyn FnMut(u64, u64),
) -> Value {
    let chunks = chunks(range.clone(), opts.jobs);
    // No more threads than processors: sampling is all computation (so
    // `--jobs 1024` on two processors starts two); two at least, so that a
    // machine of one processor runs the same path as others.
    let cores = super::processors();
    let threads = opts.jobs.min(chunks.len()).min(cores.max(2));
    if threads <= 1 {
        return s.sample(opts, range, progress);
    }
    let total = range.end - range.start;
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let parts: Mutex<Vec<Option<Value>>> = Mutex::new(vec![None; chunks.len()]);
    let (tx, rx) = mpsc::channel::<u64>();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let tx = tx.clone();
            let (chunks, next, stop, parts) = (&chunks, &next, &stop, &parts);
            scope.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= chunks.len() || stop.load(Ordering::Relaxed) {
                    break;
                }
                // Progress as the increase since the chunk's last report.
                let mut told = 0;
                let part = s.sample(opts, chunks[i].clone(), &mut |done, _| {
                    if done > told {
                        let _ = tx.send(done - told);
                        told = done;
                    }
                });
                let mut parts = parts.lock().unwrap_or_else(|e| e.into_inner());
                parts[i] = Some(part);
                let prefix: Vec<Value> = parts.iter().map_while(Clone::clone).collect();
                if s.ended(opts, &s.join(opts, &prefix)) {
                    stop.store(true, Ordering::Relaxed);
                }
            });
        }
        drop(tx);
        let mut done = 0;
        for step in rx {
            done += step;
            progress(done.min(total), total);
        }
    });
    let parts = parts.into_inner().unwrap_or_else(|e| e.into_inner());
    let prefix: Vec<Value> = parts.into_iter().map_while(|p| p).collect();
    progress(total, total);
    s.join(opts, &prefix)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Report;
    use serde_json::json;

    #[test]
    fn chunks_cover_the_range_in_order() {
        for (start, end) in [(0, 0), (0, 1), (5, 6), (0, 15), (3, 1000), (7, 100_007)] {
            for threads in 1..=9 {
                let c = chunks(start..end, threads);
                assert!(c.iter().all(|r| r.start < r.end), "{c:?}");
                assert_eq!(c.first().map_or(end, |r| r.start), start);
                assert_eq!(c.last().map_or(start, |r| r.end), end);
                assert!(c.windows(2).all(|w| w[0].end == w[1].start), "{c:?}");
                assert!(c.len() as u64 <= threads as u64 * CHUNKS_PER_THREAD);
            }
        }
        assert_eq!(chunks(0..1000, 2).len(), 16);
    }

    /// Sample j costs `1 + j % 7` units of a budget of `budget` units; a
    /// sample costing more than is left of it is over (as the tower
    /// engine's deals): the sequential rule that [`Sampled::join`] must
    /// reproduce from parts.
    struct Costly {
        budget: u64,
    }

    impl Sampled for Costly {
        fn sample(&self, _: &AnalyzeOptions, range: Range<u64>, progress: &mut dyn FnMut(u64, u64)) -> Value {
            let (mut costs, mut spent, mut over) = (Vec::new(), 0, false);
            for j in range.clone() {
                let cost = 1 + j % 7;
                if cost > self.budget {
                    over = true;
                    break;
                }
                costs.push(cost);
                spent += cost;
                progress(j + 1 - range.start, range.end - range.start);
                if spent > self.budget {
                    break;
                }
            }
            progress(range.end - range.start, range.end - range.start);
            json!({ "costs": costs, "over": over })
        }

        fn join(&self, _: &AnalyzeOptions, parts: &[Value]) -> Value {
            let (mut costs, mut spent) = (Vec::new(), 0);
            for part in parts {
                for c in part["costs"].as_array().into_iter().flatten().filter_map(Value::as_u64) {
                    costs.push(c);
                    spent += c;
                    if spent > self.budget {
                        return json!({ "costs": costs, "over": false });
                    }
                }
                if part["over"] == json!(true) {
                    return json!({ "costs": costs, "over": true });
                }
            }
            json!({ "costs": costs, "over": false })
        }

        fn ended(&self, _: &AnalyzeOptions, part: &Value) -> bool {
            let costs = part["costs"].as_array().into_iter().flatten().filter_map(Value::as_u64);
            part["over"] == json!(true) || costs.sum::<u64>() > self.budget
        }

        fn report(&self, _: &AnalyzeOptions, _: &[Value]) -> Result<Report, String> {
            Err("not used".into())
        }
    }

    /// Every number of threads gives the part of one thread, stopped by the
    /// budget or not, and progress ends at the total.
    #[test]
    fn threads_give_the_part_of_one_thread() {
        for budget in [3, 6, 40, 400, 1_000_000] {
            let s = Costly { budget };
            for (start, end) in [(0, 1), (0, 10), (4, 300), (10, 2000)] {
                let opts = |jobs| AnalyzeOptions { samples: end, seed: 1, max_nodes: None, jobs };
                let one = s.sample(&opts(1), start..end, &mut |_, _| {});
                for jobs in [1, 2, 3, 8] {
                    let mut last = (0, 0);
                    let part = sample_range(&s, &opts(jobs), start..end, &mut |d, t| last = (d, t));
                    assert_eq!(part, one, "budget {budget}, samples {start}..{end}, {jobs} threads");
                    assert_eq!(last, (end - start, end - start));
                }
            }
        }
    }
}
