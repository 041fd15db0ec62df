/**
 * The live view: the demo's resources as `kubectl get` prints them, plus the latest events,
 * redrawn in place on a terminal and printed on change otherwise (CI logs).
 */
import { type Client, Event, type EventObject, type ResourceType } from "kubeloop";
import { getTable } from "./table.ts";

/** What the view shows. */
export interface ViewSpec {
  client: Client;
  namespace: string;
  kinds: readonly ResourceType[];
}

async function recentEvents(client: Client, namespace: string, count: number): Promise<string[]> {
  const { items } = await client.list(Event, { namespace });
  const when = (e: EventObject) =>
    e.series?.lastObservedTime ?? e.eventTime ?? e.metadata.creationTimestamp ?? "";
  return items
    .sort((a, b) => when(a).localeCompare(when(b)))
    .slice(-count)
    .map((e) => {
      const times = e.series ? ` (x${e.series.count})` : "";
      return `${(e.type ?? "").padEnd(7)} ${(e.reason ?? "").padEnd(18)} ${e.regarding?.kind}/${e.regarding?.name}: ${e.note ?? ""}${times}`;
    });
}

/** One frame of the view, as lines. */
export async function frame(spec: ViewSpec): Promise<string[]> {
  const lines: string[] = [];
  for (const kind of spec.kinds) {
    const table = await getTable(spec.client, kind, spec.namespace).catch((err: Error) => [
      `(${err.message})`,
    ]);
    lines.push(kind.plural, ...table.map((l) => `  ${l}`), "");
  }
  lines.push(
    "Latest events",
    ...(await recentEvents(spec.client, spec.namespace, 8)).map((l) => `  ${l.slice(0, 150)}`),
  );
  return lines;
}

/** Redraws frames until stopped; returns a function that stops it and draws the final frame. */
export function liveView(spec: ViewSpec, out: NodeJS.WriteStream = process.stdout): () => Promise<void> {
  let drawn = 0;
  let previous = "";
  let stopped = false;
  const draw = async () => {
    const text = (await frame(spec).catch((err: Error) => [`(view: ${err.message})`])).join("\n");
    if (text === previous) return;
    previous = text;
    if (out.isTTY) {
      if (drawn) out.write(`\x1b[${drawn}A\x1b[J`);
      out.write(`${text}\n`);
      drawn = text.split("\n").length;
    } else {
      out.write(`\n${text}\n`);
    }
  };
  const loop = (async () => {
    while (!stopped) {
      await draw();
      await new Promise((r) => setTimeout(r, 700));
    }
  })();
  return async () => {
    stopped = true;
    await loop;
    drawn = 0;
  };
}
