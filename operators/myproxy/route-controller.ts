/**
 * The ProxyRoute controller: reports on each route whether its MyProxy serves it (`Accepted`), using
 * the same judgement as the MyProxy controller ({@link acceptedRoutes}). It watches what a verdict
 * depends on: the route's siblings (an older route may win its host and path), the backend
 * Services (a Service appearing may also make an older sibling win), and the MyProxy's existence.
 * It writes ProxyRoute status, nothing else.
 */
import {
  ConfigMap,
  type ControllerHost,
  controller,
  generationChanged,
  keyOf,
  type ReconcileContext,
  Service,
  writeStatus,
} from "kubeloop";
import type { ConditionReport } from "kubeloop/status";
import { MyProxy, ProxyRoute, type ProxyRouteObject } from "./api.ts";
import { ProxyRouteConditions, RouteReason } from "./conditions.ts";
import {
  backendsOf,
  cachedProxy,
  existenceChanged,
  proxyKeyOf,
  routeStore,
  routesOfConfigMap,
  routesOfProxy,
  routesOfService,
  servedRoutes,
} from "./indexes.ts";
import { acceptedRoutes, type RouteAcceptance } from "./routes.ts";

type Context = ReconcileContext<ProxyRouteObject>;

/** A route's verdict: the `Accepted` report and, when accepted, where it proxies to. */
export interface RouteVerdict {
  accepted: ConditionReport;
  upstream?: string;
}

/** Registers the ProxyRoute controller on `host` (the manager). */
export function proxyRouteController(host: ControllerHost) {
  routeStore(host.cache);
  const siblings = (route: ProxyRouteObject) => routesOfProxy(host.cache, proxyKeyOf(route)).map(keyOf);
  return (
    controller(host)
      .for(ProxyRoute)
      .watches(ProxyRoute, siblings, { predicates: [generationChanged] })
      .watches(Service, (service) => routesOfService(host.cache, service).flatMap(siblings))
      .watches(MyProxy, (proxy) => routesOfProxy(host.cache, keyOf(proxy)).map(keyOf), {
        predicates: [existenceChanged],
      })
      // A route is Accepted once the configuration its MyProxy wrote holds it.
      .watches(ConfigMap, routesOfConfigMap(host.cache))
      .reconcile(reconcileProxyRoute)
  );
}

/** Reports one route's `Accepted` condition. */
export async function reconcileProxyRoute(ctx: Context): Promise<void> {
  const route = ctx.object;
  if (!route || route.metadata.deletionTimestamp) return;
  const verdict = judgeRoute(ctx, route);
  await writeStatus(ctx, ProxyRoute, route, ProxyRouteConditions, (draft) => {
    draft.set("Accepted", verdict.accepted);
    const { reason, message } = verdict.accepted;
    // Neither clears without a change to this route or an older one: no retry can help.
    if (reason === RouteReason.Conflict || reason === RouteReason.InvalidSpec) draft.stalled(reason, message);
    return verdict.upstream ? { upstream: verdict.upstream } : {};
  });
}

/** Whether the route's MyProxy serves it, judged as the MyProxy controller does. */
function judgeRoute(ctx: Context, route: ProxyRouteObject): RouteVerdict {
  const proxyKey = proxyKeyOf(route);
  const proxy = cachedProxy(ctx.cache, proxyKey);
  if (!proxy) {
    const message = `MyProxy ${route.spec.proxy} not found in namespace ${route.metadata.namespace}`;
    return { accepted: { status: "False", reason: RouteReason.ProxyNotFound, message } };
  }
  const siblings = routesOfProxy(ctx.cache, proxyKey);
  const verdict = verdictOf(acceptedRoutes(siblings, backendsOf(ctx.cache, siblings)), route);
  if (verdict.accepted.status !== "True" || servedRoutes(ctx.cache, proxy).has(route.metadata.name ?? ""))
    return verdict;
  const message = `accepted; waiting for MyProxy ${route.spec.proxy} to write it into its nginx configuration`;
  return { accepted: { status: "Unknown", reason: RouteReason.ConfigurationPending, message } };
}

/** The route's own verdict among its siblings'. */
function verdictOf({ accepted, rejected }: RouteAcceptance, route: ProxyRouteObject): RouteVerdict {
  const uid = route.metadata.uid;
  const served = accepted.find((a) => a.route.metadata.uid === uid);
  if (served) {
    const { url } = served.upstream;
    const message = `served by MyProxy ${route.spec.proxy}, proxied to ${url}`;
    return { accepted: { status: "True", reason: RouteReason.Accepted, message }, upstream: url };
  }
  // The route is one of the siblings, so it is either served or rejected.
  const left = rejected.find((r) => r.route.metadata.uid === uid);
  const reason = left?.reason ?? RouteReason.BackendNotFound;
  return { accepted: { status: "False", reason, message: left?.message ?? "" } };
}
