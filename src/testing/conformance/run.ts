/** Running checks: one at a time on a session, each turned into a result, never an exception. */
import { KubeloopError } from "../../errors/index.ts";
import type { ConformanceCheck } from "./check.ts";
import { checkNames, conformanceChecks } from "./checks/index.ts";
import { ConformanceError } from "./errors.ts";
import { type ConformanceMember, openFleetSession } from "./fleet-session.ts";
import { now } from "./internal/poll.ts";
import { discard } from "./internal/world.ts";
import { CheckFailed, type CheckName, type CheckResult, type ConformanceReport } from "./result.ts";
import { type ConformanceSession, openSession, type SessionOptions } from "./session.ts";
import type { ConformanceSpec } from "./spec.ts";

/** Options of {@link runConformance}. */
export interface RunConformanceOptions extends SessionOptions {
  /** The checks to run, by name. Default: all, in order. */
  checks?: readonly CheckName[];
  /**
   * Check the operator running in a fleet of these member clusters ({@link openFleetSession}):
   * every check runs on each member in turn, its results naming the member (`cluster`).
   */
  fleet?: readonly ConformanceMember[];
}

/** The checks `names` selects, in run order; throws {@link ConformanceError} on an unknown name. */
export function selectChecks(names?: readonly string[]): ConformanceCheck[] {
  if (!names || names.length === 0) return [...conformanceChecks];
  const unknown = names.filter((n) => !checkNames.includes(n as CheckName));
  if (unknown.length) {
    throw new ConformanceError(
      `unknown check ${unknown.join(", ")}; the checks are ${checkNames.join(", ")}`,
    );
  }
  return conformanceChecks.filter((c) => names.includes(c.name));
}

/** A namespace the kit made: `kl-<label>-<6 hex>`. */
const kitNamespace = /\bkl-[a-z-]+-[0-9a-f]{6}\b/;

/** The operator's last log lines, without those about the namespaces of other checks. */
function logsAbout(session: ConformanceSession, namespaces: readonly string[]): string[] {
  return session.operator
    .logTail(200)
    .filter((line) => namespaces.some((n) => line.includes(n)) || !kitNamespace.test(line))
    .slice(-25);
}

/**
 * Runs one check on a session and reports the result: passed, skipped, or failed with what was
 * expected, what was seen, the requests involved and the operator's last log lines. Deletes the
 * namespaces the check created and makes sure the operator runs again afterwards.
 */
export async function runCheck(session: ConformanceSession, check: ConformanceCheck): Promise<CheckResult> {
  const before = new Set(session.liveNamespaces());
  const ours = () => session.liveNamespaces().filter((n) => !before.has(n));
  const start = now();
  const base = {
    name: check.name,
    title: check.title,
    ...(session.member ? { cluster: session.member } : {}),
  };
  session.log(`${check.name}: ${check.title}`);
  let result: CheckResult;
  try {
    const outcome = await check.run(session);
    result = {
      ...base,
      outcome: outcome.skipped ? "skipped" : "passed",
      timeMs: outcome.timeMs,
      summary: outcome.summary,
      wallMs: now() - start,
    };
  } catch (err) {
    const failure =
      err instanceof CheckFailed
        ? err.failure
        : {
            expected: "the check to run to its end",
            seen: `${err instanceof KubeloopError ? "" : "unexpected "}error: ${err instanceof Error ? err.message : String(err)}`,
            requests: [],
          };
    result = {
      ...base,
      outcome: "failed",
      summary: failure.seen,
      failure: { ...failure, logs: logsAbout(session, ours()) },
      wallMs: now() - start,
    };
  } finally {
    session.proxy.clear();
    for (const namespace of ours()) await discard(session, namespace).catch(() => {});
  }
  if (!session.operator.running) await session.operator.start();
  session.log(`${check.name}: ${result.outcome}${result.outcome === "failed" ? ` — ${result.summary}` : ""}`);
  return result;
}

/** The sessions of a run: one, or one per member of a fleet; and how to close them. */
async function openSessions(
  spec: ConformanceSpec,
  options: RunConformanceOptions,
): Promise<{ sessions: readonly ConformanceSession[]; close(): Promise<void> }> {
  if (options.fleet) {
    const fleet = await openFleetSession(spec, options.fleet, options);
    return { sessions: fleet.members, close: fleet.close };
  }
  const session = await openSession(spec, options);
  return { sessions: [session], close: session.close };
}

/**
 * Runs the conformance checks on an operator: starts a local control plane (or uses the one
 * given), the fault proxy and the operator as a process of its own, runs each check, and reports.
 * With `fleet`, the operator runs in a fleet of the members given and each check runs on each.
 * Never throws for a failing check; throws {@link ConformanceError} when the run cannot start.
 *
 * @example
 * ```ts
 * const report = await runConformance(spec, { checks: ["idempotent", "outputs-watched"] });
 * console.log(formatReport(report));
 * assert.ok(report.ok);
 * ```
 */
export async function runConformance(
  spec: ConformanceSpec,
  options: RunConformanceOptions = {},
): Promise<ConformanceReport> {
  const checks = selectChecks(options.checks);
  const start = now();
  const { sessions, close } = await openSessions(spec, options);
  const results: CheckResult[] = [];
  try {
    for (const session of sessions) for (const check of checks) results.push(await runCheck(session, check));
  } finally {
    await close();
  }
  return {
    operator: sessions[0]?.subject.operator.name ?? "",
    results,
    ok: results.every((r) => r.outcome !== "failed"),
    wallMs: now() - start,
  };
}
