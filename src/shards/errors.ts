/** Errors a user of a sharded manager can cause. */
import type { ResourceType } from "../api/index.ts";
import { KubeloopError } from "../errors/index.ts";

/**
 * A cached read, on a manager sharded by namespace, of a namespace outside the reading shard's,
 * of a kind the shard caches for its own namespaces only, with no informer holding that namespace
 * whole. Answering "not found" would hide an object that exists. Code `KL_OUTSIDE_SHARD_READ`.
 */
export class OutsideShardReadError extends KubeloopError {
  constructor(type: ResourceType, namespace: string) {
    super(
      "KL_OUTSIDE_SHARD_READ",
      `a cached read of ${type.kind} in namespace "${namespace}" from a shard that does not hold that namespace: ` +
        `sharded by namespace, a shard caches the ${type.kind} its controllers declare for its own namespaces only; ` +
        `declare the input on the controller that reads it with .watches(${type.kind}, map, { scope: { namespace: "${namespace}" } }) ` +
        "(an informer of one namespace is cached whole on every shard), read it live with ctx.client.get, " +
        'or shard by uid (sharding: { key: "uid" })',
    );
  }
}
