// The time budget of one request, counted by one clock from the request's receipt. Decide makes
// one per request and every step that waits (the key lookup, the pipeline) reads that one.

export interface Deadline {
  expired(): boolean;
  remainingMs(): number;
}

/** A budget of `budgetMs` on a clock that reads the milliseconds elapsed since receipt. */
export function deadlineAfter(budgetMs: number, elapsedMs: () => number): Deadline {
  return {
    remainingMs: () => budgetMs - elapsedMs(),
    expired: () => elapsedMs() >= budgetMs,
  };
}
