/**
 * A {@link Description} as text for a person: the object and its kstatus, its conditions'
 * timeline, the tree it owns (and its children in member clusters, under each cluster's name),
 * the fields in conflict, the tree's recent Events, and what could not be searched. Times are UTC (`2026-11-22 04:25:53`). Text from the cluster is printed
 * escaped (`escapeTerminal`): the only escape sequences in the output are its own colours.
 */
import type { KStatus } from "../status/index.ts";
import type { ClusterChildren, DescribedObject, Description } from "./describe.ts";
import type { TimelineEntry, TreeEvent } from "./internal/history.ts";
import { type Cell, type Color, escapeTerminal, paint, type Style, table } from "./internal/text.ts";

/** Options of {@link renderDescription}. */
export interface RenderOptions {
  /** ANSI colours. Default false. */
  color?: boolean;
  /** Status symbols (✓ ✗ …). Default false. */
  symbols?: boolean;
  /** How many of the most recent events to show. Default 30. */
  events?: number;
  /** How many conflicting fields to show per object. Default 10. */
  fieldsPerObject?: number;
}

const kstatusLook: Record<KStatus, { color: Color; symbol: string }> = {
  Current: { color: "green", symbol: "✓" },
  InProgress: { color: "yellow", symbol: "◐" },
  Failed: { color: "red", symbol: "✗" },
  Terminating: { color: "gray", symbol: "⊘" },
};

const conditionLook: Record<string, { color: Color; symbol: string }> = {
  True: { color: "green", symbol: "✓" },
  False: { color: "red", symbol: "✗" },
  Unknown: { color: "yellow", symbol: "?" },
};

/**
 * Renders `description` as text; plain (no colours, no symbols) unless `options` asks.
 *
 * @example
 * ```ts
 * process.stdout.write(renderDescription(description, { color: true, symbols: true }));
 * ```
 */
export function renderDescription(description: Description, options: RenderOptions = {}): string {
  const style: Style = { color: options.color ?? false, symbols: options.symbols ?? false };
  const { object } = description;
  const sections = [
    header(style, object),
    timelineSection(style, description.timeline),
    treeSection(style, object, description.clusters ?? []),
    conflictSection(style, object, options.fieldsPerObject ?? 10),
    eventSection(style, description.events, options.events ?? 30),
    skippedSection(description),
  ];
  return `${sections
    .filter((s) => s.length > 0)
    .map((s) => s.join("\n"))
    .join("\n\n")}\n`;
}

function header(style: Style, object: DescribedObject): string[] {
  const where = object.namespace ? ` in namespace ${object.namespace}` : "";
  const { status, reason, message } = object.kstatus;
  const because = escapeTerminal([reason && `(${reason})`, message].filter(Boolean).join(" "));
  return [
    `${paint(style, escapeTerminal(`${object.kind}/${object.name}`), "bold")}${escapeTerminal(`${where} (${object.apiVersion})`)}`,
    `kstatus: ${kstatusText(style, status)}${because ? `  ${because}` : ""}`,
  ];
}

function kstatusText(style: Style, status: KStatus): string {
  const { text, color } = kstatusCell(style, status);
  return paint(style, text, color);
}

function kstatusCell(style: Style, status: KStatus): { text: string; color: Color } {
  const look = kstatusLook[status];
  return { text: style.symbols ? `${look.symbol} ${status}` : status, color: look.color };
}

/** A condition status (`True`, `False`, `Unknown`), after `label`. */
function statusCell(style: Style, status: string, label = ""): Cell {
  const look = conditionLook[status];
  return { text: `${label}${style.symbols && look ? `${look.symbol} ` : ""}${status}`, color: look?.color };
}

function timelineSection(style: Style, timeline: readonly TimelineEntry[]): string[] {
  if (timeline.length === 0) return ["Conditions: none reported"];
  const rows = timeline.map((t) => [
    { text: timeOf(t.time), color: "gray" as const },
    t.condition,
    t.from ? `${t.from} → ${t.status}` : "",
    statusCell(style, t.status),
    t.reason ?? "",
    [t.count > 1 ? `×${t.count} until ${timeOf(t.lastTime)}` : "", t.current ? "(now)" : "", t.message ?? ""]
      .filter(Boolean)
      .join(" "),
  ]);
  return ["Conditions:", ...table(style, rows)];
}

/** A row of the tree and the rows below it. */
interface TreeNode {
  readonly label: string;
  readonly cells: readonly Cell[];
  readonly children: readonly TreeNode[];
}

/**
 * The object and what it owns, as a tree; with member clusters (`--fleet-namespace`), each
 * cluster under the object, its children under it.
 */
