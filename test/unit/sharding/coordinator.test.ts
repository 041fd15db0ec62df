/**
 * Replicas sharing virtual shards through Leases, on a FakeClock: each holds its fair share, a
 * replica that leaves hands its shards over once their work drained, a replica cut off from the
 * apiserver stops working on its shards before anyone else starts, and no shard is ever worked on
 * by two replicas at once (an audit of every shard's work intervals).
 */
import assert from "node:assert/strict";
import { describe, it, type TestContext } from "node:test";
import { FakeClock } from "../../../src/clock/index.ts";
import { ShardCoordinator, type ShardLeaseClient } from "../../../src/sharding/index.ts";
import { FakeLeaseStore, flush, T0 } from "../election/support.ts";

const SHARDS = 6;

/** One shard's work by one replica, from its start to the moment it stopped (open while running). */
interface Term {
  replica: string;
  shard: number;
  start: number;
  end?: number;
}

/** A replica's view of the store, which a test can cut off (every call fails, as for a partition). */
function replicaClient(store: FakeLeaseStore): { client: ShardLeaseClient; link: { cut: boolean } } {
  const link = { cut: false };
  const through =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> =>
      link.cut ? Promise.reject(new Error("connection refused")) : call(...args);
  const client = {
    get: through(store.get.bind(store)),
    create: through(store.create.bind(store)),
    update: through(store.update.bind(store)),
    list: through(store.list.bind(store)),
  };
  return { client, link };
}

class Replicas {
  readonly clock = new FakeClock(T0);
  readonly store = new FakeLeaseStore();
  readonly terms: Term[] = [];
  /** What the replicas reported to onError, as `<replica> <phase>: <message>`. */
  readonly errors: string[] = [];
  /** Shards whose next onShard throws before doing anything, once each. */
  readonly failNext = new Set<number>();
  readonly #running = new Map<
    string,
    { coordinator: ShardCoordinator; link: { cut: boolean }; stop: AbortController; done: Promise<void> }
  >();

