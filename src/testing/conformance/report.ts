/**
 * The report of a run as text: a table (check, result, time to converge or repair, the check's own
 * wall time with its setup and cleanup, details), then each failure in full.
 */
import { describeRequest } from "./internal/requests.ts";
import { seconds } from "./internal/steps.ts";
import type { CheckResult, ConformanceReport } from "./result.ts";

const marks: Record<CheckResult["outcome"], string> = { passed: "✓", failed: "✗", skipped: "–" };

function pad(cells: string[], widths: number[]): string {
  return cells
    .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
    .join("  ")
    .trimEnd();
}

/** The table: one row per check (and member cluster, in a fleet). */
export function formatTable(results: readonly CheckResult[]): string {
  const fleet = results.some((r) => r.cluster !== undefined);
  const rows = results.map((r) => [
    ...(fleet ? [r.cluster ?? ""] : []),
    r.name,
    marks[r.outcome],
    seconds(r.timeMs),
    seconds(r.wallMs),
    r.summary,
  ]);
  const header = [...(fleet ? ["cluster"] : []), "check", "result", "time", "took", "details"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]?.length ?? 0)));
  return [pad(header, widths), ...rows.map((row) => pad(row, widths))].join("\n");
}

/** One failed check in full: what was expected, what was seen, the requests involved, the operator's last logs. */
export function formatFailure(result: CheckResult): string {
  const failure = result.failure;
  if (!failure) return "";
  const lines = [
    `✗ ${result.name}${result.cluster ? ` on ${result.cluster}` : ""} (${result.title})`,
    `  expected: ${failure.expected}`,
    `  seen:     ${failure.seen}`,
  ];
  if (failure.requests.length) {
    lines.push("  requests involved:", ...failure.requests.map((r) => `    ${describeRequest(r)}`));
  } else {
    lines.push("  requests involved: none (the operator sent no write and no request failed)");
  }
  if (failure.logs.length) lines.push("  operator log (last lines):", ...failure.logs.map((l) => `    ${l}`));
  return lines.join("\n");
}

/** The whole report: a title line, the table, the failures, a verdict. */
export function formatReport(report: ConformanceReport): string {
  const failed = report.results.filter((r) => r.outcome === "failed");
  const verdict = failed.length
    ? `${failed.length} of ${report.results.length} checks failed`
    : `all ${report.results.filter((r) => r.outcome === "passed").length} checks passed`;
  return [
    `Conformance of ${report.operator}`,
    "",
    formatTable(report.results),
    ...failed.flatMap((r) => ["", formatFailure(r)]),
    "",
    `${verdict} (${seconds(report.wallMs)})`,
  ].join("\n");
}
