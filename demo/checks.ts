/**
 * The demo's expectations: each names what should hold and how to see it, and is polled with a
 * deadline. `npm start -- --once` exits 0 only if every one held.
 */
import { type Client, ConfigMap, Event, type KubeObject, type ResourceType } from "kubeloop";
import type { ConditionStatus } from "kubeloop/status";

/** One expectation and its outcome. */
export interface Expectation {
  description: string;
  /** Resolves to a short observation when it holds, or undefined when not (yet). */
  check: () => Promise<string | undefined>;
}

/** The outcome of one expectation. */
export interface Outcome {
  description: string;
  held: boolean;
  detail: string;
  seconds: number;
}

type Conditioned = KubeObject & {
  status?: { conditions?: readonly { type: string; status: ConditionStatus; reason: string }[] };
};

/** The condition `type` of an object, if present. */
export function condition(obj: Conditioned | undefined, type: string) {
  return obj?.status?.conditions?.find((c) => c.type === type);
}

/** Polls an expectation until it holds or `timeoutMs` passes. */
export async function verify(expectation: Expectation, timeoutMs: number): Promise<Outcome> {
  const started = Date.now();
  let last = "not observed";
  for (;;) {
    const seen = await expectation.check().catch((err: Error) => {
      last = err.message;
      return undefined;
    });
    const seconds = (Date.now() - started) / 1000;
    if (seen !== undefined)
      return { description: expectation.description, held: true, detail: seen, seconds };
    if (Date.now() - started > timeoutMs)
      return { description: expectation.description, held: false, detail: last, seconds };
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** Lists the objects of a kind in a namespace. */
export async function list<T extends KubeObject>(
  client: Client,
  type: ResourceType<T>,
  namespace: string,
): Promise<T[]> {
  return (await client.list(type, { namespace })).items;
}

/** The first Warning event with `reason` whose note contains `text`, as a one-line description. */
export async function warningEvent(
  client: Client,
  namespace: string,
  reason: string,
  text: string,
): Promise<string | undefined> {
  const { items } = await client.list(Event, { namespace });
  const found = items.find((e) => e.type === "Warning" && e.reason === reason && e.note?.includes(text));
  return found
    ? `event ${found.reason} on ${found.regarding?.kind}/${found.regarding?.name}: ${found.note}`
    : undefined;
}

/** The data of a ConfigMap, or undefined when it does not exist. */
export async function configMapData(
  client: Client,
  namespace: string,
  name: string,
): Promise<Record<string, string> | undefined> {
  return (await client.list(ConfigMap, { namespace, fieldSelector: `metadata.name=${name}` })).items[0]?.data;
}
