/**
 * A fleet for a multi-cluster test: member clusters started cheaply (`startMemberClusters`, a
 * kube-apiserver each), a client per member, and a test namespace of the hub to hold their
 * kubeconfig Secrets, where `kubeconfigSecretProvider` finds them; all stopped and deleted when
 * the test ends.
 */
import { readFileSync } from "node:fs";
import { Secret, type SecretObject } from "../api/index.ts";
import { Client, loadKubeconfig } from "../client/index.ts";
import { type MemberCluster, startMemberClusters } from "../cluster/index.ts";
import { KUBECONFIG_SECRET_LABEL } from "../multicluster/index.ts";
import { type TestScope, testNamespace } from "./namespace.ts";

/** Options of {@link testFleet}. */
export interface TestFleetOptions {
  /** How many member clusters to start, named `member-0`, `member-1`, .... */
  members: number;
  /** Whether each member's kubeconfig Secret is created at once (without labels of its own). Default false. */
  join?: boolean;
}

/** One member cluster of a {@link TestFleet}: its apiserver (to stop and start) and a client of it. */
export interface TestFleetMember {
  /** `member-<i>`: also the name of its kubeconfig Secret, and the cluster's name in the fleet. */
  readonly name: string;
  /** An admin client of the member, closed when the test ends. */
  readonly client: Client;
  /** Its apiserver: `kubeconfigPath`, `kubeconfig`, `stop()`, `start()`. */
  readonly cluster: MemberCluster;
}

/** The members of a test fleet and the hub namespace of their kubeconfig Secrets. */
export interface TestFleet {
  readonly members: readonly TestFleetMember[];
  /** The hub namespace holding the members' kubeconfig Secrets: the provider's `namespace`. */
  readonly namespace: string;
  /** Member `i`, or the member named `name`; throws when there is none. */
  member(which: number | string): TestFleetMember;
  /**
   * Creates the member's kubeconfig Secret in {@link namespace}, labelled for
   * `kubeconfigSecretProvider` and with `labels` besides (what a `clusterSelector` reads).
   */
  join(which: number | string, labels?: Record<string, string>): Promise<void>;
  /** Deletes the member's kubeconfig Secret: the provider reports the cluster removed. */
  leave(which: number | string): Promise<void>;
}

/**
 * Starts `options.members` member clusters (`startMemberClusters`: a kube-apiserver each, on one
 * etcd started for them) and creates a test namespace in the hub for their kubeconfig Secrets; when
 * the test (`t`) ends, closes the member clients, stops the members and deletes the namespace.
 * Point a `kubeconfigSecretProvider` at `fleet.namespace`, and `join` / `leave` to add and remove
 * members.
 *
 * @example
 * ```ts
 * test("a member joining gets the ConfigMap", async (t) => {
 *   const fleet = await testFleet(hub, t, { members: 2 }); // stopped when the test ends
 *   const providers = [kubeconfigSecretProvider({ client: hub, namespace: fleet.namespace })];
 *   const stop = new AbortController();
 *   const running = new Fleet({ name: "settings", providers, setup }).start(stop.signal);
 *   t.after(async () => {
 *     stop.abort();
 *     await running;
 *   });
 *   await fleet.join("member-0", { env: "prod" }); // its kubeconfig Secret, labelled
 *   await eventually(() => fleet.member(0).client.get(ConfigMap, "settings", { namespace: "default" }));
 * });
 * ```
 */
export async function testFleet(hub: Client, t: TestScope, options: TestFleetOptions): Promise<TestFleet> {
  const started = await startMemberClusters({ count: options.members });
  const members: TestFleetMember[] = [];
  t.after(async () => {
    for (const m of members) await m.client.close();
    await started.stop();
  });
  for (const cluster of started.members) {
    const client = new Client(await loadKubeconfig({ kubeconfig: cluster.kubeconfigPath }));
    members.push({ name: cluster.name, client, cluster });
  }
  const namespace = await testNamespace(hub, t);
  const member = (which: number | string): TestFleetMember => {
    const found = typeof which === "number" ? members[which] : members.find((m) => m.name === which);
    if (!found) throw new RangeError(`the test fleet has no member ${which}`);
    return found;
  };
  const fleet: TestFleet = {
    members,
    namespace,
    member,
    join: async (which, labels = {}) => {
      await hub.create(Secret, kubeconfigSecret(member(which), namespace, labels));
    },
    leave: async (which) => {
      await hub.delete(Secret, member(which).name, { namespace });
    },
  };
  if (options.join) for (const m of members) await fleet.join(m.name);
  return fleet;
}

/** Member `m`'s kubeconfig Secret, as `kubeconfigSecretProvider` reads it. */
function kubeconfigSecret(
  m: TestFleetMember,
  namespace: string,
  labels: Record<string, string>,
): SecretObject {
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: m.name, namespace, labels: { ...labels, [KUBECONFIG_SECRET_LABEL]: "true" } },
    stringData: { kubeconfig: readFileSync(m.cluster.kubeconfigPath, "utf8") },
  };
}
