/** The shape of a check: a name, the principle it proves, and how to run it on a session. */
import type { CheckName, CheckOutcome } from "./result.ts";
import type { ConformanceSession } from "./session.ts";

/**
 * One conformance check. `run` resolves with what it measured when the operator honours the
 * principle, and throws `CheckFailed` (expected, seen, requests) when it does not. Checks create
 * their own namespaces and leave the operator running.
 */
export interface ConformanceCheck {
  readonly name: CheckName;
  /** The principle, in a few words. */
  readonly title: string;
  run(session: ConformanceSession): Promise<CheckOutcome>;
}
