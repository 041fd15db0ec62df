import { Line } from "./line.ts";

/** A ready key's priority, and since when (monotonic ms) it has been ready. */
interface Ready {
  priority: number;
  readonly since: number;
}

/** The keys of one priority, and the consumers' time they have used. */
interface Level {
  readonly priority: number;
  /** The level's ready keys, in order of readiness. */
  readonly line: Line<Ready>;
  /** Consumer time (ms) of its keys already done, divided by its weight: its virtual time. */
  served: number;
  /** Its keys in flight, and the sum of their start times (monotonic ms). */
  busy: number;
  startedSum: number;
}

/**
 * How many times the consumers' time a priority 100 higher gets, while both have keys waiting:
 * 2, so `LOW_PRIORITY` keys get a third of it under a steady stream of changes. Chosen by
 * measurement, in a model of the peers bench's starvation scenario (4 consumers, 1,000 keys of
 * which 100 changed, 300 changes/s on those 100, more than the consumers serve): with unchanged
 * objects costing 1/32 to 1/8 of a changed one (no writes), 2 reconciles the last of them within
 * 1.0–1.6 × plain FIFO's time with the changed keys' p99 equal to strict priority's
 * (controller-runtime's); 4 took up to 2.7 × FIFO's time, 1 raised that p99 when unchanged objects
 * cost a quarter (844 ms against 516 ms; 2: 728 ms). Shares of time rather than of takes (a low
 * key every k-th take), because what a key costs varies a hundredfold: by takes, cheap low keys
 * would wait behind expensive normal ones, and expensive low keys (an initial list after an
 * upgrade that changes every object) would take their share of the takes many times over in time.
 */
const SHARE_PER_100 = 2;

/** Beyond this many steps of 100, a priority's weight stops growing (and never overflows). */
const MAX_STEPS = 20;

/** The weight of `priority`'s share of the consumers' time: {@link SHARE_PER_100} per 100. */
function weightOf(priority: number): number {
  const steps = Math.max(-MAX_STEPS, Math.min(MAX_STEPS, priority / 100));
  return SHARE_PER_100 ** steps;
}

/**
 * The keys ready to be handed out, one FIFO line per priority, and one line of every key in order
 * of readiness. {@link take} hands out the longest-ready key once it has waited the starvation
 * bound, and otherwise the first key of the priority that has used the least of the consumers'
 * time for its weight (start-time fair queueing over priorities, the time of a key counted from
 * {@link take} to {@link finished}, in flight included; ties to the higher priority). A priority
 * that had nothing ready or in flight starts level with the least virtual time of those that have,
 * so it banks no share while idle. Every operation is O(1) but for walks over the priorities seen so far
 * (two, as controllers use it).
 */
export class ReadyKeys {
  readonly #boundMs: number;
  readonly #byAge = new Line<Ready>();
  readonly #levels = new Map<number, Level>();
  /** Every level seen, highest priority first; they stay, empty or not, for the next keys. */
  readonly #ordered: Level[] = [];
  /** The least virtual time of the levels with ready keys, at the last take. */
  #virtualNow = 0;

  constructor(boundMs: number) {
    this.#boundMs = boundMs;
  }

  /** Number of ready keys. */
  get size(): number {
    return this.#byAge.size;
  }

  /** Makes `key`, which must not be ready yet, ready at `priority` from `now` on. */
  push(key: string, priority: number, now: number): void {
    const ready: Ready = { priority, since: now };
    this.#byAge.push(key, ready);
    this.#enter(this.#level(priority), key, ready, now);
  }

  /**
   * Moves a ready `key` to the end of `priority`'s line if that is higher than its own; it keeps
   * its place in the order of readiness. Does nothing for a key that is not ready.
   */
  raise(key: string, priority: number, now: number): void {
    const ready = this.#byAge.get(key);
    if (!ready || priority <= ready.priority) return;
    this.#level(ready.priority).line.delete(key);
    ready.priority = priority;
    this.#enter(this.#level(priority), key, ready, now);
  }

  /**
   * Removes and returns the next key, in flight from `now` until {@link finished}: the longest-
   * ready one if by `now` it has waited the bound, else the first of the level most behind its
   * share.
   */
  take(now: number): string | undefined {
    const oldest = this.#byAge.first();
    if (!oldest) return undefined;
    const behind = this.#mostBehind(now);
    this.#virtualNow = Math.max(this.#virtualNow, virtualTime(behind, now));
    const overdue = now - oldest.value.since >= this.#boundMs;
    const level = overdue ? this.#level(oldest.value.priority) : behind;
    const key = overdue ? oldest.key : level.line.first()!.key;
    this.#byAge.delete(key);
    level.line.delete(key);
    level.busy++;
    level.startedSum += now;
    return key;
  }

  /** Charges a key taken at `priority` at `startedAt` and done at `now` to its priority. */
  finished(priority: number, startedAt: number, now: number): void {
    const level = this.#level(priority);
    level.busy--;
    level.startedSum -= startedAt;
    level.served += (now - startedAt) / weightOf(priority);
  }

  /** Removes every ready key (keys in flight are still {@link finished}). */
  clear(): void {
    this.#byAge.clear();
    for (const level of this.#ordered) level.line.clear();
  }

  /** Adds a key to `level`'s line, first bringing an idle level up to the virtual time by `now`. */
  #enter(level: Level, key: string, ready: Ready, now: number): void {
    if (level.line.size === 0 && level.busy === 0)
      level.served = Math.max(level.served, this.#virtualTime(now));
    level.line.push(key, ready);
  }

  /**
   * The least virtual time by `now` of the levels with keys ready or in flight (their time in
   * flight so far included), or the last take's when none has.
   */
  #virtualTime(now: number): number {
    let least = Number.POSITIVE_INFINITY;
    for (const level of this.#ordered)
      if (level.line.size > 0 || level.busy > 0) least = Math.min(least, virtualTime(level, now));
    return Number.isFinite(least) ? least : this.#virtualNow;
  }

  /** The level with ready keys of the least virtual time by `now` (the highest on ties). */
  #mostBehind(now: number): Level {
    let best: Level | undefined;
    let bestTime = Number.POSITIVE_INFINITY;
    for (const level of this.#ordered) {
      if (level.line.size === 0) continue;
      const time = virtualTime(level, now);
      if (time < bestTime) [best, bestTime] = [level, time];
    }
    return best!;
  }

  #level(priority: number): Level {
    let level = this.#levels.get(priority);
    if (!level) {
      level = { priority, line: new Line(), served: 0, busy: 0, startedSum: 0 };
      this.#levels.set(priority, level);
      const below = this.#ordered.findIndex((l) => l.priority < priority);
      this.#ordered.splice(below === -1 ? this.#ordered.length : below, 0, level);
    }
    return level;
  }
}

/** A level's virtual time by `now`: its keys' time, done and in flight, for its weight. */
function virtualTime(level: Level, now: number): number {
  return level.served + (level.busy * now - level.startedSum) / weightOf(level.priority);
}
