/**
 * The live page itself: plain HTML, CSS and JavaScript written here as source, served as one
 * document with nothing to fetch but its JSON (no CDN, no build step). The script polls
 * `<page path>/state.json` every 1.5 s while the tab is visible, one request at a time,
 * and redraws from the answer with `textContent` only (object names never become markup). Rates
 * and latencies are differences between two polls of the cumulative counts, kept for the last 60
 * polls per controller to draw inline SVG sparklines; nothing else accumulates.
 */

/** The page's script (its CSP hash is taken from this exact text). */
export const livePageScript = `
"use strict";
const POLL_MS = 1500;
const POINTS = 60;
const history = new Map();
const $ = (id) => document.getElementById(id);

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) node.setAttribute(name, value);
  for (const child of children) node.append(child instanceof Node ? child : String(child));
  return node;
}

function table(headers, rows) {
  const head = el("tr", {}, ...headers.map((h) => el("th", {}, h)));
  return el("table", {}, el("thead", {}, head), el("tbody", {}, ...rows));
}

function replace(id, ...children) {
  $(id).replaceChildren(...children);
}

const priorityName = (p) => (p === "0" || p === 0 ? "normal" : p === "-100" || p === -100 ? "low" : "p" + p);
const ms = (seconds) => (seconds < 1 ? (seconds * 1000).toFixed(1) + " ms" : seconds.toFixed(2) + " s");
const ago = (now, at) => Math.max(0, (now - at) / 1000).toFixed(1) + " s ago";
const total = (counts) => Object.values(counts).reduce((a, b) => a + b, 0);

/** Keeps this poll's counts of controller c (of cluster "where"), and returns the rate (per second) and mean latency (seconds) of each interval. */
function remember(state, c, where) {
  const points = history.get(where + "/" + c.name) || [];
  points.push({ time: state.time, count: total(c.reconciles.byResult), seconds: c.reconciles.seconds });
  if (points.length > POINTS + 1) points.shift();
  history.set(where + "/" + c.name, points);
  const rate = [];
  const latency = [];
  for (let i = 1; i < points.length; i++) {
    const [a, b] = [points[i - 1], points[i]];
    const count = b.count - a.count;
    rate.push(b.time > a.time ? (count * 1000) / (b.time - a.time) : 0);
    latency.push(count > 0 ? (b.seconds - a.seconds) / count : null);
  }
  return { rate, latency };
}

function sparkline(values, label, format) {
  const svgNs = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(svgNs, "svg");
  svg.setAttribute("viewBox", "0 0 120 24");
  svg.setAttribute("class", "spark");
  svg.setAttribute("role", "img");
  const known = values.filter((v) => v !== null);
  const top = Math.max(...known, 0) || 1;
  const points = values
    .map((v, i) => (v === null ? null : [(i * 120) / Math.max(values.length - 1, 1), 23 - (v / top) * 22]))
    .filter(Boolean)
    .map(([x, y]) => x.toFixed(1) + "," + y.toFixed(1));
  const line = document.createElementNS(svgNs, "polyline");
  line.setAttribute("points", points.join(" "));
  svg.append(line);
  const last = known.length ? known[known.length - 1] : null;
  svg.setAttribute("aria-label", label);
  return el("span", { class: "metric" }, label + " ", svg, " ", last === null ? "–" : format(last));
}

function depthText(depth) {
  const parts = Object.entries(depth).map(([p, n]) => priorityName(p) + " " + n);
  return parts.length ? parts.join(" · ") : "empty";
}

function reconcileRow(state, r) {
  const triggers = r.triggers.map((t) => t.reason + (t.count > 1 ? " ×" + t.count : "")).join(", ");
  return el(
    "tr",
    { class: "result-" + r.result, "data-key": r.key },
    el("td", {}, ago(state.time, r.startedAt + r.seconds * 1000)),
    el("td", { class: "mono" }, r.key),
    el("td", { class: "mono trigger" }, triggers),
    el("td", {}, priorityName(r.priority)),
    el("td", {}, ms(Math.max(0, r.startedAt - r.queuedAt) / 1000)),
    el("td", {}, ms(r.seconds)),
    el("td", {}, r.result),
    el("td", { class: "error" }, r.error || ""),
  );
}

function controllerCard(state, c, where) {
  const { rate, latency } = remember(state, c, where);
  const errors = c.reconciles.byResult.error || 0;
  const summary = el(
    "div",
    { class: "summary" },
    el("span", {}, "queue: ", el("b", { class: "depth" }, depthText(c.depth))),
    el("span", {}, "running: " + c.active),
    el("span", {}, "reconciles: " + total(c.reconciles.byResult) + (errors ? " (" + errors + " errors)" : "")),
    sparkline(rate, "rate", (v) => v.toFixed(1) + "/s"),
    sparkline(latency, "latency", ms),
  );
  if (c.deadWorkers) summary.append(el("span", { class: "bad" }, c.deadWorkers + " dead workers"));
  const headers = ["finished", "key", "trigger", "priority", "queued", "took", "result", "error"];
  const recent = c.recent.length
    ? table(headers, c.recent.map((r) => reconcileRow(state, r)))
    : el("p", { class: "quiet" }, "no reconcile yet");
  return el("section", { class: "card", "data-controller": c.name }, el("h3", {}, c.name, el("small", {}, c.kind)), summary, recent);
}

function informerRow(i) {
  const scope = [i.namespace ? "ns " + i.namespace : "all namespaces", i.labelSelector, i.fieldSelector].filter(Boolean);
  const diverged = Object.entries(i.divergence).map(([change, n]) => change + " " + n).join(", ");
  return el(
    "tr",
    { class: "state-" + i.state },
    el("td", { class: "mono" }, i.kind),
    el("td", { class: "scope" }, scope.join(", ")),
    el("td", {}, i.state),
    el("td", {}, i.objects),
    el("td", {}, i.restarts),
    el("td", {}, diverged || "none"),
    el("td", { class: "error" }, i.lastError || ""),
  );
}

function leadershipText(l) {
  const shards = l.shards ? "; shards " + (l.shards.held.join(",") || "none") + " of " + l.shards.total : "";
  if (l.mode === "single") return "no election: reconciling everything";
  const role = l.leading ? "leading" : "following" + (l.leader ? " " + l.leader : "");
  return l.mode + ": " + role + (l.identity ? " as " + l.identity : "") + shards;
}

/** The controllers, informers and drift repairs of one manager (the page's own, or an engaged cluster's, "where"). */
function managerParts(state, m, where) {
  const informerHeaders = ["kind", "scope", "state", "objects", "restarts", "relist divergence", "last error"];
  const drift = m.drift.map((d) => el("tr", {}, el("td", { class: "mono" }, d.kind), el("td", { class: "mono culprit" }, d.culprit), el("td", {}, d.repairs)));
  return {
    controllers: el("div", { class: "controllers" }, ...m.controllers.map((c) => controllerCard(state, c, where))),
    informers: table(informerHeaders, m.informers.map(informerRow)),
    drift: drift.length ? table(["kind", "changed by", "repairs"], drift) : el("p", { class: "quiet" }, "no drift repaired"),
  };
}

function clusterSection(state, c) {
  const status = c.engaged ? (c.synced ? "engaged" : "engaged, caches syncing") : "not engaged: " + c.reason;
  const head = el("h2", { class: "cluster-name" }, "Cluster " + c.name, el("small", { class: c.engaged && c.synced ? "good" : "bad" }, status));
  if (!c.manager) return el("section", { class: "cluster", "data-cluster": c.name }, head);
  const parts = managerParts(state, c.manager, c.name);
  return el("section", { class: "cluster", "data-cluster": c.name }, head,
    el("h3", {}, "Controllers"), parts.controllers, el("h3", {}, "Informers"), parts.informers, el("h3", {}, "Drift repairs"), parts.drift);
}

function render(state) {
  document.title = state.name + " · kubeloop";
  replace("name", state.name);
  replace("ready", state.ready ? "ready" : "caches syncing");
  $("ready").className = state.ready ? "good" : "bad";
  replace("leadership", leadershipText(state.leadership));
  const own = managerParts(state, state, "");
  replace("controllers", own.controllers);
  replace("informers", own.informers);
  replace("drift", own.drift);
  $("fleet").hidden = !state.clusters;
  replace("clusters", ...(state.clusters || []).map((c) => clusterSection(state, c)));
}

let timer = 0;
let polling = false;

async function poll() {
  if (polling) return;
  polling = true;
  clearTimeout(timer);
  try {
    const answer = await fetch(location.pathname.replace(/[/]$/, "") + "/state.json", { cache: "no-store" });
    if (!answer.ok) throw new Error("HTTP " + answer.status);
    render(await answer.json());
    replace("status", "updated " + new Date().toLocaleTimeString());
    $("status").className = "quiet";
  } catch (err) {
    replace("status", "not updating: " + err.message);
    $("status").className = "bad";
  } finally {
    polling = false;
  }
  if (!document.hidden) timer = setTimeout(poll, POLL_MS);
}

document.addEventListener("visibilitychange", () => {
  if (!document.hidden) poll();
});
poll();
`;

