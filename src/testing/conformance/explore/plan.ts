/**
 * The plan of a trial, derived from the run's seed, the trial's number and the kinds the operator
 * was seen to watch, so that `--seed S --trial T` replays it: which generated steps, in which
 * order, and one of Sieve's three perturbations (OSDI '22), placed at the fixtures' creation (0)
 * or step i: the operator killed right after its k-th write of the reconcile (intermediate
 * states), restarted on a view of one watched kind as it was before the step (stale states), or
 * two steps applied back to back with the events between them never delivered (unobserved states).
 */
import { seededRandom } from "../../proxy/match.ts";
import type { Step } from "./generate.ts";

/** Kill the operator right after its `k`-th write of the reconcile that follows step `at` (0: creation). */
export interface KillPerturbation {
  kind: "kill";
  at: number;
  k: number;
}

/**
 * Once the reconcile of step `at` (0: creation) settled, restart the operator with its view of
 * `resource` (a plural it watches) as it was just before the step: its list served as of that
 * resourceVersion, its watch of it held until the restarted process is idle, then released.
 */
export interface StalePerturbation {
  kind: "stale";
  at: number;
  resource: string;
}

/**
 * Steps `at` and `at + 1` (spec changes, not re-creations) applied back to back while the
 * operator's watch of the primary kind delivers nothing; then it must list again (its watch
 * resumption answered 410 Expired), so it only ever sees the state after both.
 */
export interface UnobservedPerturbation {
  kind: "unobserved";
  at: number;
}

/** The one perturbation of a trial. */
export type Perturbation = KillPerturbation | StalePerturbation | UnobservedPerturbation;

/** One trial: the run's seed, its number, its steps and its perturbation. */
export interface TrialPlan {
  seed: number;
  trial: number;
  /** Indices into the trial's generated steps that this plan keeps (all of them until shrunk). */
  indices: number[];
  steps: Step[];
  /** Absent once shrinking dropped the step it followed. */
  perturbation?: Perturbation;
}

/** How many steps a trial takes. */
export const STEPS_PER_TRIAL = 4;
/** The largest k tried: kills after the 1st to the 4th write, cycling over the trials. */
export const MAX_KILL_WRITE = 4;

/** The seed of trial `trial` of a run seeded `seed` (a 32-bit mix of both). */
export function trialSeed(seed: number, trial: number): number {
  let h = (Math.imul(seed >>> 0, 0x9e3779b1) ^ Math.imul(trial + 1, 0x85ebca77)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d) >>> 0;
  return (h ^ (h >>> 15)) >>> 0;
}

/** The positions `at` (1-based) where steps `at` and `at + 1` are both spec changes: where an unobserved pair fits. */
export function unobservedPairs(steps: readonly Step[]): number[] {
  return steps.flatMap((s, i) => {
    const next = steps[i + 1];
    return next && s.op !== "recreate" && next.op !== "recreate" ? [i + 1] : [];
  });
}

/**
 * The plan of trial `trial`: {@link STEPS_PER_TRIAL} steps drawn from `candidates` with the trial's
 * seed, then its perturbation, at the creation (whose reconcile writes the most) half the time,
 * else after a random step. Half the trials kill, k cycling through 1..{@link MAX_KILL_WRITE} over
 * the trials so that each k a reconcile reaches gets tried within a few trials; a quarter restart
 * on a stale view of one of `watched` (the resources the operator was seen to watch, sorted); a
 * quarter leave a pair of spec changes unobserved. A class that has nothing to act on (no watched
 * resource, no pair of spec changes) gives way to a kill.
 */
export function planTrial(
  candidates: readonly Step[],
  seed: number,
  trial: number,
  watched: readonly string[] = [],
): TrialPlan {
  const random = seededRandom(trialSeed(seed, trial));
  const pick = () => Math.floor(random() * candidates.length);
  const indices = Array.from({ length: STEPS_PER_TRIAL }, pick);
  const steps = indices.map((i) => candidates[i] as Step);
  const at = random() < 0.5 ? 0 : 1 + Math.floor(random() * steps.length);
  const kill: Perturbation = { kind: "kill", at, k: 1 + (trial % MAX_KILL_WRITE) };
  const choice = random();
  const pairs = unobservedPairs(steps);
  const perturbation: Perturbation =
    choice < 0.5
      ? kill
      : choice < 0.75
        ? watched.length
          ? { kind: "stale", at, resource: watched[Math.floor(random() * watched.length)] as string }
          : kill
        : pairs.length
          ? { kind: "unobserved", at: pairs[Math.floor(random() * pairs.length)] as number }
          : kill;
  return { seed, trial, indices, steps, perturbation };
}

/** Where `at` (0: creation, else a 1-based step) lands among the kept positions; undefined when its step went. */
function movedTo(at: number, kept: readonly number[]): number | undefined {
  if (at === 0) return 0;
  const i = kept.indexOf(at - 1);
  return i < 0 ? undefined : i + 1;
}

/**
 * The plan keeping only the steps at `positions` (positions in `plan.steps`); the perturbation
 * follows its step, and goes with it. An unobserved pair stays only while both its steps do
 * (nothing then lies between them).
 */
export function keepSteps(plan: TrialPlan, positions: readonly number[]): TrialPlan {
  const kept = [...positions].sort((a, b) => a - b);
  const p = plan.perturbation;
  const moved = p && movedTo(p.at, kept);
  const whole = p?.kind !== "unobserved" || movedTo(p.at + 1, kept) !== undefined;
  return {
    ...plan,
    indices: kept.map((i) => plan.indices[i] as number),
    steps: kept.map((i) => plan.steps[i] as Step),
    perturbation: p && moved !== undefined && whole ? { ...p, at: moved } : undefined,
  };
}

/** The plan of trial `trial` reduced to the generated steps numbered `indices` (`--steps`), in order. */
export function replayPlan(
  candidates: readonly Step[],
  seed: number,
  trial: number,
  positions?: number[],
  watched: readonly string[] = [],
): TrialPlan {
  const plan = planTrial(candidates, seed, trial, watched);
  return positions ? keepSteps(plan, positions) : plan;
}
