/**
 * Replicas sharing virtual shards through Leases, on a FakeClock: each holds its fair share, a
 * replica that leaves hands its shards over once their work drained, a replica cut off from the
 * apiserver stops working on its shards before anyone else starts, and no shard is ever worked on
 * by two replicas at once (an audit of every shard's work intervals), nor any hash under two shard
 * counts at once while a rolling update changes the count.
 */
import assert from "node:assert/strict";
import { describe, it, type TestContext } from "node:test";
import { Lease } from "../../../src/api/index.ts";
import { FakeClock, untilAborted } from "../../../src/clock/index.ts";
import { microTime } from "../../../src/election/index.ts";
import { overlaps, shardRange } from "../../../src/sharding/index.ts";
import {
  type OtherCountWait,
  ShardCoordinator,
  type ShardCoordinatorOptions,
} from "../../../src/shards/index.ts";
import { ShardLeaseNames } from "../../../src/shards/names.ts";
import { cuttable, FakeLeaseStore, flush, T0 } from "../election/support.ts";

const SHARDS = 6;

/**
 * One shard's work by one replica, from its start to the moment it stopped writing (open while
 * running): its drain ended, or the shard was lost (then `lost` is set).
 */
interface Term {
  replica: string;
  shard: number;
  /** The shard count of the replica. */
  count: number;
  start: number;
  end?: number;
  lost?: boolean;
}

