/**
 * The work queue a hand-written TypeScript operator needs and client-node does not ship: keys
 * (never event snapshots), deduplicated while waiting, never processed twice at once (a key that
 * changes while in flight runs again afterwards), `workers` at a time, and a retry with doubling
 * delay (10 ms up to 1 s) after a failure. Used by the client-node contender.
 */

export type Handler = (key: string) => Promise<void>;

export class KeyQueue {
  readonly #handler: Handler;
  readonly #pending: string[] = [];
  readonly #queued = new Set<string>();
  readonly #active = new Set<string>();
  readonly #dirty = new Set<string>();
  readonly #retries = new Map<string, number>();
  readonly #idle: (() => void)[] = [];
  #stopped = false;

  constructor(handler: Handler, workers: number) {
    this.#handler = handler;
    for (let i = 0; i < workers; i++) void this.#work();
  }

  add(key: string): void {
    if (this.#active.has(key)) {
      this.#dirty.add(key);
      return;
    }
    if (this.#queued.has(key)) return;
    this.#queued.add(key);
    this.#pending.push(key);
    this.#idle.shift()?.();
  }

  stop(): void {
    this.#stopped = true;
    for (const wake of this.#idle.splice(0)) wake();
  }

  async #next(): Promise<string | undefined> {
    while (!this.#stopped) {
      const key = this.#pending.shift();
      if (key !== undefined) {
        this.#queued.delete(key);
        return key;
      }
      await new Promise<void>((resolve) => this.#idle.push(resolve));
    }
    return undefined;
  }

  async #work(): Promise<void> {
    for (let key = await this.#next(); key !== undefined; key = await this.#next()) {
      this.#active.add(key);
      try {
        await this.#handler(key);
        this.#retries.delete(key);
      } catch (err) {
        const n = (this.#retries.get(key) ?? 0) + 1;
        this.#retries.set(key, n);
        console.error(`reconcile ${key} failed (retry ${n}): ${(err as Error).message}`);
        setTimeout(() => this.add(key), Math.min(1000, 10 * 2 ** (n - 1)));
      } finally {
        this.#active.delete(key);
        if (this.#dirty.delete(key)) this.add(key);
      }
    }
  }
}
