/** What a check reports: passed, failed (what was expected, what was seen, the requests involved) or skipped. */
import type { RequestRecord } from "../proxy/index.ts";

/** The names of the checks, in the order they run. */
export type CheckName =
  | "converge"
  | "idempotent"
  | "outputs-watched"
  | "exclusive-outputs"
  | "status-rebuild"
  | "missed-events"
  | "watch-expiry"
  | "cache-heals"
  | "crash-safety"
  | "finalizers"
  | "transient-failures"
  | "generation-honesty"
  | "leadership-fenced";

/** Why a check failed. */
export interface CheckFailure {
  /** What the principle requires, concretely. */
  expected: string;
  /** What the kit saw instead. */
  seen: string;
  /** The operator's requests that matter (from the proxy's log), oldest first. */
  requests: RequestRecord[];
  /** The last lines the operator logged. */
  logs: string[];
}

/** The result of one check. */
export interface CheckResult {
  name: CheckName;
  /** The member cluster it ran on, when the operator runs in a fleet. */
  cluster?: string;
  /** The principle the check proves, in a few words. */
  title: string;
  outcome: "passed" | "failed" | "skipped";
  /** Time to converge or repair, in milliseconds, when the check measures one. */
  timeMs?: number;
  /** One line: what was measured, or why the check was skipped. */
  summary: string;
  failure?: CheckFailure;
  /** How long the check ran, in milliseconds. */
  wallMs: number;
}

/** The results of a run. */
export interface ConformanceReport {
  /** The operator's name. */
  operator: string;
  results: CheckResult[];
  /** True when no check failed. */
  ok: boolean;
  wallMs: number;
}

/** What a check's `run` resolves to when it passes (or is skipped). */
export interface CheckOutcome {
  timeMs?: number;
  summary: string;
  /** The check does not apply to this operator or spec; `summary` says why. */
  skipped?: boolean;
}

/** Thrown inside a check when the operator does not do what the principle requires. */
export class CheckFailed extends Error {
  readonly failure: Omit<CheckFailure, "logs">;

  constructor(failure: { expected: string; seen: string; requests?: RequestRecord[] }) {
    super(`expected ${failure.expected}; seen ${failure.seen}`);
    this.failure = { requests: [], ...failure };
  }
}