/** The names of the Leases in the replicas' store, sorted. */
async function leaseNames(replicas: Replicas): Promise<string[]> {
  const { items } = await replicas.store.list(Lease, { namespace: "default" });
  return items.map((lease) => lease.metadata.name ?? "").sort();
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

  /**
   * Starts replica `identity`; told to give a shard up, its work drains for `drainMs` (unless the
   * shard is lost first: then it stops writing at once).
   */
  start(identity: string, drainMs = 0, options: Partial<ShardCoordinatorOptions> = {}): void {
    const { client, link } = cuttable(this.store);
    const coordinator = new ShardCoordinator({
      ...options,
      client,
      name: "widgets",
      namespace: "default",
      identity,
      shards: options.shards ?? SHARDS,
      clock: this.clock,
      random: () => 0,
      onError: (err, phase) => this.errors.push(`${identity} ${phase}: ${(err as Error).message}`),
      onShard: async ({ index }, signal, lost?: AbortSignal) => {
        if (this.failNext.delete(index)) throw new Error(`shard ${index} could not start`);
        const count = options.shards ?? SHARDS;
        const term: Term = { replica: identity, shard: index, count, start: this.clock.monotonicMs() };
        this.terms.push(term);
        await untilAborted(signal);
        const drained = this.clock.sleep(drainMs);
        await Promise.race([drained, ...(lost ? [untilAborted(lost)] : [])]);
        term.end = this.clock.monotonicMs();
        term.lost = lost?.aborted;
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

  /** Stops replica `identity` and waits until it did; its link to the store is restored first unless `cut`. */
  async stop(identity: string, cut = false): Promise<void> {
    const replica = this.#running.get(identity);
    if (!replica) return;
    replica.link.cut = cut;
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

  /**
   * Advances until every one of `shards` shards is held, by one replica each, as `shares` says
   * (identity → count).
   */
  async untilShares(shares: Record<string, number>, limitMs = 120_000, shards = SHARDS): Promise<void> {
    const matches = () =>
      Object.entries(shares).every(([id, count]) => this.held(id).length === count) &&
      new Set(Object.keys(shares).flatMap((id) => this.held(id))).size === shards;
    for (let spent = 0; !matches(); spent += 100) {
      if (spent > limitMs) {
        const now = Object.keys(shares).map((id) => `${id}: ${this.held(id).join(",")}`);
        throw new Error(`shares not reached within ${limitMs} ms: ${now.join("; ")}`);
      }
      await this.advance(100);
    }
  }

  /** Asserts that no hash was worked on by two replicas at overlapping times, under any shard counts. */
  assertNoOverlap(): void {
    const range = (t: Term) => shardRange(t.shard, t.count);
    for (const [i, a] of this.terms.entries()) {
      for (const b of this.terms.slice(i + 1)) {
        if (!overlaps(range(a), range(b))) continue;
        const [first, second] = a.start <= b.start ? [a, b] : [b, a];
        assert.ok(
          first.end !== undefined && first.end <= second.start,
          `shard ${first.shard} of ${first.count}: ${first.replica} [${first.start}, ${first.end ?? "…"}) overlaps ` +
            `shard ${second.shard} of ${second.count}: ${second.replica} from ${second.start}`,
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

  it("keeps shards given up on rebalance until their work drained, longer than a lease duration", async (t) => {
    const replicas = new Replicas(t);
    replicas.start("a", 20_000);
    await replicas.untilShares({ a: 6 });
    replicas.start("b", 20_000);
    await replicas.untilShares({ a: 3, b: 3 });
    replicas.assertNoOverlap();
    const drained = replicas.terms.filter((term) => term.replica === "a" && term.end !== undefined);
    assert.equal(drained.length, 3, "a gave up three shards");
    assert.ok(
      drained.every((term) => !term.lost),
      "each drained, none lost",
    );
  });

  it("keeps a stopping replica's shards until their work drained, then hands them over", async (t) => {
    const replicas = new Replicas(t);
    for (const id of ["a", "b", "c"]) replicas.start(id, 20_000);
    await replicas.untilShares({ a: 2, b: 2, c: 2 });
    const stoppedAt = replicas.clock.monotonicMs();
    await replicas.stop("c");
    const drains = replicas.terms.filter((term) => term.replica === "c");
    assert.ok(
      drains.every((term) => !term.lost && (term.end ?? 0) - stoppedAt >= 20_000),
      "drained, not lost",
    );
    await replicas.untilShares({ a: 3, b: 3 });
    replicas.assertNoOverlap();
  });

  it("loses a draining shard renewDeadline after its last successful renewal, before anyone else takes it", async (t) => {
    const replicas = new Replicas(t);
    for (const id of ["a", "b", "c"]) replicas.start(id, 60_000);
    await replicas.untilShares({ a: 2, b: 2, c: 2 });
    const cutAt = replicas.clock.monotonicMs();
    replicas.cut("c"); // renewals fail from now on
    await replicas.advance(4_000);
    await replicas.stop("c", true); // told to give its shards up, 4 s into failed renewals
    const lost = replicas.terms.filter((term) => term.replica === "c" && term.lost);
    assert.equal(lost.length, 2, "both of c's shards were lost rather than drained for 60 s");
    assert.ok(
      lost.every((term) => (term.end ?? 0) <= cutAt + 10_000),
      `lost within the renew deadline of the last renewal (cut at ${cutAt}): ${lost.map((l) => l.end)}`,
    );
    await replicas.untilShares({ a: 3, b: 3 });
    replicas.assertNoOverlap();
  });

  it("spreads the shards across replicas named as pods name them ($POD_NAME_$POD_UID)", async (t) => {
    const replicas = new Replicas(t);
    const pods = ["widgets-7d9c6b5f4-x2x7q_0b8e5d6e-1f2a", "widgets-7d9c6b5f4-k9m4z_7f6a5b4c-3d2e"];
    for (const pod of pods) replicas.start(pod);
    await replicas.untilShares({ [pods[0] as string]: 3, [pods[1] as string]: 3 });
    assert.deepEqual(replicas.errors, [], "no Lease was refused");
  });

  it("deletes its membership Lease on a clean stop, and has its pod own it meanwhile", async (t) => {
    const replicas = new Replicas(t);
    const names = new ShardLeaseNames("widgets", SHARDS);
    replicas.start("a", 0, { pod: { name: "widgets-0", uid: "uid-0" } });
    replicas.start("b");
    await replicas.untilShares({ a: 3, b: 3 });
    const owners = (id: string) => replicas.store.lease(names.member(id))?.metadata.ownerReferences;
    assert.deepEqual(owners("a"), [{ apiVersion: "v1", kind: "Pod", name: "widgets-0", uid: "uid-0" }]);
    assert.equal(owners("b"), undefined, "no pod, no owner");
    assert.equal(replicas.store.lease(names.member("a"))?.spec?.holderIdentity, "a");

    await replicas.stop("a");
    assert.equal(replicas.store.lease(names.member("a")), undefined, "deleted");
    assert.ok(replicas.store.lease(names.member("b")), "the other replica's stays");
    await replicas.untilShares({ b: 6 });
    assert.deepEqual(replicas.errors, []);
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

  it("changes the shard count in a rolling update: the new count's replicas take over as the old ones leave, no hash worked on under both", async (t) => {
    const replicas = new Replicas(t);
    for (const id of ["a", "b", "c"]) replicas.start(id, 5_000);
    await replicas.untilShares({ a: 2, b: 2, c: 2 });
    const waits: OtherCountWait[] = [];
    replicas.start("d", 5_000, { shards: 4, onOtherCount: (wait) => waits.push(wait) });
    await replicas.advance(20_000);
    assert.deepEqual(replicas.held("d"), [], "every shard of 4 overlaps a held shard of 6");
    assert.deepEqual(waits, [{ shards: [0, 1, 2, 3], holders: ["a", "b", "c"] }], "d said what it waits for");
    await replicas.untilShares({ a: 2, b: 2, c: 2 }, 1_000);
    const ofSix = (await leaseNames(replicas)).filter((name) => name.endsWith(`-of-${SHARDS}`));
    assert.equal(ofSix.length, SHARDS + 3, "the held Leases of 6 (shards and members) are kept");
    for (const [old, next] of [
      ["a", "e"],
      ["b", "f"],
    ] as const) {
      await replicas.stop(old);
      replicas.start(next, 5_000, { shards: 4 });
      await replicas.advance(10_000);
      replicas.assertNoOverlap();
    }
    await replicas.stop("c");
    await replicas.untilShares({ d: 2, e: 1, f: 1 }, 120_000, 4);
    replicas.assertNoOverlap();
    assert.deepEqual(waits.at(-1), { shards: [], holders: [] }, "d said the wait is over");
    await replicas.advance(10_000);
    assert.deepEqual(
      (await leaseNames(replicas)).filter((name) => !name.endsWith("-of-4")),
      [],
      "the Leases of 6 are deleted once released",
    );
    assert.deepEqual(replicas.errors, []);
  });

  it("gives back, without working on it, a shard that a Lease of another count written before its list overlaps", async (t) => {
    const replicas = new Replicas(t);
    const other = new ShardLeaseNames("widgets", 4).shard(0);
    let lists = 0;
    const list = replicas.store.list.bind(replicas.store);
    // The first list plans; the second checks the shards just taken: another count's replica wrote first.
    replicas.store.list = (type, opts) => {
      if (++lists === 2) {
        const now = microTime(replicas.clock.now());
        replicas.store.put(
          { holderIdentity: "z", leaseDurationSeconds: 15, acquireTime: now, renewTime: now },
          other,
        );
      }
      return list(type, opts);
    };
    replicas.start("a");
    await replicas.advance(5_000);
    assert.deepEqual(replicas.held("a"), [2, 3, 4, 5], "shards 0 and 1 of 6 overlap shard 0 of 4");
    assert.ok(
      replicas.terms.every((term) => term.shard > 1),
      "shards 0 and 1 were not worked on",
    );
    await replicas.untilShares({ a: 6 });
    const taken = Math.min(...replicas.terms.filter((term) => term.shard <= 1).map((term) => term.start));
    assert.ok(taken >= 15_000, `shards 0 and 1 taken only after the other Lease expired (at ${taken} ms)`);
  });
});
