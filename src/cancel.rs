//! Cooperative cancellation of long library work (checking a file the
//! language server has since seen change).
//!
//! A thread that runs work under [`run`] with a token may be stopped at the
//! next [`point`] once the token is set: the work unwinds (a panic payload
//! of its own, never shown and never a crash) back to `run`, which returns
//! [`Cancelled`]. Everywhere else `point` costs one thread-local read and
//! does nothing: the command line never sets a token.
//!
//! Points are where work is repeated a number of times that the input
//! decides: each diagnostic made (`Diag::error`, `Diag::warning`) and each
//! chunk of a file parsed. The work must leave nothing shared half-updated
//! when it unwinds: it only builds values of its own.

use std::cell::RefCell;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

thread_local! {
    static TOKEN: RefCell<Option<Arc<AtomicBool>>> = const { RefCell::new(None) };
}

/// The work was cancelled (its token was set before it ended).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cancelled;

/// Stops the current work here when its token is set.
#[inline]
pub fn point() {
    let stop = TOKEN.with(|t| t.borrow().as_ref().is_some_and(|t| t.load(Ordering::Relaxed)));
    if stop {
        resume_unwind(Box::new(Cancelled));
    }
}

/// Runs `f` on this thread, stoppable through `token`. A panic that is not
/// a cancellation is carried on.
pub fn run<T>(token: &Arc<AtomicBool>, f: impl FnOnce() -> T) -> Result<T, Cancelled> {
    let previous = TOKEN.with(|t| t.borrow_mut().replace(token.clone()));
    let result = catch_unwind(AssertUnwindSafe(f));
    TOKEN.with(|t| *t.borrow_mut() = previous);
    match result {
        Ok(v) => Ok(v),
        Err(payload) if payload.is::<Cancelled>() => Err(Cancelled),
        Err(payload) => resume_unwind(payload),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_stops_at_the_first_point_after_the_token_is_set() {
        let token = Arc::new(AtomicBool::new(false));
        let mut reached = 0;
        let r = run(&token, || {
            for i in 0..10 {
                point();
                reached = i;
                if i == 3 {
                    token.store(true, Ordering::Relaxed);
                }
            }
        });
        assert_eq!((r, reached), (Err(Cancelled), 3));
        // Outside `run`, and after it, points do nothing.
        point();
        assert_eq!(run(&Arc::new(AtomicBool::new(false)), || 7), Ok(7));
    }

    #[test]
    fn other_panics_are_carried_on() {
        let token = Arc::new(AtomicBool::new(false));
        let r = catch_unwind(|| run(&token, || panic!("a bug")));
        assert!(r.is_err());
    }
}
