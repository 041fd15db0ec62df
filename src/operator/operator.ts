/**
 * An operator, declared once: its name, the kinds it serves, and how it builds its controllers.
 * From that declaration kubeloop runs it (`kubeloop run`, {@link runOperator}), and
 * `kubeloop/generate` derives its CRDs, least-privilege RBAC and deployment manifests
 * (`kubeloop generate`).
 */
import type { KubeObject } from "../api/index.ts";
import type { LoadConfigOptions } from "../client/index.ts";
import { type ControllerHost, type PermissionRequest, recordDeclarations } from "../controller/index.ts";
import {
  createLogger,
  type LeaderElectionOptions,
  Manager,
  type ManagerOptions,
  type Runnable,
  runManager,
} from "../manager/index.ts";
import type { AnyKind } from "../schema/index.ts";
import type { Webhook } from "../webhook/index.ts";
import { shardLabelWebhooks } from "./shard-label-webhooks.ts";

/** What an operator is. */
export interface OperatorDefinition {
  /** Name of the operator: field manager, event source, Lease, Deployment and RBAC names. */
  name: string;
  /** Kinds whose CRDs ship with the operator. */
  kinds: readonly AnyKind[];
  /**
   * Builds the operator's controllers on `host`, e.g. `controller(host).for(Widget)...`: the
   * manager when the operator runs, a host that only records what the controllers declare when
   * `kubeloop generate` derives RBAC. So setup declares controllers and cache indexes, and
   * does nothing else (no requests, no timers).
   */
  setup(host: ControllerHost): void | Promise<void>;
  /**
   * Work the operator runs besides its controllers, e.g. a periodic report: each on the replica
   * that leads (with sharding, the holder of shard 0) unless it says `leaderOnly: false`. Not run
   * by `kubeloop generate`; declare what they read and write in `permissions`.
   */
  runnables?: readonly Runnable[];
  /**
   * Admission and conversion webhooks (`validating`, `defaulting`, `conversion` of
   * `kubeloop/webhook`), served by every replica. `kubeloop generate` writes their Service,
   * webhook configurations and CRD conversion stanzas; a local run applies the configurations
   * itself, with a certificate it makes.
   */
  webhooks?: readonly Webhook[];
  /** Namespace the operator is deployed to. Default: its name. */
  namespace?: string;
  /** Watch and be permitted in only this namespace (Role instead of ClusterRole). */
  watchNamespace?: string;
  /**
   * Permissions beyond what the controllers declare: kinds a reconciler reads through the client,
   * and verbs it sends itself that no helper does (the generated RBAC grants owned kinds only
   * get/list/watch/create/patch), e.g. `{ type: ConfigMap, verbs: ["delete"] }` for a
   * `ctx.client.delete` in a finalizer's cleanup.
   */
  permissions?: readonly PermissionRequest[];
  /**
   * Cluster objects the operator needs besides its CRDs, RBAC and Deployment, e.g. a
   * ValidatingAdmissionPolicy and its binding. Computed from the environment when
   * `kubeloop generate` writes them (`extras.yaml`) and when `kubeloop install` (or
   * `kubeloop run --install-crds`) applies them after the CRDs; the administrator or installer
   * applies them, so the operator's own RBAC grants nothing for them.
   */
  manifests?: () => readonly KubeObject[];
  /** Container image of the operator, for the Deployment. */
  image?: string;
}

/** A declared operator. */
export interface Operator extends Required<Pick<OperatorDefinition, "name" | "kinds" | "setup">> {
  readonly definition: OperatorDefinition;
}

/**
 * Declares an operator.
 *
 * @example
 * ```ts
 * export default defineOperator({
 *   name: "widgets",
 *   kinds: [Widget],
 *   setup: (manager) => void controller(manager).for(Widget).owns(ConfigMap).reconcile(reconcileWidget),
 * });
 * ```
 */
export function defineOperator(definition: OperatorDefinition): Operator {
  return { name: definition.name, kinds: definition.kinds, setup: definition.setup, definition };
}

/** Options of {@link runOperator}. */
export interface RunOptions extends Partial<Omit<ManagerOptions, "name">> {
  /** Where to load cluster credentials from (default: in-cluster, else KUBECONFIG). */
  config?: LoadConfigOptions;
  /**
   * Leader election, on by default as the generated Deployment and RBAC assume (a rolling update
   * runs two pods at once): a Lease named after the operator, in its namespace (`$POD_NAMESPACE`,
   * else the definition's `namespace`, else the operator's name). Options given here override
   * those; `false` turns it off, for local development (`kubeloop run --leader-elect=false`).
   */
  leaderElection?: LeaderElectionOptions | false;
}

/**
 * Runs an operator until SIGTERM/SIGINT: creates a manager (with leader election unless turned
 * off, or sharding instead, and its webhooks, served in the operator's namespace), builds the
 * controllers, adds the runnables, starts it. A failure to start is logged as one error and sets
 * the exit code to 1; the process exits with code 1 when leadership is lost.
 */
export async function runOperator(operator: Operator, options: RunOptions = {}): Promise<void> {
  const logger = options.logger ?? createLogger(operator.name);
  let manager: Manager;
  try {
    manager = await operatorManager(operator, { ...options, logger });
  } catch (err) {
    // One log line (on a terminal, a KubeloopError's message alone), not an unhandled rejection's stack.
    logger.error({ err }, "operator failed to start");
    process.exitCode = 1;
    return;
  }
  await runManager(manager);
}

/**
 * The manager {@link runOperator} runs: created, its controllers set up, its runnables added.
 * Sharded, what `setup` declares is recorded once, for the shard label webhooks and the shards.
 */
export async function operatorManager(operator: Operator, options: RunOptions): Promise<Manager> {
  const declared = options.sharding
    ? await recordDeclarations(operator.setup, options.namespace ?? operator.definition.watchNamespace)
    : undefined;
  const shardLabels = shardLabelWebhooks(operator.definition, options.sharding, declared ?? []);
  const manager = await Manager.create(managerOptionsOf(operator, options, process.env, shardLabels));
  await manager.setup(operator.setup, declared);
  for (const runnable of operator.definition.runnables ?? []) manager.add(runnable);
  return manager;
}

/**
 * The manager options {@link runOperator} uses: `options` over the operator's defaults; the
 * operator's webhooks and `shardLabels` (`shardLabelWebhooks` of a sharded one) served.
 */
export function managerOptionsOf(
  operator: Operator,
  options: RunOptions,
  env: NodeJS.ProcessEnv = process.env,
  shardLabels: readonly Webhook[] = [],
): ManagerOptions {
  const { definition } = operator;
  const leaseNamespace = env.POD_NAMESPACE || definition.namespace || operator.name;
  // Sharded replicas are each elected per shard: no operator-wide leader.
  const leaderElection =
    options.leaderElection === false || options.sharding
      ? false
      : { name: operator.name, namespace: leaseNamespace, ...options.leaderElection };
  const sharding = options.sharding && {
    name: operator.name,
    namespace: leaseNamespace,
    ...options.sharding,
  };
  const served = [...(definition.webhooks ?? []), ...shardLabels];
  const webhooks = served.length
    ? {
        webhooks: served,
        webhookServer: { namespace: leaseNamespace, ...options.webhookServer },
      }
    : {};
  return {
    namespace: definition.watchNamespace,
    permissions: definition.permissions,
    ...options,
    ...webhooks,
    leaderElection,
    sharding,
    name: operator.name,
  };
}
