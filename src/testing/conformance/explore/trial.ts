/**
 * One trial: the fixtures created in a namespace of their own, the plan's steps applied to the
 * target primary one by one — each followed by convergence — with the plan's perturbation where
 * it says (a kill after the k-th write, a restart on a stale view, two steps unobserved); each
 * settled state judged by the oracles of convergence and of failures shown; then an output of
 * the target deleted by another hand and made again, and the final state judged by the others.
 */
import type { KubeObject } from "../../../api/index.ts";
import { ConflictError, NotFoundError } from "../../../client/index.ts";
import { now, poll } from "../internal/poll.ts";
import {
  controllerOf,
  createFixtures,
  discard,
  involved,
  keyOf,
  remove,
  type Snapshot,
  snapshot,
  typeOf,
} from "../internal/world.ts";
import type { ConformanceSession } from "../session.ts";
import { applyChange, describeStep, type Step } from "./generate.ts";
import {
  converges,
  failuresShown,
  historyIndependent,
  noOrphan,
  targetFixture,
  Violation,
} from "./oracles.ts";
import { killAfterWrite, restartStale, staleHoldMs, unobserved } from "./perturb.ts";
import type { TrialPlan } from "./plan.ts";

/** What happened in a trial. */
export interface TrialResult {
  plan: TrialPlan;
  /** One line per step (and the creation): applied and how it converged, or refused. */
  log: string[];
  /** Set when an oracle failed. */
  violation?: Violation;
  /** Where the violation showed: `after step 2 (...)`, `comparing with a fresh start`, ... */
  at?: string;
  wallMs: number;
}

/** Refusals of the apiserver or a webhook: 400 (webhook denial), 403, 422 (schema validation). */
const refusal = (err: unknown): boolean =>
  [400, 403, 422].includes((err as { statusCode?: number }).statusCode ?? 0);

/** Applies a set or remove step to the target, retrying on conflicts; returns the refusal message, if refused. */
async function change(
  session: ConformanceSession,
  target: KubeObject,
  step: Exclude<Step, { op: "recreate" }>,
): Promise<string | undefined> {
  const type = await typeOf(session, target);
  const where = { namespace: target.metadata.namespace };
  for (let attempt = 1; ; attempt++) {
    const fresh = await session.client.get(type, target.metadata.name ?? "", where);
    try {
      await session.client.update(type, applyChange(fresh, step));
      return undefined;
    } catch (err) {
      if (refusal(err)) return err instanceof Error ? err.message : String(err);
      if (!(err instanceof ConflictError) || attempt >= 5) throw err;
    }
  }
}

/** Asks for the target's deletion; returns it as it was, for {@link recreated}. */
async function requestDeletion(session: ConformanceSession, target: KubeObject): Promise<KubeObject> {
  const type = await typeOf(session, target);
  const old = await session.client.get(type, target.metadata.name ?? "", {
    namespace: target.metadata.namespace,
  });
  await remove(session, old);
  return old;
}

/**
 * Waits until the deleted target (`old`) is gone (its finalizers run); deletes the outputs it
 * controlled, as the garbage collector would (see `deletePrimaries` for why). Returns the object
 * to create again: the target with the spec it had.
 */
async function recreated(
  session: ConformanceSession,
  target: KubeObject,
  old: KubeObject,
  marker: number,
): Promise<KubeObject> {
  const type = await typeOf(session, target);
  const where = { namespace: target.metadata.namespace };
  const gone = await poll(
    () =>
      session.client.get(type, target.metadata.name ?? "", where).then(
        () => undefined,
        (err: unknown) => (err instanceof NotFoundError ? true : undefined),
      ),
    session.subject.timings.repairMs,
  );
  if (!gone) {
    throw new Violation(
      "converges",
      `${keyOf(target)} gone within ${session.subject.timings.repairMs / 1000} s of its deletion`,
      "still there (a finalizer not removed?)",
      involved(session, target.metadata.namespace ?? "", marker),
    );
  }
  const snap = await snapshot(session, target.metadata.namespace ?? "");
  const owned = snap.strays.filter((s) => controllerOf(s.object)?.uid === old.metadata.uid);
  await Promise.all(owned.map((s) => remove(session, s.object)));
  return { ...target, spec: (old as { spec?: unknown }).spec } as KubeObject;
}

