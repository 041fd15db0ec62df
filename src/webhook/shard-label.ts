/**
 * The mutating webhook that gives a sharded kind's objects their shard label at creation, where the
 * apiserver does not shard lists and watches (feature gate `ShardedListAndWatch` off): each
 * replica then receives a new object through its shards' label selector only, never through the
 * watch of unlabelled objects every replica keeps.
 */
import type { ResourceType } from "../api/index.ts";
import { hashBucket, SHARD_LABEL, shardHash } from "../sharding/index.ts";
import { type AdmissionWebhook, nameFor, pathFor } from "./admission.ts";
import { type Json, jsonPatch } from "./internal/json-patch.ts";

/**
 * A webhook of `kind`, sharded by namespace, that sets `kubeloop.dev/shard` to the bucket of the
 * namespace's hash on CREATE (a uid, the other shard key, is given by the apiserver after mutating
 * admission, so objects sharded by uid are labelled by their shard's holder alone). Failure
 * tolerant: `failurePolicy: Ignore` and a 3 s timeout, so that a webhook down or slow never blocks
 * a create; an object it missed is labelled by the holder of its shard, which labels every
 * unlabelled object of its shard (the backstop).
 */
export function shardLabelWebhook(kind: ResourceType): AdmissionWebhook {
  return Object.freeze({
    type: "mutating",
    name: nameFor("s", kind),
    path: pathFor("shard-label", kind),
    resource: kind,
    sideEffects: "None",
    timeoutSeconds: 3,
    match: { failurePolicy: "Ignore", operations: ["CREATE"] },
    admit: async (request) => {
      const obj = request.object as { metadata?: { labels?: Record<string, string> } } | undefined;
      const namespace = request.namespace ?? "";
      if (!obj || request.operation !== "CREATE" || !namespace) return { allowed: true };
      const bucket = String(hashBucket(shardHash(namespace)));
      const labelled = {
        ...obj,
        metadata: { ...obj.metadata, labels: { ...obj.metadata?.labels, [SHARD_LABEL]: bucket } },
      };
      const patch = jsonPatch(obj as Json, labelled as Json);
      if (patch.length === 0) return { allowed: true };
      return {
        allowed: true,
        patchType: "JSONPatch",
        patch: Buffer.from(JSON.stringify(patch)).toString("base64"),
      };
    },
  } satisfies AdmissionWebhook);
}