function treeSection(style: Style, object: DescribedObject, clusters: readonly ClusterChildren[]): string[] {
  const owned = flatten(object).length - 1 + clusters.flatMap((c) => c.children.flatMap(flatten)).length;
  if (owned === 0 && clusters.length === 0)
    return ["Owned objects: none (no object has an owner reference to it)"];
  const root = objectNode(style, object);
  const tree = { ...root, children: [...root.children, ...clusters.map((c) => clusterNode(style, c))] };
  const rows: Cell[][] = [];
  const visit = (node: TreeNode, prefix: string, branch: string) => {
    rows.push([`${prefix}${branch}${node.label}`, ...node.cells]);
    const below = prefix + (branch === "├─ " ? "│  " : branch === "└─ " ? "   " : "");
    node.children.forEach((child, i) => {
      visit(child, below, i === node.children.length - 1 ? "└─ " : "├─ ");
    });
  };
  visit(tree, "", "");
  const where = clusters.length > 0 ? `, in this cluster and ${clusters.length} member cluster(s)` : "";
  return [`Owned objects (${owned}${where}):`, ...table(style, rows)];
}

function objectNode(style: Style, node: DescribedObject): TreeNode {
  const children = node.children.map((child) => objectNode(style, child));
  return { label: `${node.kind}/${node.name}`, cells: nodeStatus(style, node), children };
}

/** A member cluster and its children; why one was not read is shown with what was not searched. */
function clusterNode(style: Style, cluster: ClusterChildren): TreeNode {
  const note = cluster.error ? " (not read)" : cluster.children.length === 0 ? " (no children)" : "";
  const children = cluster.children.map((child) => objectNode(style, child));
  return { label: `cluster ${cluster.cluster}${note}`, cells: [], children };
}

/** What could not be searched: kinds that could not be listed, member clusters that could not be read. */
function skippedSection(description: Description): string[] {
  const clusters = (description.clusters ?? []).filter((c) => c.error);
  const lines = [
    ...description.skipped.map((s) => `  ${s.resource}: ${s.reason}`),
    ...clusters.map((c) => `  cluster ${c.cluster}: ${c.error}`),
  ];
  if (lines.length === 0) return [];
  return ["Not searched (children of these kinds may be missing):", ...lines.map(escapeTerminal)];
}

function nodeStatus(style: Style, node: DescribedObject): Cell[] {
  const ready = node.ready
    ? [statusCell(style, node.ready.status, "Ready "), node.ready.reason ?? ""]
    : ["Ready -"];
  return [kstatusCell(style, node.kstatus.status), ...ready];
}

function conflictSection(style: Style, object: DescribedObject, limit: number): string[] {
  const lines = flatten(object).flatMap((node) => {
    if (node.fieldConflicts.length === 0) return [];
    const controller = node.controllerManager ? ` (owner's controller: ${node.controllerManager})` : "";
    const title = escapeTerminal(`  ${node.kind}/${node.name}${controller}`);
    const shown = node.fieldConflicts.slice(0, limit).map((f) => [f.field, f.managers.join(", ")]);
    const more = node.fieldConflicts.length - shown.length;
    return [
      title,
      ...table(style, shown, "    "),
      ...(more > 0 ? [`    … and ${more} more (-o json lists them all)`] : []),
    ];
  });
  return lines.length === 0 ? ["Field owners: no conflicts"] : ["Field owners in conflict:", ...lines];
}

function flatten(object: DescribedObject): DescribedObject[] {
  return [object, ...object.children.flatMap(flatten)];
}

function eventSection(style: Style, events: readonly TreeEvent[], limit: number): string[] {
  if (events.length === 0) return ["Events: none"];
  const shown = events.slice(-limit);
  const earlier = events.length - shown.length;
  const rows = shown.map((e) => [
    { text: timeOf(e.time), color: "gray" as const },
    { text: e.type, color: e.type === "Warning" ? ("red" as const) : undefined },
    `${e.regarding.kind}/${e.regarding.name}`,
    e.reason,
    e.count > 1 ? `(×${e.count})` : "",
    e.note,
  ]);
  const title = earlier > 0 ? `Events (the last ${shown.length} of ${events.length}):` : "Events:";
  return [title, ...table(style, rows)];
}

/** `2026-11-22 04:25:53`, or `unknown time`. */
function timeOf(time: string | undefined): string {
  const ms = time ? Date.parse(time) : Number.NaN;
  return Number.isNaN(ms) ? "unknown time" : new Date(ms).toISOString().slice(0, 19).replace("T", " ");
}
