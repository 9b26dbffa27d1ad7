//! A parallel run's threads held on processors of their own, when the run
//! may have exactly as many as the processors the process may use (it
//! starts as many of them as its work repays: each started is held).
//!
//! With every processor running one of the run's threads, the kernel may
//! still put two of them on one processor for milliseconds: a thread woken
//! by another is often placed on the waker's processor, and the load
//! balancer moves it back only later. On a machine of two processors,
//! Havannah's large input (20 cases, about 10 ms of work) on two threads
//! took 10.8 ms, median of 41 runs, against 9.9 ms on one: in about half the
//! runs its two threads shared one processor for much of the run. With each
//! held on a processor of its own, 8.0 ms, and the runs no longer spread
//! from 8 to 12 ms. With fewer threads than processors the kernel places
//! them (it can avoid a processor busy with other work), so they are left
//! free, as they are where the processors cannot be read (outside Linux).
//!
//! The calling thread keeps the processor it is on and is given back the
//! processors it was allowed before once the run's threads are done.

use std::cell::Cell;

/// Where a run's threads go, decided when they start (a run that stays on
/// one thread asks nothing of the system).
pub(super) struct Placement {
    /// The calling thread's processors before it was held, once it is.
    saved: Cell<Option<Mask>>,
}

impl Placement {
    /// The placement of a run's threads, the calling thread one of them.
    pub(super) fn new() -> Placement {
        Placement { saved: Cell::new(None) }
    }

    /// Holds the calling thread on its processor (until the placement is
    /// dropped) when there is a processor for each thread: the processors
    /// of the run's threads, thread `i` (0: the calling thread) on entry
    /// `i`; `None` when they are left free. A thread starts with the
    /// processors of the thread that starts it: rayon's pool, when the
    /// game may build a table on it during the run (`pool`), is started
    /// first, so that its threads are not all held on this one processor.
    /// (It was started for every game: on a 16-core machine, Havannah's
    /// large input took 10.8 ms with `--jobs 16`, its six threads held and
    /// the pool's sixteen started, and 7.5 ms with `--jobs 8`, the same six
    /// threads neither held nor joined by the pool.)
    pub(super) fn hold_caller(&self, jobs: usize, pool: bool) -> Option<Vec<usize>> {
        let cpus = allowed().and_then(|(allowed, here)| order(&allowed, here, jobs))?;
        if self.saved.get().is_none() {
            if pool {
                rayon::current_num_threads();
            }
            self.saved.set(mask());
            hold(cpus[0]);
        }
        Some(cpus)
    }
}

impl Drop for Placement {
    fn drop(&mut self) {
        if let Some(saved) = self.saved.take() {
            restore(&saved);
        }
    }
}

/// The processors for `jobs` threads, the calling thread's (`here`) first
/// and then the others in order after it: `None` unless the process may use
/// exactly `jobs` processors (two at least).
fn order(allowed: &[usize], here: usize, jobs: usize) -> Option<Vec<usize>> {
    if jobs < 2 || allowed.len() != jobs {
        return None;
    }
    let first = allowed.iter().position(|&c| c == here).unwrap_or(0);
    Some(allowed[first..].iter().chain(&allowed[..first]).copied().collect())
}

#[cfg(target_os = "linux")]
type Mask = libc::cpu_set_t;
#[cfg(not(target_os = "linux"))]
type Mask = ();

/// The calling thread's processors.
#[cfg(target_os = "linux")]
fn mask() -> Option<Mask> {
    // SAFETY: a zeroed cpu_set_t is a valid empty set, and the call writes
    // at most its size into it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        (libc::sched_getaffinity(0, size_of::<libc::cpu_set_t>(), &mut set) == 0).then_some(set)
    }
}

/// The processors the calling thread may use, and the one it is on.
#[cfg(target_os = "linux")]
fn allowed() -> Option<(Vec<usize>, usize)> {
    let set = mask()?;
    // SAFETY: CPU_ISSET reads a set within its size; sched_getcpu has no
    // preconditions (it returns -1 on failure).
    let (cpus, here) = unsafe {
        let cpus = (0..libc::CPU_SETSIZE as usize).filter(|&c| libc::CPU_ISSET(c, &set)).collect();
        (cpus, libc::sched_getcpu())
    };
    Some((cpus, usize::try_from(here).unwrap_or(usize::MAX)))
}

/// Holds the calling thread on processor `cpu` (nothing when it cannot).
#[cfg(target_os = "linux")]
pub(super) fn hold(cpu: usize) {
    // SAFETY: a zeroed cpu_set_t is a valid empty set; `cpu` comes from
    // `allowed`, below its size.
    let set = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        set
    };
    restore(&set);
}

/// Lets the calling thread use the processors of `set`.
#[cfg(target_os = "linux")]
fn restore(set: &Mask) {
    // SAFETY: `set` is a whole cpu_set_t, passed with its size.
    unsafe {
        libc::sched_setaffinity(0, size_of::<libc::cpu_set_t>(), set);
    }
}

#[cfg(not(target_os = "linux"))]
fn mask() -> Option<Mask> {
    None
}

#[cfg(not(target_os = "linux"))]
fn allowed() -> Option<(Vec<usize>, usize)> {
    None
}

#[cfg(not(target_os = "linux"))]
pub(super) fn hold(_: usize) {}

#[cfg(not(target_os = "linux"))]
fn restore(_: &Mask) {}

#[cfg(test)]
mod tests {
    use super::*;

    /// One processor per thread or none: the calling thread's first, the
    /// others after it in order, wrapping round.
    #[test]
    fn threads_are_held_only_when_there_is_a_processor_for_each() {
        assert_eq!(order(&[0, 1], 1, 2), Some(vec![1, 0]));
        assert_eq!(order(&[0, 1], 0, 2), Some(vec![0, 1]));
        assert_eq!(order(&[2, 5, 7, 9], 7, 4), Some(vec![7, 9, 2, 5]));
        // On a processor it may no longer use: the set in order.
        assert_eq!(order(&[2, 5], 3, 2), Some(vec![2, 5]));
        assert_eq!(order(&[0, 1, 2, 3], 0, 2), None);
        assert_eq!(order(&[0, 1], 0, 3), None);
        assert_eq!(order(&[0], 0, 1), None);
        assert_eq!(order(&[], 0, 0), None);
    }

    /// The calling thread, held for a run, gets its processors back when
    /// the placement ends.
    #[test]
    #[cfg(target_os = "linux")]
    fn the_calling_thread_gets_its_processors_back() {
        let before = allowed().expect("the processors can be read").0;
        let placement = Placement::new();
        let cpus = placement.hold_caller(before.len(), true);
        if before.len() >= 2 {
            assert_eq!(allowed().expect("readable").0.len(), 1, "held on one processor");
            assert_eq!(cpus.and_then(|c| c.get(1).copied()).map(|c| before.contains(&c)), Some(true));
        }
        drop(placement);
        assert_eq!(allowed().expect("readable").0, before);
    }
}