/**
 * Runs `act`, perturbed when the plan's kill or stale restart is at position `at`; says how, for
 * the log. (An unobserved pair is run by {@link unobservedPair}.)
 */
async function perhapsPerturbed(
  session: ConformanceSession,
  plan: TrialPlan,
  at: number,
  namespace: string,
  act: () => Promise<void>,
): Promise<string> {
  const p = plan.perturbation;
  if (p?.at !== at || p.kind === "unobserved") {
    await act();
    return "";
  }
  if (p.kind === "stale") {
    const stale = await restartStale(session, namespace, p.resource, act);
    const held = stale.quiet ? "held until it was quiet" : `held ${staleHoldMs / 1000} s, writing all along`;
    return `; operator restarted on a view of ${p.resource} as of resourceVersion ${stale.resourceVersion}, ${held}`;
  }
  const done = await killAfterWrite(session, namespace, p.k, act);
  return done >= p.k
    ? `; operator killed after write ${p.k}, restarted`
    : `; operator killed idle (the reconcile made ${done} of ${p.k} writes), restarted`;
}

/**
 * Applies steps `at` and `at + 1` (1-based; spec changes) back to back with the operator's watch of
 * the target's kind delivering nothing, then has it list again; converges once. Returns the log
 * line of both steps, or throws the Violation of the oracles.
 */
async function unobservedPair(
  session: ConformanceSession,
  plan: TrialPlan,
  at: number,
  target: KubeObject,
): Promise<string> {
  const namespace = target.metadata.namespace ?? "";
  const pair = plan.steps.slice(at - 1, at + 1) as Exclude<Step, { op: "recreate" }>[];
  const marker = session.marker();
  const outcomes: string[] = [];
  const { plural } = await typeOf(session, target);
  const relisted = await unobserved(session, plural, async () => {
    for (const step of pair) {
      const refused = await change(session, target, step);
      outcomes.push(refused ? `refused (${refused.slice(0, 120)})` : "applied");
    }
  });
  const what = `every primary to settle after steps ${at}–${at + 1}, whose events were never delivered`;
  const settled = await converges(session, namespace, marker, what);
  await failuresShown(session, namespace, marker);
  const steps = pair.map((s, i) => `step ${at + i} ${describeStep(s)}: ${outcomes[i]}`).join("; ");
  const relist = relisted ? "the operator listed again" : "the operator did not list again";
  return `${steps}; then ${settled} (events of steps ${at}–${at + 1} unobserved, ${relist})`;
}

/**
 * Deletes the first output (by key) the target controls, as another hand might, and waits until
 * the operator made one of its kind again: an operator that does not watch its outputs never
 * learns. Returns the log line, or throws a `converges` Violation. Nothing is deleted for an
 * operator whose spec says deleted outputs are left deleted.
 */
async function outputRestored(session: ConformanceSession, target: KubeObject): Promise<string> {
  // Recreating such an output repeats a side effect (a LoadTest's Job runs its test again); the
  // kit's outputs-watched check tampers with those outputs instead.
  if (session.subject.spec.outputDeletion === "leave")
    return 'no output deleted (the spec says `outputDeletion: "leave"`)';
  const namespace = target.metadata.namespace ?? "";
  const marker = session.marker();
  const controlled = (snap: Snapshot) => [...snap.outputs.values()].filter((o) => o.owner === keyOf(target));
  const [victim] = controlled(await snapshot(session, namespace)).sort((a, b) => a.key.localeCompare(b.key));
  if (!victim) return "no output to delete";
  const start = now();
  await remove(session, victim.object);
  const made = await poll(async () => {
    const again = controlled(await snapshot(session, namespace)).filter(
      (o) => o.object.kind === victim.object.kind,
    );
    return again.some((o) => o.object.metadata.uid !== victim.object.metadata.uid) || undefined;
  }, session.subject.timings.repairMs);
  if (!made) {
    throw new Violation(
      "converges",
      `${victim.key}, deleted by another hand, made again within ${session.subject.timings.repairMs / 1000} s`,
      "never made again (is its kind watched?)",
      involved(session, namespace, marker),
    );
  }
  const settled = await converges(
    session,
    namespace,
    marker,
    "every primary to settle after an output's deletion",
  );
  return `${victim.key} deleted by another hand: made again in ${((now() - start) / 1000).toFixed(1)} s, then ${settled}`;
}

