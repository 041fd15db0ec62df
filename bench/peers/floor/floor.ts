/**
 * The floor: no framework, raw undici on one keep-alive pool, the fewest requests that keep
 * Widgets converged, with the same 4 workers. It lists Widgets and ConfigMaps once, watches both,
 * and for each Widget that needs it issues only: create the ConfigMap (or merge-patch its data when
 * the spec changed) and merge-patch the status; a deleted ConfigMap costs one create. It keeps the
 * latest objects it saw in maps (the least any controller must remember) and takes no care over
 * what a real controller must (conflicts, retries, resync, relists): it shows what the apiserver
 * allows, not a usable operator.
 */
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { Pool } from "undici";
import { parse } from "yaml";
import { ready, reconcileDone, reconcileStarted, settings } from "../shared/markers.ts";
import {
  configMapName,
  converged,
  dataMatches,
  desiredConfigMap,
  GROUP,
  KIND,
  PLURAL,
  readyStatus,
  statusCurrent,
  VERSION,
  type WidgetLike,
} from "../shared/widget.ts";

interface ConfigMapLike {
  metadata: {
    name?: string;
    namespace?: string;
    ownerReferences?: { kind: string; name: string; uid: string; controller?: boolean }[];
  };
  data?: Record<string, string>;
}

function credentials(path: string) {
  // biome-ignore lint/suspicious/noExplicitAny: a kubeconfig is loosely typed
  const doc = parse(readFileSync(path, "utf8")) as any;
  const ctx = doc.contexts.find((c: { name: string }) => c.name === doc["current-context"])?.context;
  const cluster = doc.clusters.find((c: { name: string }) => c.name === ctx.cluster).cluster;
  const user = doc.users.find((u: { name: string }) => u.name === ctx.user).user;
  const pem = (entry: Record<string, string>, field: string) =>
    entry[`${field}-data`]
      ? Buffer.from(entry[`${field}-data`] as string, "base64").toString()
      : readFileSync(resolve(dirname(path), entry[field] as string), "utf8");
  return {
    server: cluster.server as string,
    ca: pem(cluster, "certificate-authority"),
    cert: pem(user, "client-certificate"),
    key: pem(user, "client-key"),
  };
}

const creds = credentials(process.env.KUBECONFIG ?? "");
const pool = new Pool(creds.server, {
  connect: { ca: creds.ca, cert: creds.cert, key: creds.key, servername: "localhost" },
  connections: settings.workers + 2,
  pipelining: 1,
});

