/**
 * Turns the medians of the runs (`medians.ts`) into the markdown report (ratios to kubeloop and
 * to the floor, the goals met or missed, the machine) and the charts (`charts.ts`); a defaults run
 * (`--defaults`) into its own section of the same results.md (`client-settings.ts`).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { barChart, charts, num } from "./charts.ts";
import {
  clientSettingsOf,
  clientSettingsText,
  defaultsSectionIn,
  rawFileOf,
  withDefaultsSection,
} from "./client-settings.ts";
import { type ContenderName, contenderLabels } from "./contenders.ts";
import type { MachineDescription } from "./machine.ts";
import { computeMedians, type Medians } from "./medians.ts";
import { peersDir } from "./paths.ts";
import type { RunResult } from "./sequence.ts";

export interface Report {
  benchmark: "compare";
  date: string;
  machine: MachineDescription;
  settings: Record<string, unknown>;
  runs: (RunResult & { rep: number })[];
  medians?: Record<string, Medians>;
  wallSeconds: number;
}

// --- formatting -------------------------------------------------------------------------------

const ratio = (x: number, base: number) =>
  Number.isNaN(x) || Number.isNaN(base) || base === 0 ? "—" : `${num(x / base)}×`;
const verbsText = (v: Record<string, number>) =>
  Object.keys(v).length === 0
    ? "—"
    : Object.entries(v)
        .map(([k, x]) => `${k} ${x < 0.01 ? "<0.01" : num(x)}`)
        .join(", ");

function table(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}

function sizeSection(ms: Medians[], n: number, level: string): string {
  const get = (c: ContenderName) => ms.find((m) => m.contender === c);
  const kl = get("kubeloop");
  const floor = get("floor");
  const cr = get("controller-runtime");
  const rows = ms.map((m) => [
    contenderLabels[m.contender] + (m.failed ? ` (${m.failed} failed)` : ""),
    num(m.convergeSeconds),
    ratio(m.convergeSeconds, kl?.convergeSeconds ?? Number.NaN),
    ratio(m.convergeSeconds, floor?.convergeSeconds ?? Number.NaN),
    num(m.cpuMsPerObject),
    ratio(m.cpuMsPerObject, kl?.cpuMsPerObject ?? Number.NaN),
    ratio(m.cpuMsPerObject, cr?.cpuMsPerObject ?? Number.NaN),
    verbsText(m.convergePerObject),
    num(m.convergePeakRssMiB, 0),
  ]);
  const rows2 = ms.map((m) => [
    contenderLabels[m.contender],
    m.contender === "floor" ? "—" : num(m.settledWrites, 0),
    m.contender === "floor" ? "—" : num(m.settledRequests, 0),
    num(m.updateSeconds),
    ratio(m.updateSeconds, kl?.updateSeconds ?? Number.NaN),
    ratio(m.updateSeconds, floor?.updateSeconds ?? Number.NaN),
    verbsText(m.updatePerObject),
    `${num(m.repairP50Ms, 0)} / ${num(m.repairP99Ms, 0)}`,
    verbsText(m.repairPerDeletion),
  ]);
  const rows3 = ms.map((m) => [
    contenderLabels[m.contender],
    num(m.restartFirstSeconds),
    num(m.restartAllSeconds),
    ratio(m.restartAllSeconds, kl?.restartAllSeconds ?? Number.NaN),
    num(m.restartPeakRssMiB, 0),
    num(m.restartCpuSeconds),
    verbsText(m.restartRequests),
    num(m.peakRssMiB, 0),
  ]);
  const rows4 = ms.map((m) => [
    contenderLabels[m.contender],
    `${num(m.changeP50Ms, 0)} / ${num(m.changeP99Ms, 0)}`,
    ratio(m.changeP99Ms, kl?.changeP99Ms ?? Number.NaN),
    num(m.changeAllSeconds),
    num(m.starvationSeconds),
    ratio(m.starvationSeconds, kl?.starvationSeconds ?? Number.NaN),
    `${num(m.starvationChangedP50Ms, 0)} / ${num(m.starvationChangedP99Ms, 0)}`,
    ratio(m.starvationChangedP99Ms, kl?.starvationChangedP99Ms ?? Number.NaN),
    num(m.streamPerSecond, 0),
  ]);
  return [
    `${level} N = ${n.toLocaleString("en-US")}`,
    "",
    `Converge ${n.toLocaleString("en-US")} Widgets created at once (time from the first create until the runner sees every Widget converged; CPU of the operator process in that window; requests per object through the proxy).`,
    "",
    table(
      [
        "contender",
        "converge s",
        "× kubeloop",
        "× floor",
        "CPU ms/object",
        "× kubeloop",
        "× controller-runtime",
        "requests/object",
        "peak RSS MiB",
      ],
      rows,
    ),
    "",
    "Settled (writes and requests in the settled window, resync on), spec update of every Widget, repair of deleted ConfigMaps (from the DELETE to the ConfigMap back; requests per deletion).",
    "",
    table(
      [
        "contender",
        "settled writes",
        "settled requests",
        "update s",
        "× kubeloop",
        "× floor",
        "update requests/object",
        "repair p50 / p99 ms",
        "repair requests/deletion",
      ],
      rows2,
    ),
    "",
    "Restart with every Widget present (from process start; all = every Widget reconciled once; requests are totals).",
    "",
    table(
      [
        "contender",
        "first reconcile s",
        "all reconciled s",
        "× kubeloop",
        "peak RSS MiB",
        "CPU s",
        "requests",
        "peak RSS MiB (first run)",
      ],
      rows3,
    ),
    "",
    "Work arriving during a restart (every Widget present and converged, the operator restarted). Change during restart: new Widgets created 0.5 s after the process starts, each timed from its create to converged; all = every Widget, old and new, reconciled once, from process start. Starvation: spec changes of 100 Widgets streamed from 1 s before the restart; the time from process start until every Widget the stream does not change had been reconciled once (the last low-priority object; ∞ when not within 60 s); the changes made in the first 10 s from process start, each timed from its PATCH to its Widget converged with it or a later change (p50 / p99; the stream runs at least that long for every contender); and the stream's achieved rate.",
    "",
    table(
      [
        "contender",
        "change p50 / p99 ms",
        "p99 × kubeloop",
        "all reconciled s",
        "starvation: last reconciled s",
        "× kubeloop",
        "starvation: changed p50 / p99 ms",
        "p99 × kubeloop",
        "stream changes/s",
      ],
      rows4,
    ),
  ].join("\n");
}

interface Goal {
  goal: string;
  value: string;
  met: boolean | undefined;
}

function goals(ms: Medians[], n: number): Goal[] {
  const get = (c: ContenderName) => ms.find((m) => m.contender === c);
  const kl = get("kubeloop");
  if (!kl) return [];
  const out: Goal[] = [];
  const add = (goal: string, a: number, b: number | undefined, max: number, text: (r: number) => string) => {
    if (b === undefined || Number.isNaN(a) || Number.isNaN(b)) return;
    out.push({ goal: `N=${n}: ${goal}`, value: text(a / b), met: a / b <= max });
  };
  add(
    "converge time ≤ controller-runtime's",
    kl.convergeSeconds,
    get("controller-runtime")?.convergeSeconds,
    1,
    (r) => `${num(r)}× controller-runtime`,
  );
  add(
    "converge time ≤ 1.3 × the floor",
    kl.convergeSeconds,
    get("floor")?.convergeSeconds,
    1.3,
    (r) => `${num(r)}× floor`,
  );
  for (const peer of ["client-node", "dot-i"] as const) {
    const p = get(peer);
    if (p)
      add(
        `converge ≥ 3× faster than ${peer}`,
        kl.convergeSeconds * 3,
        p.convergeSeconds,
        1,
        () => `${num(p.convergeSeconds / kl.convergeSeconds)}× faster`,
      );
  }
  const cr = get("controller-runtime");
  const vsControllerRuntime = (r: number) => `${num(r)}× controller-runtime`;
  // Issue 34's goals: CPU per object ≤ 1.1 × at N = 1,000 and ≤ 1.0 × at 5,000; restart ≤ 1.2 ×;
  // peak RSS while converging ≤ 2 × controller-runtime's.
  const cpuGoal = n >= 5000 ? 1 : 1.1;
  add(
    `CPU per object ≤ ${num(cpuGoal, 1)} × controller-runtime's`,
    kl.cpuMsPerObject,
    cr?.cpuMsPerObject,
    cpuGoal,
    vsControllerRuntime,
  );
  add(
    "restart, all reconciled, ≤ 1.2 × controller-runtime's",
    kl.restartAllSeconds,
    cr?.restartAllSeconds,
    1.2,
    vsControllerRuntime,
  );
  add(
    "change during restart p99 ≤ controller-runtime's",
    kl.changeP99Ms,
    cr?.changeP99Ms,
    1,
    vsControllerRuntime,
  );
  add(
    "starvation: last low-priority object reconciled ≤ 2 × the floor's time",
    kl.starvationSeconds,
    get("floor")?.starvationSeconds,
    2,
    (r) =>
      `${num(r)}× floor (controller-runtime ${num(cr?.starvationSeconds ?? Number.NaN)} s; ∞: not within 60 s)`,
  );
  add(
    "starvation: changed keys' p99 ≤ controller-runtime's",
    kl.starvationChangedP99Ms,
    cr?.starvationChangedP99Ms,
    1,
    vsControllerRuntime,
  );
  add(
    "peak RSS while converging ≤ 2 × controller-runtime's",
    kl.convergePeakRssMiB,
    cr?.convergePeakRssMiB,
    2,
    vsControllerRuntime,
  );
  if (!Number.isNaN(kl.settledWrites))
    out.push({
      goal: `N=${n}: zero settled writes`,
      value: `${num(kl.settledWrites, 0)} writes`,
      met: kl.settledWrites === 0,
    });
  if (!Number.isNaN(kl.repairP99Ms))
    out.push({
      goal: `N=${n}: repair p99 ≤ 1 s`,
      value: `${num(kl.repairP99Ms, 0)} ms`,
      met: kl.repairP99Ms <= 1000,
    });
  return out;
}

function machineSection(r: Report): string {
  const m = r.machine;
  const lines = [
    `- Machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB, Linux ${m.kernel}; load average ${num(m.loadAverageAtStart, 1)} at start (other work shared the machine when it is above the core count).`,
    `- Node ${m.node}; ${m.go}.`,
    `- Cluster: ${m.cluster}, a fresh one per contender and repetition.`,
    ...Object.entries(m.contenders).map(([k, v]) => `- ${contenderLabels[k as ContenderName]}: ${v}.`),
    `- Client settings: ${clientSettingsText[clientSettingsOf(r.settings)]}.`,
    `- Settings: ${JSON.stringify(r.settings)}.`,
    `- ${r.runs.length} runs in ${num(r.wallSeconds / 60, 1)} min; medians over repetitions. Date ${r.date}.`,
  ];
  return lines.join("\n");
}

/** The tables of every N, each under a heading of `level` (`##`, or `###` inside a section). */
function sizeSections(all: Medians[], sizes: number[], level: string): string[] {
  return sizes.map(
    (n) =>
      `${sizeSection(
        all.filter((m) => m.n === n),
        n,
        level,
      )}\n`,
  );
}

