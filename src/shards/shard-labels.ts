/**
 * The shard label put on objects where the apiserver does not shard their kind: a shard's holder
 * labels the unlabelled objects of its shard `kubeloop.dev/shard: <their hash bucket>` (the
 * backstop of the operator's mutating webhook, which labels them at creation), after which every
 * replica watches them by that label (`kubeloop.dev/shard in (…)`), a selector any apiserver
 * applies. The label is a function of the object alone, so it never changes when the shard moves
 * or the shard count changes: the replicas' selectors do.
 */
import { type KubeObject, keyOf, type ResourceType } from "../api/index.ts";
import type { Informer } from "../cache/index.ts";
import { type Client, NotFoundError } from "../client/index.ts";
import { SHARD_LABEL } from "./placement.ts";

/**
 * The merge patch that sets the shard label to `value` and nothing else: no resourceVersion, so it
 * never conflicts with a controller's write, and two replicas setting the same value agree.
 */
export function shardLabelPatch(value: string): { metadata: { labels: Record<string, string> } } {
  return { metadata: { labels: { [SHARD_LABEL]: value } } };
}

/**
 * Labels every object `informer` adds or updates with the shard label `labelOf(obj)` where it does
 * not carry it yet, one patch per object at a time; returns what stops it. The key of each object
 * is in `moving` from before its patch is sent until the patch fails: its leaving the unlabelled
 * watch is then a move, not a deletion (`joinInformers`). A patch of an object gone meanwhile is
 * nothing to report; any other failure goes to `onError` (the object stays unlabelled, still seen
 * by the shard through its watch of unlabelled objects, and is labelled again at its next change
 * or relist).
 */
export function labelShardObjects(
  client: Pick<Client, "patch">,
  type: ResourceType,
  informer: Informer<KubeObject>,
  labelOf: (obj: KubeObject) => string,
  moving: Set<string>,
  onError: (err: unknown, obj: KubeObject) => void,
): () => void {
  const patching = new Set<string>();
  const label = (obj: KubeObject) => {
    const key = keyOf(obj);
    const value = labelOf(obj);
    if (obj.metadata.labels?.[SHARD_LABEL] === value || patching.has(key)) return;
    patching.add(key);
    moving.add(key);
    const { name = "", namespace } = obj.metadata;
    client
      .patch(type, name, shardLabelPatch(value), { type: "merge", namespace })
      .catch((err: unknown) => {
        moving.delete(key);
        if (!(err instanceof NotFoundError)) onError(err, obj);
      })
      .finally(() => patching.delete(key));
  };
  return informer.addHandler({ onAdd: label, onUpdate: (_, obj) => label(obj) });
}
