import type { QueueReason } from "../item.ts";

/** Reason → number of coalesced triggers, in first-seen order. */
export type ReasonTally = Map<string, number>;

/** Counts `count` more triggers for `reason`. */
export function tally(reasons: ReasonTally, reason: string, count = 1): void {
  reasons.set(reason, (reasons.get(reason) ?? 0) + count);
}

/** Adds every count of `from` into `into`. */
export function mergeTally(into: ReasonTally, from: ReasonTally): void {
  for (const [reason, count] of from) tally(into, reason, count);
}

/** The tally as the list a {@link QueueItem} carries. */
export function reasonList(reasons: ReasonTally): QueueReason[] {
  return [...reasons].map(([reason, count]) => ({ reason, count }));
}