async function call(method: string, path: string, body?: unknown, contentType = "application/json") {
  const res = await pool.request({
    method: method as "GET",
    path,
    headers:
      body === undefined
        ? { accept: "application/json" }
        : { "content-type": contentType, accept: "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`${method} ${path}: ${res.statusCode} ${text.slice(0, 200)}`);
  return JSON.parse(text);
}

const widgetsPath = `/apis/${GROUP}/${VERSION}/${PLURAL}`;
const widgets = new Map<string, WidgetLike>();
const configMaps = new Map<string, ConfigMapLike>();
const key = (ns: string | undefined, name: string | undefined) => `${ns}/${name}`;

async function reconcile(k: string): Promise<void> {
  reconcileStarted();
  const w = widgets.get(k);
  if (!w) return;
  const ns = w.metadata.namespace ?? "";
  const cmName = configMapName(w.metadata.name ?? "");
  const cm = configMaps.get(key(ns, cmName));
  if (!cm) await call("POST", `/api/v1/namespaces/${ns}/configmaps`, desiredConfigMap(w));
  else if (!dataMatches(w, cm.data))
    await call(
      "PATCH",
      `/api/v1/namespaces/${ns}/configmaps/${cmName}`,
      { data: desiredConfigMap(w).data },
      "application/merge-patch+json",
    );
  if (!statusCurrent(w))
    await call(
      "PATCH",
      `${widgetsPath.replace(`/${PLURAL}`, `/namespaces/${ns}/${PLURAL}`)}/${w.metadata.name}/status`,
      { status: readyStatus(w) },
      "application/merge-patch+json",
    );
  reconcileDone(k);
}

// The same 4 workers, deduplicated keys (the floor still cannot write one object twice at once).
const pending: string[] = [];
const queued = new Set<string>();
const idle: (() => void)[] = [];
function enqueue(k: string) {
  if (queued.has(k)) return;
  queued.add(k);
  pending.push(k);
  idle.shift()?.();
}
async function worker() {
  for (;;) {
    const k = pending.shift();
    if (k === undefined) {
      await new Promise<void>((r) => idle.push(r));
      continue;
    }
    queued.delete(k);
    await reconcile(k).catch((err) => console.error(`floor: ${(err as Error).message}`));
  }
}

function onWidget(type: string, w: WidgetLike) {
  const k = key(w.metadata.namespace, w.metadata.name);
  if (type === "DELETED") return void widgets.delete(k);
  widgets.set(k, w);
  if (type === "ADDED" || w.status?.observedGeneration !== w.metadata.generation) enqueue(k);
}

function onConfigMap(type: string, cm: ConfigMapLike) {
  const k = key(cm.metadata.namespace, cm.metadata.name);
  if (type !== "DELETED") return void configMaps.set(k, cm);
  configMaps.delete(k);
  const owner = cm.metadata.ownerReferences?.find((r) => r.controller && r.kind === KIND);
  if (owner && widgets.has(key(cm.metadata.namespace, owner.name)))
    enqueue(key(cm.metadata.namespace, owner.name));
}

/**
 * Watches `path` from `rv` for as long as the process lives: a watch that ends is resumed from the
 * last resourceVersion seen (bookmarks included); an expired one (410) is replaced by a fresh LIST,
 * whose items are handled as MODIFIED, and a watch from there.
 */
async function watch<T>(path: string, rv: string, handle: (type: string, obj: T) => void): Promise<void> {
  let last = rv;
  const open = async () => {
    const res = await pool.request({
      method: "GET",
      path: `${path}?watch=1&allowWatchBookmarks=true&resourceVersion=${last}&timeoutSeconds=3600`,
      headers: { accept: "application/json" },
      bodyTimeout: 0,
    });
    return res.body;
  };
  let body = await open();
  void (async () => {
    for (;;) {
      let buffered = "";
      let expired = false;
      try {
        for await (const chunk of body) {
          buffered += chunk.toString();
          let nl = buffered.indexOf("\n");
          while (nl >= 0) {
            const line = buffered.slice(0, nl);
            buffered = buffered.slice(nl + 1);
            nl = buffered.indexOf("\n");
            if (!line) continue;
            const event = JSON.parse(line) as { type: string; object: T };
            if (event.type === "ERROR") expired = true;
            else {
              last =
                (event.object as { metadata?: { resourceVersion?: string } }).metadata?.resourceVersion ??
                last;
              if (event.type !== "BOOKMARK") handle(event.type, event.object);
            }
          }
        }
      } catch (err) {
        console.error(`floor: watch ${path} failed: ${(err as Error).message}`);
      }
      console.error(`floor: watch ${path} ended${expired ? " (expired: relisting)" : ""}; resuming`);
      try {
        if (expired) {
          const list = await call("GET", path);
          for (const item of list.items as T[]) handle("MODIFIED", item);
          last = list.metadata.resourceVersion;
        }
        body = await open();
      } catch (err) {
        console.error(`floor: cannot resume watch ${path}: ${(err as Error).message}`);
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  })();
}

const [widgetList, cmList] = await Promise.all([call("GET", widgetsPath), call("GET", "/api/v1/configmaps")]);
for (const cm of cmList.items) configMaps.set(key(cm.metadata.namespace, cm.metadata.name), cm);
for (const w of widgetList.items as WidgetLike[]) {
  const k = key(w.metadata.namespace, w.metadata.name);
  widgets.set(k, w);
  reconcileStarted();
  if (converged(w, configMaps.get(key(w.metadata.namespace, configMapName(w.metadata.name ?? ""))) as never))
    reconcileDone(k);
  else enqueue(k);
}
await watch(widgetsPath, widgetList.metadata.resourceVersion, onWidget);
await watch("/api/v1/configmaps", cmList.metadata.resourceVersion, onConfigMap);
for (let i = 0; i < settings.workers; i++) void worker();
ready();
