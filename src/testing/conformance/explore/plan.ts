/**
 * The plan of a trial, derived from the run's seed and the trial's number alone, so that
 * `--seed S --trial T` replays it: which generated steps, in which order, and where the operator is
 * killed (Sieve's intermediate states, OSDI '22): right after its k-th write of the reconcile that
 * follows the fixtures' creation (0) or step i.
 */
import { seededRandom } from "../../proxy/match.ts";
import type { Step } from "./generate.ts";

/** Kill the operator right after its `k`-th write of the reconcile that follows step `at` (0: creation). */
export interface Perturbation {
  at: number;
  k: number;
}

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

/**
 * The plan of trial `trial`: {@link STEPS_PER_TRIAL} steps drawn from `candidates` with the trial's
 * seed, and one kill: half the time at the creation, whose reconcile writes the most, else after a
 * random step; k cycles through 1..{@link MAX_KILL_WRITE} over the trials, so that each k a
 * reconcile reaches gets tried within a few trials.
 */
export function planTrial(candidates: readonly Step[], seed: number, trial: number): TrialPlan {
  const random = seededRandom(trialSeed(seed, trial));
  const pick = () => Math.floor(random() * candidates.length);
  const indices = Array.from({ length: STEPS_PER_TRIAL }, pick);
  const steps = indices.map((i) => candidates[i] as Step);
  const k = 1 + (trial % MAX_KILL_WRITE);
  const at = random() < 0.5 ? 0 : 1 + Math.floor(random() * steps.length);
  return { seed, trial, indices, steps, perturbation: { at, k } };
}

/** The plan keeping only the steps at `positions` (positions in `plan.steps`); the perturbation follows its step. */
export function keepSteps(plan: TrialPlan, positions: readonly number[]): TrialPlan {
  const kept = [...positions].sort((a, b) => a - b);
  const p = plan.perturbation;
  const moved = p && (p.at === 0 ? 0 : kept.indexOf(p.at - 1) + 1);
  return {
    ...plan,
    indices: kept.map((i) => plan.indices[i] as number),
    steps: kept.map((i) => plan.steps[i] as Step),
    ...(p && moved !== undefined && (p.at === 0 || moved > 0)
      ? { perturbation: { at: moved, k: p.k } }
      : { perturbation: undefined }),
  };
}

/** The plan of trial `trial` reduced to the generated steps numbered `indices` (`--steps`), in order. */
export function replayPlan(
  candidates: readonly Step[],
  seed: number,
  trial: number,
  positions?: number[],
): TrialPlan {
  const plan = planTrial(candidates, seed, trial);
  return positions ? keepSteps(plan, positions) : plan;
}
