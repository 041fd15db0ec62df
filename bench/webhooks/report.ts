/**
 * The figures of bench/webhooks.ts: one round of one contender from its load run, the medians of
 * each contender over the rounds that answered every request right, the ratio kubeloop ÷
 * controller-runtime, and the markdown report.
 */
import { percentile } from "../peers/harness/stopwatches.ts";
import { fmt, median, table } from "../support/report.ts";
import type { LoadResult } from "./load.ts";

/** The two webhook servers compared. */
export type Contender = "kubeloop" | "controller-runtime";
export const contenders: readonly Contender[] = ["kubeloop", "controller-runtime"];

/** The figures of one server under load, or their medians. */
export interface Figures {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** The server's CPU time per answered request, µs. */
  cpuUsPerRequest: number;
  /** The server's CPU seconds per second of the window (1 = one core busy). */
  cores: number;
  /** The load generator's, likewise: near 1 it, not the server, limits the rate. */
  generatorCores: number;
  peakRssMiB: number;
}

/** One contender's round: its figures, and how many answers were wrong (a round with any does not count). */
export interface Round extends Figures {
  contender: Contender;
  round: number;
  requests: number;
  windowSeconds: number;
  cpuSeconds: number;
  sent: number;
  wrong: number;
  wrongExamples: string[];
}

/** The round's figures from its load run and the server's peak RSS. */
export function roundOf(contender: Contender, round: number, load: LoadResult, peakRssMiB: number): Round {
  const sorted = [...load.latenciesMs].sort((a, b) => a - b);
  const windowSeconds = load.windowMs / 1000;
  const requests = sorted.length;
  return {
    contender,
    round,
    requests,
    windowSeconds,
    requestsPerSecond: requests / windowSeconds,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    cpuSeconds: load.serverCpuSeconds,
    cpuUsPerRequest: (load.serverCpuSeconds * 1e6) / requests,
    cores: load.serverCpuSeconds / windowSeconds,
    generatorCores: load.generatorCpuSeconds / windowSeconds,
    peakRssMiB,
    sent: load.sent,
    wrong: load.wrong,
    wrongExamples: load.wrongExamples,
  };
}

const figureNames: readonly (keyof Figures)[] = [
  "requestsPerSecond",
  "p50Ms",
  "p99Ms",
  "cpuUsPerRequest",
  "cores",
  "generatorCores",
  "peakRssMiB",
];

/** The medians of `contender`'s rounds that answered every request right (NaN when none did). */
export function mediansOf(rounds: readonly Round[], contender: Contender): Figures & { rounds: number } {
  const valid = rounds.filter((r) => r.contender === contender && r.wrong === 0);
  const out = { rounds: valid.length } as Figures & { rounds: number };
  for (const name of figureNames) out[name] = valid.length ? median(valid.map((r) => r[name])) : Number.NaN;
  return out;
}

/** Each figure of `a` divided by the same figure of `b`. */
export function ratioOf(a: Figures, b: Figures): Figures {
  const out = {} as Figures;
  for (const name of figureNames) out[name] = a[name] / b[name];
  return out;
}

/** What the report says besides the rounds. */
export interface ReportContext {
  date: string;
  command: string;
  settings: string;
  machine: string[];
  versions: Record<Contender, string>;
}

const header = [
  "",
  "requests/s",
  "p50 ms",
  "p99 ms",
  "server CPU µs / request",
  "server cores busy",
  "load generator cores busy",
  "peak RSS MiB",
];

function figureCells(f: Figures, digits: number): string[] {
  return [
    fmt(f.requestsPerSecond, digits),
    fmt(f.p50Ms, digits === 0 ? 1 : 2),
    fmt(f.p99Ms, digits === 0 ? 1 : 2),
    fmt(f.cpuUsPerRequest, digits),
    fmt(f.cores, 2),
    fmt(f.generatorCores, 2),
    fmt(f.peakRssMiB, digits),
  ];
}

function roundsTable(rounds: readonly Round[]): string {
  const rows = rounds.map((r) => [
    String(r.round),
    r.contender,
    fmt(r.requestsPerSecond),
    fmt(r.p50Ms, 1),
    fmt(r.p99Ms, 1),
    fmt(r.cpuSeconds, 2),
    `${fmt(r.cores, 2)} / ${fmt(r.generatorCores, 2)}`,
    fmt(r.peakRssMiB),
    `${fmt(r.sent)} / ${fmt(r.wrong)}${r.wrongExamples[0] ? ` (${r.wrongExamples[0]})` : ""}`,
  ]);
  const head = [
    "round",
    "contender",
    "requests/s",
    "p50 ms",
    "p99 ms",
    "CPU s",
    "cores busy: server / load",
    "peak RSS MiB",
    "answers / wrong",
  ];
  return table(head, rows);
}

/** The markdown report: settings, machine, medians and ratio, then every round. */
export function markdown(rounds: readonly Round[], ctx: ReportContext): string {
  const k = mediansOf(rounds, "kubeloop");
  const c = mediansOf(rounds, "controller-runtime");
  const medians = table(header, [
    ["kubeloop", ...figureCells(k, 0)],
    ["controller-runtime", ...figureCells(c, 0)],
    ["kubeloop ÷ controller-runtime", ...figureCells(ratioOf(k, c), 2)],
  ]);
  return [
    `# Admission webhook servers, measured ${ctx.date}`,
    "",
    `\`${ctx.command}\`: ${ctx.settings}`,
    "",
    ...ctx.machine.map((line) => `${line}  `),
    `kubeloop: ${ctx.versions.kubeloop}  `,
    `controller-runtime: ${ctx.versions["controller-runtime"]}`,
    "",
    "Medians of the rounds (a round with a wrong answer would not count):",
    "",
    medians,
    "",
    "Every round:",
    "",
    roundsTable(rounds),
    "",
  ].join("\n");
}
