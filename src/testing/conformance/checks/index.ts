/** The thirteen checks, in the order they run. */
import type { ConformanceCheck } from "../check.ts";
import type { CheckName } from "../result.ts";
import { cacheHeals } from "./cache-heals.ts";
import { converge } from "./converge.ts";
import { crashSafety } from "./crash.ts";
import { exclusiveOutputs } from "./exclusive.ts";
import { finalizers } from "./finalizers.ts";
import { generationHonesty } from "./generation.ts";
import { idempotent } from "./idempotent.ts";
import { leadershipFenced } from "./leadership.ts";
import { missedEvents } from "./missed-events.ts";
import { outputsWatched } from "./outputs.ts";
import { statusRebuild } from "./status.ts";
import { transientFailures } from "./transient.ts";
import { watchExpiry } from "./watch-expiry.ts";

export {
  cacheHeals,
  converge,
  crashSafety,
  exclusiveOutputs,
  finalizers,
  generationHonesty,
  idempotent,
  leadershipFenced,
  missedEvents,
  outputsWatched,
  statusRebuild,
  transientFailures,
  watchExpiry,
};

/** Every check, in the order a run takes them. */
export const conformanceChecks: readonly ConformanceCheck[] = Object.freeze([
  converge,
  idempotent,
  outputsWatched,
  exclusiveOutputs,
  statusRebuild,
  missedEvents,
  watchExpiry,
  cacheHeals,
  crashSafety,
  finalizers,
  transientFailures,
  generationHonesty,
  leadershipFenced,
]);

/** The names of every check, in order. */
export const checkNames: readonly CheckName[] = Object.freeze(conformanceChecks.map((c) => c.name));