  constructor(t: TestContext) {
    t.after(() => Promise.all([...this.#running.keys()].map((id) => this.stop(id))));
  }

  start(identity: string): void {
    const { client, link } = replicaClient(this.store);
    const coordinator = new ShardCoordinator({
      client,
      name: "widgets",
      namespace: "default",
      identity,
      shards: SHARDS,
      clock: this.clock,
      random: () => 0,
      onError: (err, phase) => this.errors.push(`${identity} ${phase}: ${(err as Error).message}`),
      onShard: async ({ index }, signal) => {
        if (this.failNext.delete(index)) throw new Error(`shard ${index} could not start`);
        const term: Term = { replica: identity, shard: index, start: this.clock.monotonicMs() };
        this.terms.push(term);
        await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
        term.end = this.clock.monotonicMs();
      },
    });
    const stop = new AbortController();
    this.#running.set(identity, { coordinator, link, stop, done: coordinator.run(stop.signal) });
  }

  held(identity: string): number[] {
    return this.#running.get(identity)?.coordinator.held() ?? [];
  }

  cut(identity: string): void {
    const replica = this.#running.get(identity);
    if (replica) replica.link.cut = true;
  }

  async stop(identity: string): Promise<void> {
    const replica = this.#running.get(identity);
    if (!replica) return;
    replica.link.cut = false;
    replica.stop.abort();
    this.#running.delete(identity);
    await this.advanceUntilDone(replica.done);
  }

  async advanceUntilDone(done: Promise<void>): Promise<void> {
    let finished = false;
    void done.then(() => (finished = true));
    for (let i = 0; i < 1000 && !finished; i++) await this.advance(100);
    assert.ok(finished, "the replica stopped");
  }

  async advance(ms: number, stepMs = 100): Promise<void> {
    await flush();
    for (let left = ms; left > 0; left -= stepMs) {
      this.clock.advance(Math.min(stepMs, left));
      await flush();
    }
  }

  /** Advances until every shard is held, by one replica each, as `shares` says (identity → count). */
  async untilShares(shares: Record<string, number>, limitMs = 120_000): Promise<void> {
    const matches = () =>
      Object.entries(shares).every(([id, count]) => this.held(id).length === count) &&
      new Set(Object.keys(shares).flatMap((id) => this.held(id))).size === SHARDS;
    for (let spent = 0; !matches(); spent += 100) {
      if (spent > limitMs) {
        const now = Object.keys(shares).map((id) => `${id}: ${this.held(id).join(",")}`);
        throw new Error(`shares not reached within ${limitMs} ms: ${now.join("; ")}`);
      }
      await this.advance(100);
    }
  }

  /** Asserts that no shard was worked on by two replicas at overlapping times. */
  assertNoOverlap(): void {
    for (let shard = 0; shard < SHARDS; shard++) {
      const terms = this.terms.filter((t) => t.shard === shard).sort((a, b) => a.start - b.start);
      for (let i = 1; i < terms.length; i++) {
        const before = terms[i - 1] as Term;
        const after = terms[i] as Term;
        assert.ok(
          before.end !== undefined && before.end <= after.start,
          `shard ${shard}: ${before.replica} [${before.start}, ${before.end ?? "…"}) overlaps ${after.replica} from ${after.start}`,
        );
      }
    }
  }
}

describe("ShardCoordinator", () => {
  it("splits the shards fairly among the replicas, one holder each", async (t) => {
    const replicas = new Replicas(t);
    for (const id of ["a", "b", "c"]) replicas.start(id);
    await replicas.untilShares({ a: 2, b: 2, c: 2 });
    replicas.assertNoOverlap();
  });

  it("rebalances when a replica joins: the others release their extras after their work drained", async (t) => {
    const replicas = new Replicas(t);
    replicas.start("a");
    await replicas.untilShares({ a: 6 });
    replicas.start("b");
    await replicas.untilShares({ a: 3, b: 3 });
    replicas.start("c");
    await replicas.untilShares({ a: 2, b: 2, c: 2 });
    replicas.assertNoOverlap();
  });

  it("hands a leaving replica's shards over at once, released after their work stopped", async (t) => {
    const replicas = new Replicas(t);
    for (const id of ["a", "b", "c"]) replicas.start(id);
    await replicas.untilShares({ a: 2, b: 2, c: 2 });
    const left = replicas.clock.monotonicMs();
    await replicas.stop("c");
    await replicas.untilShares({ a: 3, b: 3 });
    assert.ok(replicas.clock.monotonicMs() - left < 15_000, "taken over before a lease duration passed");
    replicas.assertNoOverlap();
  });

  it("lets others take a cut-off replica's shards only after it stopped working on them", async (t) => {
    const replicas = new Replicas(t);
    for (const id of ["a", "b", "c"]) replicas.start(id);
    await replicas.untilShares({ a: 2, b: 2, c: 2 });
    const cutShards = replicas.held("c");
    replicas.cut("c");
    await replicas.untilShares({ a: 3, b: 3 });
    assert.deepEqual(replicas.held("c"), [], "the cut-off replica stopped working (renew deadline)");
    const stopped = replicas.terms.filter((t) => t.replica === "c" && cutShards.includes(t.shard));
    assert.ok(stopped.every((t) => t.end !== undefined));
    replicas.assertNoOverlap();
  });

  it("reports shard work that throws and gives the shard up, to be held and worked again", async (t) => {
    const replicas = new Replicas(t);
    replicas.failNext.add(0);
    replicas.start("a");
    await replicas.untilShares({ a: 6 });
    assert.deepEqual(replicas.errors, ["a callback: shard 0 could not start"]);
    assert.ok(
      replicas.terms.some((term) => term.shard === 0 && term.end === undefined),
      "shard 0 is worked on",
    );
    replicas.assertNoOverlap();
  });
});