/** results.md of a run with every limit off: tables, goals, charts, `defaults` (kept), notes. */
function limitsOffReport(report: Report, all: Medians[], sizes: number[], defaults: string): string {
  const goalRows = sizes.flatMap((n) =>
    goals(
      all.filter((m) => m.n === n),
      n,
    ),
  );
  const notesFile = join(peersDir, "NOTES.md");
  return [
    "# kubeloop against its peers",
    "",
    "Generated by `npm run bench` (bench/peers/run.ts). Every contender runs the same Widget operator as its own process, through its own counting proxy, on a fresh local cluster, with 4 workers, no client-side rate limits and a 30 s resync. Ratios are of medians.",
    "",
    machineSection(report),
    "",
    ...sizeSections(all, sizes, "##"),
    "## Goals",
    "",
    table(
      ["goal", "kubeloop", "met"],
      goalRows.map((g) => [g.goal, g.value, g.met ? "yes" : "**no**"]),
    ),
    "",
    ...charts.map((c) => `![${c.title}](${c.file})`),
    "",
    ...(defaults ? [defaults, ""] : []),
    existsSync(notesFile) ? readFileSync(notesFile, "utf8") : "",
  ].join("\n");
}

/** The defaults run's section of results.md. */
function defaultsSection(report: Report, all: Medians[], sizes: number[]): string {
  return [
    "## Every contender at its defaults",
    "",
    "Generated by `npm run bench -- --defaults`: the same operators and scenarios, each contender with its framework's own default client settings instead of its client-side rate limit turned off (kubeloop without `clientOptions`, as `kubeloop generate`'s operator; controller-runtime with the config of `ctrl.GetConfigOrDie()` untouched; client-node, @dot-i/k8s-operator and the floor have no client-side limiter). Raw runs in compare-defaults.json; ratios are of medians within this run.",
    "",
    machineSection(report),
    "",
    ...sizeSections(all, sizes, "###"),
  ].join("\n");
}

/**
 * Writes a run's raw runs and medians (compare.json, or compare-defaults.json) and its part of
 * results.md, and returns that part. A run with every limit off rewrites results.md and the charts,
 * keeping the defaults run's section; a defaults run replaces only that section.
 */
export function writeReport(report: Report, dir: string): string {
  report.medians = computeMedians(report.runs);
  const all = Object.values(report.medians);
  const sizes = [...new Set(all.map((m) => m.n))].sort((a, b) => a - b);
  const mode = clientSettingsOf(report.settings);
  writeFileSync(join(dir, rawFileOf(mode)), `${JSON.stringify(report, null, 2)}\n`);
  const resultsFile = join(dir, "results.md");
  const previous = existsSync(resultsFile) ? readFileSync(resultsFile, "utf8") : "";
  if (mode === "defaults") {
    const section = defaultsSection(report, all, sizes);
    writeFileSync(resultsFile, withDefaultsSection(previous, section));
    return section;
  }
  const md = limitsOffReport(report, all, sizes, defaultsSectionIn(previous));
  writeFileSync(resultsFile, md);
  for (const c of charts) writeFileSync(join(dir, c.file), barChart(c.title, c.unit, sizes, all, c.pick));
  return md;
}
