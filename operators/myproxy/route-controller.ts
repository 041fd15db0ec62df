/**
 * The ProxyRoute controller: reports on each route whether its MyProxy serves it (`Accepted`), using
 * the same judgement as the MyProxy controller ({@link acceptedRoutes}). It watches what a verdict
 * depends on: the routes claiming its host and path (an older one may win them), the backend
 * Services (a Service appearing may make an older route of the same host and path win), the
 * MyProxy's existence, and its ConfigMap (which every change of the admitted set rewrites, so it
 * wakes every route a budget change moves). It writes ProxyRoute status, nothing else.
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
import type { ConditionReport, DescribeStatus, TransitionEvent } from "kubeloop/status";
import { type Acceptance, acceptanceOf } from "./acceptance.ts";
import { MyProxy, ProxyRoute, type ProxyRouteObject } from "./api.ts";
import { ProxyRouteConditions, RouteReason } from "./conditions.ts";
import {
  cachedProxy,
  existenceChanged,
  proxyKeyOf,
  routeStore,
  routesInSlotOf,
  routesOfConfigMap,
  routesOfProxy,
  routesOfService,
  servedRoutes,
} from "./indexes.ts";

type Context = ReconcileContext<ProxyRouteObject>;

/** The reasons a route is left out that only a human can clear (by changing routes). */
const STALLING: ReadonlySet<string> = new Set([
  RouteReason.Conflict,
  RouteReason.ConfigurationFull,
  RouteReason.InvalidSpec,
]);

/**
 * Routes reconciled at once. A route's reconcile is one status write, independent of the other
 * routes' (verdicts come from the shared memo), and a MyProxy has routes by the thousand.
 */
export const ROUTE_CONCURRENCY = 4;

/** A route's verdict: the `Accepted` report and, when accepted, where it proxies to. */
export interface RouteVerdict {
  accepted: ConditionReport;
  upstream?: string;
}

/** Registers the ProxyRoute controller on `host` (the manager). */
export function proxyRouteController(host: ControllerHost) {
  routeStore(host.cache);
  const slotMates = (route: ProxyRouteObject) => routesInSlotOf(host.cache, route).map(keyOf);
  return (
    controller(host)
      .for(ProxyRoute)
      .watches(ProxyRoute, slotMates, { predicates: [generationChanged] })
      .watches(Service, (service) => routesOfService(host.cache, service).flatMap(slotMates))
      .watches(MyProxy, (proxy) => routesOfProxy(host.cache, keyOf(proxy)).map(keyOf), {
        predicates: [existenceChanged],
      })
      // A route is Accepted once the configuration its MyProxy wrote holds it.
      .watches(ConfigMap, routesOfConfigMap(host.cache))
      .withOptions({ concurrency: ROUTE_CONCURRENCY })
      .reconcile(reconcileProxyRoute)
  );
}

/**
 * Reports one route's `Accepted` condition. Its transitions are told by one event each, of the
 * summary `Ready` (which carries `Accepted`'s reason and message: an event per condition would say
 * the same twice), except a route's first report when it is a normal one: a route accepted at
 * first sight is told by its status alone, as a MyProxy's routes come by the thousand. Rejections
 * are Warnings, told at once.
 */
export async function reconcileProxyRoute(ctx: Context): Promise<void> {
  const route = ctx.object;
  if (!route || route.metadata.deletionTimestamp) return;
  const verdict = judgeRoute(ctx, route);
  const describe: DescribeStatus<ProxyRouteObject, "Accepted", never> = (draft) => {
    draft.set("Accepted", verdict.accepted);
    const { reason, message } = verdict.accepted;
    // None clears without a change to this route or an older one: no retry can help.
    if (STALLING.has(reason)) draft.stalled(reason, message);
    return verdict.upstream ? { upstream: verdict.upstream } : {};
  };
  await writeStatus(ctx, ProxyRoute, route, ProxyRouteConditions, describe, { events: summaryEvent });
}

/** The event of a summary transition, unless it is a normal first report; none for the others. */
function summaryEvent(event: TransitionEvent): TransitionEvent | undefined {
  if (event.condition !== ProxyRouteConditions.summary) return undefined;
  return event.from === undefined && event.type === "Normal" ? undefined : event;
}

/** Whether the route's MyProxy serves it, judged as the MyProxy controller does. */
function judgeRoute(ctx: Context, route: ProxyRouteObject): RouteVerdict {
  const proxyKey = proxyKeyOf(route);
  const proxy = cachedProxy(ctx.cache, proxyKey);
  if (!proxy) {
    const message = `MyProxy ${route.spec.proxy} not found in namespace ${route.metadata.namespace}`;
    return { accepted: { status: "False", reason: RouteReason.ProxyNotFound, message } };
  }
  const verdict = verdictOf(acceptanceOf(ctx.cache, proxyKey), route);
  if (verdict.accepted.status !== "True" || servedRoutes(ctx.cache, proxy).has(route.metadata.name ?? ""))
    return verdict;
  const message = `accepted; waiting for MyProxy ${route.spec.proxy} to write it into its nginx configuration`;
  return { accepted: { status: "Unknown", reason: RouteReason.ConfigurationPending, message } };
}

/** The route's own verdict among its siblings'. */
function verdictOf({ byUid }: Acceptance, route: ProxyRouteObject): RouteVerdict {
  const entry = byUid.get(route.metadata.uid ?? "");
  if (entry && "upstream" in entry) {
    const { url } = entry.upstream;
    const message = `served by MyProxy ${route.spec.proxy}, proxied to ${url}`;
    return { accepted: { status: "True", reason: RouteReason.Accepted, message }, upstream: url };
  }
  // The route is one of the siblings, so it is either served or rejected.
  const reason = entry?.reason ?? RouteReason.BackendNotFound;
  return { accepted: { status: "False", reason, message: entry?.message ?? "" } };
}
