/**
 * The report's SVG bar charts, written by hand: one group per N, one bar per contender, for the
 * figures {@link charts} names.
 */
import { type ContenderName, contenderLabels, contenderNames } from "./contenders.ts";
import type { Medians } from "./medians.ts";

/** A figure as the report prints it: "—" when missing, "∞" past its cap, else `digits` decimals. */
export const num = (x: number, digits = 2) =>
  Number.isNaN(x)
    ? "—"
    : x === Number.POSITIVE_INFINITY
      ? "∞"
      : x.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });

const palette: Record<ContenderName, string> = {
  kubeloop: "#2563eb",
  "kubeloop-own-writes-off": "#93c5fd",
  "kubeloop-unbundled": "#1e3a8a",
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

export const charts: { file: string; title: string; unit: string; pick: (m: Medians) => number }[] = [
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
