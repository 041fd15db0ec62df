/**
 * The MyProxy controller, level-triggered: it reads the routes that reference the MyProxy and the
 * Services they name, generates the nginx configuration, converges the ConfigMap and the Deployment
 * (repairing and reporting changes or deletions by anyone else), and reports what it observes of the
 * Deployment and its pods. It writes MyProxy status, the ConfigMap and the Deployment, nothing else.
 */
import {
  Action,
  ChildConflictError,
  ConfigMap,
  type ControllerHost,
  controller,
  Deployment,
  ensureChild,
  generationChanged,
  isControlledBy,
  keyOf,
  Pod,
  type ReconcileContext,
  Service,
  writeStatus,
} from "kubeloop";
import { childRefusal } from "kubeloop/status";
import { acceptanceOf } from "./acceptance.ts";
import { MyProxy, type MyProxyObject, ProxyRoute, type ProxyRouteObject } from "./api.ts";
import { MyProxyConditions, ProxyReason, RouteReason } from "./conditions.ts";
import { desiredConfigMap, desiredDeployment } from "./deployment.ts";
import {
  configMapToProxy,
  deploymentToProxy,
  podMembershipChanged,
  podScope,
  podsOfProxy,
  podToProxy,
  proxyKeyOf,
  routeStore,
  routesOfService,
} from "./indexes.ts";
import { configHash, nginxConfig } from "./nginx.ts";
import { type ProxyObservation, proxyStatus } from "./status.ts";

type Context = ReconcileContext<MyProxyObject>;

/**
 * MyProxies reconciled at once. A reconcile mostly waits on the apiserver (child writes, a
 * status write).
 * Measured after an apiserver restart under load (bench/restart.ts, the controller manager's
 * client limit lifted so that the operators are the critical path): with one worker, busy every
 * second for 6 s, a child's readiness reached its parent's status up to 2.1-3.0 s late, queued
 * (up to 6.4 s on a more loaded machine); with 4, 1.3 s, and everything converged 0.5-1 s sooner.
 */
export const PROXY_CONCURRENCY = 4;

/** Registers the MyProxy controller on `host` (the manager). */
export function myProxyController(host: ControllerHost) {
  routeStore(host.cache);
  return (
    controller(host)
      .for(MyProxy)
      .owns(ConfigMap)
      .owns(Deployment)
      // A ConfigMap or Deployment holding a child's name without being the MyProxy's blocks it
      // (ChildConflict); watching them by name wakes the MyProxy once such an object goes or is renamed.
      .watches(ConfigMap, configMapToProxy(host.cache))
      .watches(Deployment, deploymentToProxy(host.cache))
      .watches(ProxyRoute, (route: ProxyRouteObject) => [proxyKeyOf(route)], {
        predicates: [generationChanged],
      })
      .watches(Service, (service) => routesOfService(host.cache, service).map(proxyKeyOf))
      .watches(Pod, podToProxy, { scope: podScope(host.cache), predicates: [podMembershipChanged] })
      .withOptions({ concurrency: PROXY_CONCURRENCY })
      .reconcile(reconcileMyProxy)
  );
}

/**
 * How long a new MyProxy waits for the routes and Services applied with it before creating its
 * Deployment. `kubectl apply -f dir/` creates a MyProxy a few milliseconds before its routes: a
 * Deployment created at once would roll out the empty configuration, and replace its first
 * ReplicaSet as soon as the routes arrive.
 */
export const FIRST_ROLLOUT_QUIET_MS = 2_000;

/**
 * How soon a MyProxy whose ConfigMap or Deployment the apiserver refused (a quota, an admission
 * check) tries again: what would change the answer is not watched.
 */
export const REFUSED_RETRY_MS = 10_000;

/**
 * Converges one MyProxy; a MyProxy blocked by a child conflict waits for the name watches, one
 * whose child the apiserver refused tries again after {@link REFUSED_RETRY_MS}.
 */
export async function reconcileMyProxy(ctx: Context): Promise<Action | undefined> {
  const proxy = ctx.object;
  // Gone or going: its children carry owner references, so garbage collection removes them.
  if (!proxy || proxy.metadata.deletionTimestamp) return undefined;
  const { accepted, rejected } = acceptanceOf(ctx.cache, keyOf(proxy));
  const config = nginxConfig({ proxy: keyOf(proxy), port: proxy.spec.nginx.port, routes: accepted });
  const hash = configHash(config);
  const waitMs = firstRolloutWait(ctx, proxy);
  if (waitMs > 0) return Action.requeueAfter(waitMs);
  const converged = await convergeChildren(ctx, proxy, config, hash);
  const observation: ProxyObservation = {
    ...converged,
    deployment: ownDeployment(ctx, proxy),
    pods: podsOfProxy(ctx.cache, proxy),
    acceptedRoutes: accepted.length,
    routesLeftOut: rejected.filter((r) => r.reason === RouteReason.ConfigurationFull).length,
    configHash: hash,
    configBytes: config.length,
  };
  await writeProxyStatus(ctx, proxy, observation);
  return observation.refused ? Action.requeueAfter(REFUSED_RETRY_MS) : undefined;
}

/** Time left of {@link FIRST_ROLLOUT_QUIET_MS} for a MyProxy without a Deployment yet; 0 otherwise. */
function firstRolloutWait(ctx: Context, proxy: MyProxyObject): number {
  if (ownDeployment(ctx, proxy)) return 0;
  const created = Date.parse(proxy.metadata.creationTimestamp ?? "");
  // creationTimestamp has whole seconds: count from the end of its second, never early.
  const age = ctx.clock.now() - (created + 1_000);
  return Number.isFinite(age) ? Math.max(0, FIRST_ROLLOUT_QUIET_MS - age) : 0;
}

/**
 * Applies the ConfigMap, then the Deployment; an object holding a child's name that the MyProxy
 * does not control (a user's, or another owner's) blocks it, untouched; a child the apiserver
 * refuses (a quota, an admission check) is reported, not thrown: retrying at once would not help.
 */
async function convergeChildren(
  ctx: Context,
  proxy: MyProxyObject,
  config: string,
  hash: string,
): Promise<Pick<ProxyObservation, "deploymentUpToDate" | "blocked" | "refused">> {
  try {
    await ensureChild(ctx, proxy, ConfigMap, desiredConfigMap(proxy, config));
    const result = await ensureChild(ctx, proxy, Deployment, desiredDeployment(proxy, hash));
    return { deploymentUpToDate: result === "unchanged" };
  } catch (err) {
    if (err instanceof ChildConflictError) return { deploymentUpToDate: false, blocked: err.message };
    const refused = childRefusal(err);
    if (!refused) throw err;
    return { deploymentUpToDate: false, refused };
  }
}

/** The cached Deployment of this name, when this MyProxy controls it. */
function ownDeployment(ctx: Context, proxy: MyProxyObject) {
  const deployment = ctx.cache.informer(Deployment).store.get(keyOf(proxy));
  return deployment && isControlledBy(deployment, proxy) ? deployment : undefined;
}

async function writeProxyStatus(ctx: Context, proxy: MyProxyObject, observation: ProxyObservation) {
  const report = proxyStatus(observation);
  await writeStatus(ctx, MyProxy, proxy, MyProxyConditions, (draft) => {
    draft.set("Available", report.available);
    draft.set("Progressing", report.progressing);
    draft.set("RoutesAdmitted", report.routesAdmitted);
    if (observation.blocked) draft.stalled(ProxyReason.ChildConflict, observation.blocked);
    return report.fields;
  });
}
