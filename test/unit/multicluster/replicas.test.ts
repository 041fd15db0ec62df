/**
 * Replicas of a fleet sharing its clusters through Leases, on a FakeClock: each holds its fair
 * share, a replica that leaves hands its clusters over once they were disengaged, one cut off from
 * the hub stops working on its clusters before anyone else starts, clusters offered or dropped are
 * shared again, and no cluster is ever engaged by two replicas at once (an audit of every
 * cluster's engagement intervals). Then two {@link Fleet}s with `replicas` engage only what they hold.
 */
import assert from "node:assert/strict";
import { describe, it, type TestContext } from "node:test";
import { FakeClock, untilAborted } from "../../../src/clock/index.ts";
import type { FleetCluster } from "../../../src/multicluster/index.ts";
import { ClusterCoordinator } from "../../../src/multicluster/replicas.ts";
import { cuttable, FakeLeaseStore, flush, T0 } from "../election/support.ts";
import { fenced, refusedConnection, startedFleet } from "./support.ts";

const CLUSTERS = ["east", "north", "south", "west", "up", "down"];

/** One cluster's engagement by one replica, until it stopped writing (open while engaged). */
interface Term {
  replica: string;
  cluster: string;
  start: number;
  end?: number;
  lost?: boolean;
}

interface Replica {
  coordinator: ClusterCoordinator;
  link: { cut: boolean };
  stop: AbortController;
  done: Promise<void>;
}

class Replicas {
  readonly clock = new FakeClock(T0);
  readonly store = new FakeLeaseStore();
  readonly terms: Term[] = [];
  readonly errors: string[] = [];
  readonly #running = new Map<string, Replica>();
  #offered = CLUSTERS;

