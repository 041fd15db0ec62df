/**
 * Which shard label webhooks a sharded operator serves and generates: one per namespaced kind its
 * controllers reconcile, under the namespace key. They matter only where the apiserver does not
 * shard a kind, which each replica learns at start; served and configured whatever the gate (its
 * state is known per replica, at run time, not when manifests are generated), they cost a
 * webhook call per create where the gate is on.
 */

import type { ControllerDeclaration } from "../controller/index.ts";
import type { ShardingOptions } from "../shards/index.ts";
import { type AdmissionWebhook, shardLabelWebhook } from "../webhook/index.ts";
import type { OperatorDefinition } from "./operator.ts";

/**
 * The shard label webhooks of the operator `definition` describes, whose controllers `declared`
 * (`recordDeclarations` of its setup), sharded as `sharding` says:
 * none without sharding, nor under the uid key (an object's uid does not exist yet at mutating
 * admission: its shard's holder labels it), nor for an operator that serves no webhook of its own
 * — the label alone is not worth the serving certificate (cert-manager, by default) and the
 * webhook configurations such an operator never needed; its shards' holders label its objects.
 */
export function shardLabelWebhooks(
  definition: Pick<OperatorDefinition, "webhooks">,
  sharding: Pick<ShardingOptions, "key"> | false | undefined,
  declared: readonly ControllerDeclaration[],
): AdmissionWebhook[] {
  if (!sharding || (sharding.key ?? "namespace") !== "namespace") return [];
  if (!definition.webhooks?.length) return [];
  const kinds = new Map(
    declared.map((d) => [`${d.primary.type.apiVersion}/${d.primary.type.kind}`, d.primary.type]),
  );
  return [...kinds.values()].filter((type) => type.namespaced).map(shardLabelWebhook);
}
