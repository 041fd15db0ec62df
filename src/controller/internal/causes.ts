/** Walking what an error wraps: its `cause` chain and the errors of an `AggregateError`. */

/** How many errors {@link causes} visits at most, against cycles and pathological nesting. */
const maxErrors = 64;

/**
 * `err`, then every error it wraps (through `cause`, and each of an `AggregateError`'s
 * `errors`), depth first, each once: what Go's `errors.Is` searches, which controller-runtime
 * uses to recognise a wrapped `TerminalError`.
 */
export function causes(err: unknown): unknown[] {
  const seen = new Set<unknown>();
  const pending = [err];
  while (pending.length > 0 && seen.size < maxErrors) {
    const next = pending.pop();
    if (next === undefined || next === null || seen.has(next)) continue;
    seen.add(next);
    const wrapped = [] as unknown[];
    if (next instanceof AggregateError) wrapped.push(...next.errors.slice(0, maxErrors));
    if (typeof next === "object" && "cause" in next) wrapped.push(next.cause);
    pending.push(...wrapped.reverse());
  }
  return [...seen];
}