  constructor(t: TestContext) {
    t.after(() => Promise.all([...this.#running.keys()].map((id) => this.stop(id))));
  }

  /** Starts replica `identity`; a cluster given up drains for `drainMs` unless lost first. */
  start(identity: string, drainMs = 0): void {
    const { client, link } = cuttable(this.store);
    const coordinator = new ClusterCoordinator({
      client,
      name: "fleet",
      namespace: "default",
      identity,
      clock: this.clock,
      random: () => 0,
      onError: (err, phase) => this.errors.push(`${identity} ${phase}: ${(err as Error).message}`),
      onCluster: async (cluster, signal, lost) => {
        const term: Term = { replica: identity, cluster, start: this.clock.monotonicMs() };
        this.terms.push(term);
        await untilAborted(signal);
        await Promise.race([this.clock.sleep(drainMs), untilAborted(lost)]);
        term.end = this.clock.monotonicMs();
        term.lost = lost.aborted;
      },
    });
    coordinator.offer(this.#offered);
    const stop = new AbortController();
    this.#running.set(identity, { coordinator, link, stop, done: coordinator.run(stop.signal) });
  }

  /** Offers `clusters` to every replica, as their providers would. */
  offer(clusters: string[]): void {
    this.#offered = clusters;
    for (const { coordinator } of this.#running.values()) coordinator.offer(clusters);
  }

  held(identity: string): string[] {
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
    let finished = false;
    void replica.done.then(() => (finished = true));
    for (let i = 0; i < 1000 && !finished; i++) await this.advance(100);
    assert.ok(finished, "the replica stopped");
  }

  async advance(ms: number): Promise<void> {
    await flush();
    for (let left = ms; left > 0; left -= 100) {
      this.clock.advance(100);
      await flush();
    }
  }

  /** Advances until the offered clusters are held, by one replica each, in the counts `shares` says. */
  async untilShares(shares: Record<string, number>, limitMs = 120_000): Promise<void> {
    const ids = Object.keys(shares);
    const matches = () =>
      ids.every((id) => this.held(id).length === shares[id]) &&
      new Set(ids.flatMap((id) => this.held(id))).size === this.#offered.length;
    for (let spent = 0; !matches(); spent += 100) {
      if (spent > limitMs) {
        const now = ids.map((id) => `${id}: ${this.held(id).join(",")}`).join("; ");
        throw new Error(`shares not reached within ${limitMs} ms: ${now}`);
      }
      await this.advance(100);
    }
  }

  /** Asserts that no cluster was engaged by two replicas at overlapping times. */
  assertNoOverlap(): void {
    for (const [i, a] of this.terms.entries()) {
      for (const b of this.terms.slice(i + 1).filter((t) => t.cluster === a.cluster)) {
        const [first, second] = a.start <= b.start ? [a, b] : [b, a];
        assert.ok(
          first.end !== undefined && first.end <= second.start,
          `${first.cluster}: ${first.replica} [${first.start}, ${first.end ?? "…"}) overlaps ${second.replica} from ${second.start}`,
        );
      }
    }
  }
}

describe("ClusterCoordinator", () => {
  it("splits the clusters fairly among the replicas, one holder each", async (t) => {
    const replicas = new Replicas(t);
    for (const id of ["a", "b", "c"]) replicas.start(id);
    await replicas.untilShares({ a: 2, b: 2, c: 2 });
    replicas.assertNoOverlap();
    assert.deepEqual(replicas.errors, []);
  });

  it("hands a stopping replica's clusters over once they were disengaged", async (t) => {
    const replicas = new Replicas(t);
    for (const id of ["a", "b", "c"]) replicas.start(id, 20_000);
    await replicas.untilShares({ a: 2, b: 2, c: 2 });
    const stoppedAt = replicas.clock.monotonicMs();
    await replicas.stop("c");
    const drained = replicas.terms.filter((term) => term.replica === "c");
    assert.ok(drained.every((term) => !term.lost && (term.end ?? 0) - stoppedAt >= 20_000));
    await replicas.untilShares({ a: 3, b: 3 });
    replicas.assertNoOverlap();
  });

  it("lets others take a cut-off replica's clusters only after it stopped writing to them", async (t) => {
    const replicas = new Replicas(t);
    for (const id of ["a", "b", "c"]) replicas.start(id, 60_000);
    await replicas.untilShares({ a: 2, b: 2, c: 2 });
    const cutAt = replicas.clock.monotonicMs();
    replicas.cut("c");
    await replicas.untilShares({ a: 3, b: 3 });
    const lost = replicas.terms.filter((term) => term.replica === "c");
    assert.ok(
      lost.every((term) => term.lost && (term.end ?? 0) <= cutAt + 10_000),
      "fenced within the renew deadline",
    );
    const takenAt = Math.min(
      ...replicas.terms
        .filter((term) => term.replica !== "c" && term.start > cutAt)
        .map((term) => term.start),
    );
    assert.ok(takenAt - cutAt <= 15_000 + 2_000 + 2_000, `taken over ${takenAt - cutAt} ms after the cut`);
    replicas.assertNoOverlap();
  });

  it("shares clusters offered later and gives up those no longer offered", async (t) => {
    const replicas = new Replicas(t);
    replicas.offer(["east", "west"]);
    for (const id of ["a", "b"]) replicas.start(id);
    await replicas.untilShares({ a: 1, b: 1 });
    replicas.offer(["east", "west", "north", "south"]);
    await replicas.untilShares({ a: 2, b: 2 });
    replicas.offer(["north"]);
    await replicas.untilShares(replicas.held("a").includes("north") ? { a: 1, b: 0 } : { a: 0, b: 1 });
    assert.ok(
      replicas.terms.filter((term) => term.cluster !== "north").every((term) => term.end !== undefined),
    );
    replicas.assertNoOverlap();
  });
});

describe("Fleet with replicas", () => {
  /** Two fleets sharing `east` and `west` through `store`, each through a link the test can cut. */
  async function sharedFleets() {
    const store = new FakeLeaseStore();
    const fleets = ["a", "b"].map((identity) => {
      const { client, link } = cuttable(store);
      const replicas = { client, namespace: "default", identity, random: () => 0 };
      return { ...startedFleet({ replicas }), link };
    });
    for (const { provider, clock } of fleets) {
      for (let i = 0; i < 100 && !provider.sink; i++) await clock.advance(0);
      for (const name of ["east", "west"]) provider.sink?.engage(name, refusedConnection());
    }
    const engaged = () =>
      fleets.map(({ fleet }) =>
        fleet
          .clusters()
          .filter((c) => c.engaged)
          .map((c) => c.name),
      );
    const advanceUntil = async (done: () => boolean) => {
      for (let i = 0; i < 600 && !done(); i++) {
        for (const { clock } of fleets) await clock.advance(100);
        await flush();
      }
      assert.ok(done(), `engaged: ${JSON.stringify(engaged())}`);
    };
    return { fleets, engaged, advanceUntil };
  }

  it("engages only the clusters each replica holds, again when offered anew, and fences one whose Lease it could not renew", async () => {
    const { fleets, engaged, advanceUntil } = await sharedFleets();
    const [a, b] = fleets as [(typeof fleets)[0], (typeof fleets)[0]];
    await advanceUntil(() => engaged().every((names) => names.length === 1));
    const [held] = engaged() as [string[]];
    assert.deepEqual(a.fleet.held(), held);
    assert.notDeepEqual(b.fleet.held(), held);
    assert.match(await a.fleet.registry.metrics(), /kubeloop_fleet_clusters_held 1/);
    a.provider.sink?.disengage(held[0] as string, "Secret replaced");
    a.provider.sink?.engage(held[0] as string, refusedConnection());
    await advanceUntil(() => a.setups.filter((c) => c.name === held[0]).length === 2);
    assert.deepEqual(engaged()[0], held, "a cluster offered again while held is engaged again");
    const cluster = a.setups.findLast((c) => c.name === held[0]) as FleetCluster;
    a.link.cut = true;
    await advanceUntil(() => b.fleet.held().length === 2);
    assert.ok(await fenced(cluster), "a fenced its cluster's writes once its Lease was lost");
    await advanceUntil(() => engaged()[1]?.length === 2);
    a.link.cut = false;
    await Promise.all(fleets.map(({ stop }) => stop()));
  });
});
