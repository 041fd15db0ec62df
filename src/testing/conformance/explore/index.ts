/**
 * State-space exploration and perturbation of an operator (`kubeloop verify
 * --explore`): spec changes generated from the primary kind's schema, one perturbation per trial
 * (a kill after the k-th write, a restart on a stale view, two changes left unobserved), oracles
 * on every trial, seeded and replayable, failing sequences shrunk.
 */
export {
  applyChange,
  candidateSteps,
  describeStep,
  fieldCandidates,
  type Step,
  sampleValue,
} from "./generate.ts";
export type { OracleName, Violation } from "./oracles.ts";
export {
  type KillPerturbation,
  keepSteps,
  type Perturbation,
  planTrial,
  replayPlan,
  type StalePerturbation,
  type TrialPlan,
  trialSeed,
  type UnobservedPerturbation,
  unobservedPairs,
} from "./plan.ts";
export { describePerturbation, describePlan, formatExploreReport } from "./report.ts";
export {
  type ExploreOptions,
  type ExploreReport,
  type Finding,
  replayCommand,
  runExploration,
  specSchema,
} from "./run.ts";
export { type Shrunk, shrink } from "./shrink.ts";
export type { TrialResult } from "./trial.ts";