/** Runs one trial in a namespace of its own (dropped at the end); never throws for a violation. */
export async function runTrial(session: ConformanceSession, plan: TrialPlan): Promise<TrialResult> {
  const start = now();
  const namespace = await session.namespace("explore");
  const marker = session.marker();
  const target = targetFixture(session, namespace);
  const log: string[] = [];
  let at = "after the fixtures' creation";
  try {
    const killed = await perhapsPerturbed(session, plan, 0, namespace, async () => {
      await createFixtures(session, namespace);
    });
    log.push(`creation: ${await converges(session, namespace, marker, "the fixtures to settle")}${killed}`);
    await failuresShown(session, namespace, marker);
    for (let i = 0; i < plan.steps.length; i++) {
      const step = plan.steps[i] as Step;
      at = `after step ${i + 1} (${describeStep(step)})`;
      if (plan.perturbation?.kind === "unobserved" && plan.perturbation.at === i + 1) {
        at = `after steps ${i + 1}–${i + 2}, unobserved`;
        log.push(await unobservedPair(session, plan, i + 1, target));
        i++;
        continue;
      }
      let refused: string | undefined;
      const stepMarker = session.marker();
      // A kill at a recreate lands in the reconcile of the deletion (the finalizer's cleanup, run
      // again on the restart); a stale view, in that of the creation.
      const killDeleting = step.op === "recreate" && plan.perturbation?.kind === "kill";
      let old: KubeObject | undefined;
      const killedDeleting =
        step.op === "recreate"
          ? await perhapsPerturbed(session, plan, killDeleting ? i + 1 : -1, namespace, async () => {
              old = await requestDeletion(session, target);
            })
          : "";
      const again = old && (await recreated(session, target, old, stepMarker));
      const killed = await perhapsPerturbed(session, plan, killDeleting ? -1 : i + 1, namespace, async () => {
        if (again) await session.client.create(await typeOf(session, again), again);
        else if (step.op !== "recreate") refused = await change(session, target, step);
      });
      const outcome = refused
        ? `refused (${refused.slice(0, 120)})`
        : await converges(session, namespace, stepMarker, `every primary to settle ${at}`);
      const deleting = killedDeleting.replace(/^; /, "; while deleting, ");
      log.push(`step ${i + 1} ${describeStep(step)}: ${outcome}${deleting}${killed}`);
      if (!refused) await failuresShown(session, namespace, stepMarker);
    }
    at = "after deleting an output by another hand";
    log.push(await outputRestored(session, target));
    const explored = await snapshot(session, namespace);
    const final = explored.primaries.find((p) => keyOf(p) === keyOf(target)) ?? target;
    at = "comparing with a fresh operator start on the final spec";
    await historyIndependent(session, explored, final, marker);
    at = "deleting the primary objects";
    await noOrphan(session, explored, marker);
    return { plan, log, wallMs: now() - start };
  } catch (err) {
    if (!(err instanceof Violation)) throw err;
    return { plan, log, violation: err, at, wallMs: now() - start };
  } finally {
    session.proxy.clear();
    await discard(session, namespace).catch(() => {});
    if (!session.operator.running) await session.operator.start();
  }
}