const style = `
body { font: 13px/1.4 system-ui, sans-serif; margin: 0; color: #1d2430; background: #f5f6f8; }
header { display: flex; gap: 16px; align-items: baseline; padding: 10px 16px; background: #1d2430; color: #fff; }
header h1 { font-size: 16px; margin: 0; }
main { padding: 8px 16px; }
h2 { font-size: 14px; margin: 16px 0 6px; }
h3 { font-size: 14px; margin: 0 0 6px; } h3 small { font-weight: normal; color: #667; margin-left: 8px; }
.cluster { border-left: 3px solid #2f6fdb; padding-left: 10px; margin: 12px 0; } .cluster h2 small { font-weight: normal; margin-left: 8px; }
.card { background: #fff; border: 1px solid #dde; border-radius: 6px; padding: 8px 10px; margin-bottom: 10px; }
.summary { display: flex; flex-wrap: wrap; gap: 18px; align-items: center; margin-bottom: 6px; }
table { border-collapse: collapse; width: 100%; background: #fff; }
th, td { text-align: left; padding: 2px 8px; border-bottom: 1px solid #eef; vertical-align: top; white-space: nowrap; }
td.trigger, td.error, td.scope { white-space: normal; }
th { font-weight: 600; color: #556; }
.mono { font-family: ui-monospace, monospace; font-size: 12px; }
.spark { width: 120px; height: 24px; vertical-align: middle; }
.spark polyline { fill: none; stroke: #2f6fdb; stroke-width: 1.5; }
.metric { white-space: nowrap; }
.result-error td, .error, .bad, .state-failing td, .state-stopped td { color: #b3261e; }
.good { color: #2e7d32; } header .good { color: #8fd694; } header .bad { color: #ff9a8f; }
.quiet { color: #889; } header .quiet { color: #aab; }
`;

/** The page. */
export const livePageHtml = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>kubeloop</title>
<style>${style}</style>
</head>
<body>
<noscript><p>This page draws with JavaScript. Its data is JSON at <a href="kubeloop/state.json">/debug/kubeloop/state.json</a>
(<code>curl http://127.0.0.1:&lt;health port&gt;/debug/kubeloop/state.json</code>).</p></noscript>
<header><h1 id="name">kubeloop</h1><span id="ready"></span><span id="leadership"></span><span id="status" class="quiet">loading</span></header>
<main>
<h2>Controllers</h2><div id="controllers"></div>
<h2>Informers</h2><div id="informers"></div>
<h2>Drift repairs</h2><div id="drift"></div>
<div id="fleet" hidden><h2>Fleet</h2><div id="clusters"></div></div>
</main>
<script>${livePageScript}</script>
</body>
</html>
`;
