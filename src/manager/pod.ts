/** The replica's pod, as the downward API describes it to the process (the generated Deployment sets `POD_NAME`, `POD_UID`, `POD_NAMESPACE`). */
import type { ReplicaPod } from "../shards/index.ts";

/** `$POD_NAME_$POD_UID` when both are set (the generated Deployment sets them), else undefined. */
export function podIdentity(): string | undefined {
  const { POD_NAME, POD_UID } = process.env;
  return POD_NAME && POD_UID ? `${POD_NAME}_${POD_UID}` : undefined;
}

/**
 * The replica's pod (`POD_NAME`, `POD_UID`; the generated Deployment sets them) when it runs in
 * `namespace` (`POD_NAMESPACE`): a namespaced owner must share its dependent's namespace, or
 * garbage collection takes it for gone and deletes the dependent at once.
 */
export function podIn(namespace: string): ReplicaPod | undefined {
  const { POD_NAME, POD_UID, POD_NAMESPACE } = process.env;
  return POD_NAME && POD_UID && POD_NAMESPACE === namespace ? { name: POD_NAME, uid: POD_UID } : undefined;
}
