/** The examples of docs/finalizers.md. */
import {
  Action,
  ConfigMap,
  controller,
  defineKind,
  defineOperator,
  type ObjectOf,
  type ReconcileContext,
  withFinalizer,
  z,
} from "kubeloop";

const Domain = defineKind({
  group: "dns.example.com",
  version: "v1",
  kind: "Domain",
  scope: "Namespaced",
  spec: z.object({ hostname: z.string().min(1), address: z.string().min(1) }),
});
type DomainObject = ObjectOf<typeof Domain>;

/** A DNS provider's API, outside the cluster. */
interface DnsClient {
  upsertRecord(hostname: string, address: string): Promise<void>;
  /** Resolves when the record is gone, also when there was none. */
  deleteRecord(hostname: string): Promise<void>;
}
declare const dns: DnsClient;

// #region finalizers-reconcile
const FINALIZER = "dns.example.com/record";

export async function reconcileDomain(ctx: ReconcileContext<DomainObject>): Promise<Action | undefined> {
  const domain = ctx.object;
  if (!domain) return undefined; // gone: the cleanup already ran
  return withFinalizer(
    ctx.client,
    Domain,
    domain,
    FINALIZER,
    async (event) => {
      const { hostname, address } = event.object.spec;
      if (event.type === "cleanup") {
        await dns.deleteRecord(hostname); // idempotent: it may run twice
        ctx.recorder.normal(event.object, "RecordDeleted", "Finalize", `deleted the record of ${hostname}`);
        return undefined;
      }
      await dns.upsertRecord(hostname, address);
      return Action.requeueAfter(10 * 60_000); // nothing watches the provider: look again
    },
    { recorder: ctx.recorder },
  );
}
// #endregion

// #region finalizers-permissions
export default defineOperator({
  name: "domains",
  kinds: [Domain],
  // The cleanup deletes ConfigMaps through ctx.client: generated RBAC grants owned kinds no delete.
  permissions: [{ type: ConfigMap, verbs: ["delete"] }],
  setup: (manager) => void controller(manager).for(Domain).reconcile(reconcileDomain),
});
// #endregion
