//! The work one turn may cost, counted in steps: a counter, not a clock, so the same turn costs
//! the same everywhere and a test can say so.
//!
//! Every pass of the reading and of the evidence over a turn's hits, topics or cues charges one
//! step per element it walks. Each pass is linear (or n·log n) in the message, so an ordinary
//! turn costs a few hundred steps and the costliest 4,000-character message the search found
//! about 27,000 (7 a character) (`docs/matching.md`, "Bounded reading"). [`READING_STEPS`] sits far
//! above that and far below what a few milliseconds buy: a future rule that walks a list inside
//! a loop over the same list reaches it on a crafted message, and the turn becomes a safe no-fill
//! (`IndexedMatch::over_budget`) instead of a stall. The handler's time budget cannot interrupt
//! native code, so nothing here may rely on it.

/// Steps one turn's reading and evidence may take.
pub const READING_STEPS: u64 = 400_000;

#[derive(Debug, Clone)]
pub struct Steps {
    used: u64,
    limit: u64,
}

impl Steps {
    pub fn new(limit: u64) -> Self {
        Steps { used: 0, limit }
    }

    /// Charges `n` steps. False once the budget is spent, and ever after.
    #[inline]
    pub fn take(&mut self, n: usize) -> bool {
        self.used = self.used.saturating_add(n as u64);
        self.used <= self.limit
    }

    pub fn spent(&self) -> bool {
        self.used > self.limit
    }

    pub fn used(&self) -> u64 {
        self.used
    }
}

impl Default for Steps {
    fn default() -> Self {
        Steps::new(READING_STEPS)
    }
}
