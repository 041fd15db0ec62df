/**
 * Delta debugging (Zeller's ddmin) over a failing sequence: drop chunks of steps, halving the chunk
 * size, while the rest still fails, within a budget of runs. Returns the smallest failing sequence
 * found (1-minimal when the budget allows).
 */

/** What {@link shrink} found. */
export interface Shrunk<T> {
  items: T[];
  /** How many times `fails` ran. */
  runs: number;
  /** False when the budget ran out before the sequence was 1-minimal. */
  minimal: boolean;
}

/**
 * Shrinks `items`, which fail, to a shorter sequence that still fails. `fails` runs once per
 * candidate; at most `maxRuns` times. The empty sequence is tried first.
 */
export async function shrink<T>(
  items: readonly T[],
  fails: (candidate: T[]) => Promise<boolean>,
  maxRuns: number,
): Promise<Shrunk<T>> {
  let current = [...items];
  let runs = 0;
  const attempt = async (candidate: T[]) => {
    runs++;
    return fails(candidate);
  };
  if (current.length === 0) return { items: current, runs, minimal: true };
  if (runs < maxRuns && (await attempt([]))) return { items: [], runs, minimal: true };
  let chunks = 2;
  while (current.length > 1) {
    const size = Math.ceil(current.length / chunks);
    let reduced = false;
    for (let start = 0; start < current.length; start += size) {
      if (runs >= maxRuns) return { items: current, runs, minimal: false };
      const complement = [...current.slice(0, start), ...current.slice(start + size)];
      if (await attempt(complement)) {
        current = complement;
        chunks = Math.max(chunks - 1, 2);
        reduced = true;
        break;
      }
    }
    if (reduced) continue;
    if (size === 1) break;
    chunks = Math.min(chunks * 2, current.length);
  }
  return { items: current, runs, minimal: true };
}
