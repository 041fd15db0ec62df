/**
 * Which shard label webhooks a sharded operator serves and generates: one per namespaced kind its
 * controllers reconcile, under the namespace key. They matter only where the apiserver does not
 * shard a kind, which each replica learns at start; served and configured whatever the gate (its
 * state is known per replica, at run time, not when manifests are generated), they cost a
 * webhook call per create where the gate is on.
 */

import type { ControllerHost } from "../controller/index.ts";
import { recordDeclarations } from "../controller/index.ts";
import type { ShardingOptions } from "../shards/index.ts";
import { type AdmissionWebhook, shardLabelWebhook } from "../webhook/index.ts";

/**
 * The shard label webhooks of the controllers `setup` builds, sharded as `sharding` says: none
 * without sharding, nor under the uid key (an object's uid does not exist yet at mutating
 * admission: its shard's holder labels it).
 */
export async function shardLabelWebhooks(
  setup: (host: ControllerHost) => void | Promise<void>,
  sharding: Pick<ShardingOptions, "key"> | false | undefined,
): Promise<AdmissionWebhook[]> {
  if (!sharding || (sharding.key ?? "namespace") !== "namespace") return [];
  const kinds = new Map(
    (await recordDeclarations(setup)).map((d) => [
      `${d.primary.type.apiVersion}/${d.primary.type.kind}`,
      d.primary.type,
    ]),
  );
  return [...kinds.values()].filter((type) => type.namespaced).map(shardLabelWebhook);
}
