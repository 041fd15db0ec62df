/**
 * ProxyRoute admission: the validating webhook that refuses, before it is stored, a route whose host
 * or path nginx would get wrong ({@link routeHazards}), and a route taking the host and path of a
 * MyProxy from a route already accepted there. The controllers keep reporting both (`InvalidSpec`,
 * `Conflict`) for what gets in anyway: a route stored while the webhook was not serving, or two
 * routes created at once, before either was accepted.
 */
import { isTrue } from "kubeloop/status";
import { type AdmissionContext, Verdict, validating } from "kubeloop/webhook";
import { ProxyRoute, type ProxyRouteObject } from "./api.ts";
import { type Hazard, routeHazards } from "./hazards.ts";
import { slotOf } from "./indexes.ts";
import { pathOf } from "./nginx.ts";

/** The ProxyRoute validating webhook (CREATE and UPDATE), declared in the operator's `webhooks`. */
export const proxyRouteAdmission = validating(ProxyRoute, admitRoute);

/**
 * Admits or denies a ProxyRoute. An update is held only to what it changes: a hazard already in
 * the stored route (stored before the webhook served) does not block a change of its labels or
 * backend, and only a change of its proxy, host or path is checked for a conflict.
 */
export async function admitRoute(
  route: ProxyRouteObject,
  old: ProxyRouteObject | undefined,
  ctx: AdmissionContext,
): Promise<Verdict | undefined> {
  const hazards = routeHazards(route.spec).filter((h) => !old || fieldValue(route, h) !== fieldValue(old, h));
  if (hazards.length > 0) {
    const message = hazards.map((h) => `${h.field} ${h.message}`).join("; ");
    return Verdict.deny(message, { causes: hazards });
  }
  if (old && slotOf(old) === slotOf(route)) return undefined;
  const rival = acceptedRival(route, await routesOfNamespace(route, ctx));
  if (!rival) return undefined;
  const where = `host ${route.spec.host} path ${pathOf(route)} of MyProxy ${route.spec.proxy}`;
  const message = `already served by the accepted ProxyRoute ${rival.metadata.name}`;
  return Verdict.deny(`${where} is ${message}`, { causes: [{ field: "spec.path", message }] });
}

/**
 * The routes of `route`'s namespace, read live: one namespaced list per admission that moves a
 * route. Not `ctx.cache`: any replica answers any admission, so a cached read would keep every
 * route cached on every replica, and where replicas shard routes by namespace that second,
 * unsharded watch alone would bring each replica every route event (measured: 3,767 events on one
 * replica of 2,755 a whole watch sees). A live read is also the fresher one for a uniqueness check.
 */
async function routesOfNamespace(
  route: ProxyRouteObject,
  ctx: AdmissionContext,
): Promise<ProxyRouteObject[]> {
  const { items } = await ctx.client.list(ProxyRoute, {
    namespace: route.metadata.namespace,
    signal: ctx.signal,
  });
  return items;
}

/** The value of the field a hazard is in. */
function fieldValue(route: ProxyRouteObject, hazard: Hazard): string {
  return hazard.field === "spec.host" ? route.spec.host : pathOf(route);
}

/**
 * The route among `routes` (another name) that claims the same host and path of the same MyProxy
 * as `route` and is `Accepted`: the one `route` would conflict with.
 */
export function acceptedRival(
  route: ProxyRouteObject,
  routes: readonly ProxyRouteObject[],
): ProxyRouteObject | undefined {
  const slot = slotOf(route);
  return routes.find(
    (r) =>
      r.metadata.name !== route.metadata.name &&
      slotOf(r) === slot &&
      isTrue(r.status?.conditions ?? [], "Accepted"),
  );
}
