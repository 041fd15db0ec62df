/**
 * 13. No write after leadership is lost. Two replicas of the operator run with leader election
 * (a Lease of the kit's, 6 s lease, 4 s renew deadline, 1 s retry): the leader through the proxy,
 * a standby straight to the apiserver, so the proxy sees only the leader. Once the leader leads,
 * the kit hands the Lease to the standby — the leader's Lease stolen, as after a network
 * partition — and keeps disturbing the outputs, so both replicas have work. The old leader may go
 * on until its renew deadline (plus the retry period its renew loop takes to notice); after it the
 * proxy must see no request from it at all, and it must exit, while the standby takes over and
 * repairs everything. controller-runtime's managers fence and exit the same way.
 */
import { Lease, type LeaseObject } from "../../../api/index.ts";
import { ConflictError } from "../../../client/index.ts";
import { microTime, retryJitterFactor } from "../../../election/index.ts";
import { mutatingVerbs } from "../../proxy/index.ts";
import type { ConformanceCheck } from "../check.ts";
import type { OperatorProcess } from "../internal/operator-process.ts";
import { now, poll } from "../internal/poll.ts";
import type { RunnerElection } from "../internal/protocol.ts";
import { describeRequest } from "../internal/requests.ts";
import { type Prepared, prepare, seconds, tamper } from "../internal/steps.ts";
import { waitRestored } from "../internal/world.ts";
import { CheckFailed } from "../result.ts";
import { type ConformanceSession, hold } from "../session.ts";

/** The election of the two replicas, but for their identities. */
type Election = Omit<RunnerElection, "identity">;

const timings = { leaseDurationMs: 6_000, renewDeadlineMs: 4_000, retryPeriodMs: 1_000 };
/** Time after the steal by which the old leader must have stopped: renew deadline, one retry, timer slack. */
const fencedWithinMs = timings.renewDeadlineMs + retryJitterFactor * timings.retryPeriodMs + 250;

/** Waits until `identity` holds the Lease. */
async function holding(session: ConformanceSession, election: Election, identity: string) {
  const held = await poll(async () => {
    const lease = await session.client.get(Lease, election.name, { namespace: election.namespace });
    return lease.spec?.holderIdentity === identity || undefined;
  }, 60_000);
  if (!held) {
    throw new CheckFailed({
      expected: `${identity} to acquire the Lease ${election.namespace}/${election.name} within 60 s`,
      seen: "it did not",
      requests: session.requestsSince(0).slice(-15),
    });
  }
}

/**
 * Hands the Lease to `thief`, freshly renewed, as a leader on the other side of a partition would
 * see it; read again and retried when the leader renewed it in between (409), as client-go's
 * `RetryOnConflict` does.
 */
async function steal(session: ConformanceSession, election: Election, thief: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await stealOnce(session, election, thief);
    } catch (err) {
      if (!(err instanceof ConflictError) || attempt >= 5) throw err;
    }
  }
}

async function stealOnce(session: ConformanceSession, election: Election, thief: string): Promise<void> {
  const lease = await session.client.get(Lease, election.name, { namespace: election.namespace });
  const at = microTime(Date.now());
  const spec: LeaseObject["spec"] = {
    ...lease.spec,
    holderIdentity: thief,
    acquireTime: at,
    renewTime: at,
    leaseTransitions: (lease.spec?.leaseTransitions ?? 0) + 1,
  };
  await session.client.update(Lease, { ...lease, spec });
}

/** Disturbs the outputs every second until `until`, so that both replicas have reconciles to run. */
async function keepDisturbing(
  session: ConformanceSession,
  prepared: Prepared,
  until: number,
): Promise<number> {
  const outputs = [...prepared.snap.outputs.values()];
  let rounds = 0;
  while (now() < until) {
    for (const output of outputs) await tamper(session, output).catch(() => undefined);
    rounds++;
    await hold(1_000);
  }
  return rounds;
}

/** Starts the two replicas, the first (through the proxy) leading. */
async function startPair(session: ConformanceSession, election: Election) {
  const leader = session.replica({ leaderElection: { ...election, identity: "kit-leader" } });
  const standby = session.replica({ leaderElection: { ...election, identity: "kit-standby" } }, true);
  standby.preload();
  try {
    await leader.start();
    await holding(session, election, "kit-leader");
    await standby.start();
  } catch (err) {
    await Promise.all([leader.stop(), standby.stop()]);
    throw err;
  }
  return { leader, standby };
}

/** Fails when the old leader sent any request after it had to be fenced, or did not exit. */
function judge(session: ConformanceSession, marker: number, fencedAt: number, leader: OperatorProcess) {
  const after = session.requestsSince(marker);
  const late = after.filter((r) => r.startedAt > fencedAt);
  if (late.length > 0 || leader.running) {
    const writes = late.filter((r) => mutatingVerbs.includes(r.verb)).length;
    throw new CheckFailed({
      expected: `no request from the old leader later than ${seconds(fencedWithinMs)} after its Lease was taken (renew deadline ${seconds(timings.renewDeadlineMs)}), and its exit`,
      seen: `${late.length} request(s) after that (${writes} writes: ${late.slice(0, 3).map(describeRequest).join("; ")}); ${leader.running ? "still running" : "exited"}`,
      requests: late.slice(0, 15),
    });
  }
  return after.filter((r) => mutatingVerbs.includes(r.verb) && r.resource !== "leases").length;
}

/** The leadership-fenced check: a leader whose Lease was taken stops every request by its renew deadline. */
export const leadershipFenced: ConformanceCheck = {
  name: "leadership-fenced",
  title: "no write after leadership is lost",
  async run(session) {
    if (session.sharded) {
      return {
        skipped: true,
        summary: "sharded: no operator-wide leader (each shard is fenced on its own Lease)",
      };
    }
    if (session.member !== undefined) {
      return {
        skipped: true,
        summary: "in a fleet: the kit checks the leader of one cluster's operator only",
      };
    }
    const prepared = await prepare(session, "leader");
    if (prepared.snap.outputs.size === 0)
      return { skipped: true, summary: "the fixtures produce no outputs" };
    await session.operator.stop({ restart: true });
    const election = { name: "kl-conformance-leader", namespace: prepared.namespace, ...timings };
    let pair: { leader: OperatorProcess; standby: OperatorProcess } | undefined;
    try {
      pair = await startPair(session, election);
      const marker = session.marker();
      const stolenAt = now();
      await steal(session, election, "kit-standby");
      const fencedAt = stolenAt + fencedWithinMs;
      const rounds = await keepDisturbing(session, prepared, fencedAt + 3_000);
      const { leader } = pair;
      await poll(() => (leader.running ? undefined : true), 10_000);
      const writes = judge(session, marker, fencedAt, leader);
      const ms = await waitRestored(session, prepared.snap, {
        start: stolenAt,
        marker,
        what: "the standby, now leading, to repair every disturbed output",
      });
      return {
        timeMs: ms,
        summary: `Lease taken from the leader: it made ${writes} write(s) before its renew deadline, none and no other request after ${seconds(fencedWithinMs)}, and exited; the standby repaired ${rounds} rounds of tampering in ${seconds(ms)}`,
      };
    } finally {
      await pair?.leader.stop();
      await pair?.standby.stop();
      await session.operator.start();
    }
  },
};
