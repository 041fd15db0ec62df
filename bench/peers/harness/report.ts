/**
 * Turns the medians of the runs (`medians.ts`) into the markdown report (ratios to kubeloop and
 * to the floor, the goals met or missed, the machine) and SVG bar charts, written by hand.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type ContenderName, contenderLabels, contenderNames } from "./contenders.ts";
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

const num = (x: number, digits = 2) =>
  Number.isNaN(x)
    ? "—"
    : x === Number.POSITIVE_INFINITY
      ? "∞"
      : x.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
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

function sizeSection(ms: Medians[], n: number): string {
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
    num(m.streamPerSecond, 0),
  ]);
  return [
    `## N = ${n.toLocaleString("en-US")}`,
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
    "Work arriving during a restart (every Widget present and converged, the operator restarted). Change during restart: new Widgets created 0.5 s after the process starts, each timed from its create to converged; all = every Widget, old and new, reconciled once, from process start. Starvation: spec changes of 100 Widgets streamed from 1 s before the restart; the time from process start until every Widget had been reconciled once (the last low-priority object; ∞ when not within 60 s), and the stream's achieved rate.",
    "",
    table(
      [
        "contender",
        "change p50 / p99 ms",
        "p99 × kubeloop",
        "all reconciled s",
        "starvation: last reconciled s",
        "× kubeloop",
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
  const cpuGoal = n >= 5000 ? 1 : 1.2;
  add(
    `CPU per object ≤ ${num(cpuGoal, 1)} × controller-runtime's`,
    kl.cpuMsPerObject,
    cr?.cpuMsPerObject,
    cpuGoal,
    vsControllerRuntime,
  );
  add(
    "restart, all reconciled, ≤ 1.5 × controller-runtime's",
    kl.restartAllSeconds,
    cr?.restartAllSeconds,
    1.5,
    vsControllerRuntime,
  );
  add(
    "change during restart p99 ≤ controller-runtime's",
    kl.changeP99Ms,
    cr?.changeP99Ms,
    1,
    vsControllerRuntime,
  );
  if (!Number.isNaN(kl.starvationSeconds))
    out.push({
      goal: `N=${n}: starvation: last low-priority object reconciled, bounded`,
      value: `${num(kl.starvationSeconds)} s (controller-runtime ${num(cr?.starvationSeconds ?? Number.NaN)} s; ∞: not within 60 s)`,
      met: Number.isFinite(kl.starvationSeconds),
    });
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
    `- Settings: ${JSON.stringify(r.settings)}.`,
    `- ${r.runs.length} runs in ${num(r.wallSeconds / 60, 1)} min; medians over repetitions. Date ${r.date}.`,
  ];
  return lines.join("\n");
}

// --- SVG --------------------------------------------------------------------------------------

const palette: Record<ContenderName, string> = {
  kubeloop: "#2563eb",
  "controller-runtime": "#16a34a",
  "client-node": "#d97706",
  "dot-i": "#dc2626",
  floor: "#6b7280",
};

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;");

/** A grouped bar chart: one group per N, one bar per contender. */
export function barChart(
  title: string,
  unit: string,
  sizes: number[],
  ms: Medians[],
  pick: (m: Medians) => number,
): string {
  const contenders = contenderNames.filter((c) => ms.some((m) => m.contender === c));
  const values = ms.map(pick).filter((v) => Number.isFinite(v));
  const max = Math.max(1e-9, ...values);
  const barW = 34;
  const gap = 36;
  const groupW = contenders.length * barW + gap;
  const left = 60;
  const top = 50;
  const plotH = 260;
  const width = left + sizes.length * groupW + 20;
  const height = top + plotH + 70 + contenders.length * 18;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="${left}" y="24" font-size="14" font-weight="bold">${esc(title)}</text>`,
    `<text x="${left}" y="40" fill="#555">${esc(unit)} (median; lower is better)</text>`,
    `<line x1="${left}" y1="${top + plotH}" x2="${width - 10}" y2="${top + plotH}" stroke="#333"/>`,
  ];
  for (let t = 0; t <= 4; t++) {
    const y = top + plotH - (plotH * t) / 4;
    parts.push(`<line x1="${left}" y1="${y}" x2="${width - 10}" y2="${y}" stroke="#eee"/>`);
    parts.push(
      `<text x="${left - 6}" y="${y + 4}" text-anchor="end" fill="#555">${esc(num((max * t) / 4, max < 10 ? 1 : 0))}</text>`,
    );
  }
  sizes.forEach((n, g) => {
    const x0 = left + g * groupW + gap / 2;
    parts.push(
      `<text x="${x0 + (contenders.length * barW) / 2}" y="${top + plotH + 18}" text-anchor="middle">N = ${n}</text>`,
    );
    contenders.forEach((c, i) => {
      const m = ms.find((x) => x.contender === c && x.n === n);
      const v = m ? pick(m) : Number.NaN;
      const x = x0 + i * barW;
      if (!Number.isFinite(v)) {
        parts.push(
          `<text x="${x + barW / 2}" y="${top + plotH - 4}" text-anchor="middle" fill="#999">${Number.isNaN(v) ? "—" : "∞"}</text>`,
        );
        return;
      }
      const h = (plotH * v) / max;
      parts.push(
        `<rect x="${x + 2}" y="${top + plotH - h}" width="${barW - 4}" height="${h}" fill="${palette[c]}"><title>${esc(`${c}: ${num(v)}`)}</title></rect>`,
      );
      parts.push(
        `<text x="${x + barW / 2}" y="${top + plotH - h - 3}" text-anchor="middle" font-size="9">${esc(num(v, v < 10 ? 2 : 0))}</text>`,
      );
    });
  });
  contenders.forEach((c, i) => {
    const y = top + plotH + 40 + i * 18;
    parts.push(`<rect x="${left}" y="${y - 10}" width="12" height="12" fill="${palette[c]}"/>`);
    parts.push(`<text x="${left + 18}" y="${y}">${esc(contenderLabels[c])}</text>`);
  });
  parts.push("</svg>");
  return `${parts.join("\n")}\n`;
}

const charts: { file: string; title: string; unit: string; pick: (m: Medians) => number }[] = [
  {
    file: "compare-converge.svg",
    title: "Converge N Widgets created at once",
    unit: "seconds",
    pick: (m) => m.convergeSeconds,
  },
  {
    file: "compare-cpu.svg",
    title: "Operator CPU per object while converging",
    unit: "CPU milliseconds per object",
    pick: (m) => m.cpuMsPerObject,
  },
  {
    file: "compare-update.svg",
    title: "Spec update of every Widget",
    unit: "seconds",
    pick: (m) => m.updateSeconds,
  },
  {
    file: "compare-repair-p99.svg",
    title: "Repair latency after deleting children, p99",
    unit: "milliseconds",
    pick: (m) => m.repairP99Ms,
  },
  {
    file: "compare-restart.svg",
    title: "Restart: every Widget reconciled once",
    unit: "seconds from process start",
    pick: (m) => m.restartAllSeconds,
  },
  {
    file: "compare-rss.svg",
    title: "Peak RSS of the operator (first run)",
    unit: "MiB",
    pick: (m) => m.peakRssMiB,
  },
];

/** Writes compare.json (with medians), results.md and the charts; returns the markdown. */
export function writeReport(report: Report, dir: string): string {
  report.medians = computeMedians(report.runs);
  const all = Object.values(report.medians);
  const sizes = [...new Set(all.map((m) => m.n))].sort((a, b) => a - b);
  const goalRows = sizes.flatMap((n) =>
    goals(
      all.filter((m) => m.n === n),
      n,
    ),
  );
  const notesFile = join(peersDir, "NOTES.md");
  const md = [
    "# kubeloop against its peers",
    "",
    "Generated by `npm run bench` (bench/peers/run.ts). Every contender runs the same Widget operator as its own process, through its own counting proxy, on a fresh local cluster, with 4 workers, no client-side rate limits and a 30 s resync. Ratios are of medians.",
    "",
    machineSection(report),
    "",
    ...sizes.map(
      (n) =>
        `${sizeSection(
          all.filter((m) => m.n === n),
          n,
        )}\n`,
    ),
    "## Goals",
    "",
    table(
      ["goal", "kubeloop", "met"],
      goalRows.map((g) => [g.goal, g.value, g.met ? "yes" : "**no**"]),
    ),
    "",
    ...charts.map((c) => `![${c.title}](${c.file})`),
    "",
    existsSync(notesFile) ? readFileSync(notesFile, "utf8") : "",
  ].join("\n");
  writeFileSync(join(dir, "results.md"), md);
  for (const c of charts) writeFileSync(join(dir, c.file), barChart(c.title, c.unit, sizes, all, c.pick));
  writeFileSync(join(dir, "compare.json"), `${JSON.stringify(report, null, 2)}\n`);
  return md;
}
