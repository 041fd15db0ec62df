/**
 * State-space exploration and intermediate-state perturbation of an operator (`kubeloop verify
 * --explore`): spec changes generated from the primary kind's schema, the operator killed after
 * its k-th write, oracles on every trial, seeded and replayable, failing sequences shrunk.
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
export { keepSteps, type Perturbation, planTrial, replayPlan, type TrialPlan, trialSeed } from "./plan.ts";
export { describePlan, formatExploreReport } from "./report.ts";
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
