/**
 * Which routes of a MyProxy are served: pure, so that the MyProxy controller (which builds the
 * configuration from the accepted routes) and the ProxyRoute controller (which reports each route's
 * `Accepted` condition) always agree.
 *
 * A route is accepted when its backend Service exists in the route's namespace and has the port the
 * route names (by number or by name), and no older route of the same MyProxy with a resolvable
 * backend serves the same host and path. Older means an earlier `creationTimestamp`, then the name
 * in alphabetical order.
 *
 * The configuration must fit in one ConfigMap, so the routes that qualify are admitted oldest first
 * while the configuration stays within {@link CONFIG_BUDGET_BYTES}: the first route that would take
 * it past the budget, and every younger one, get `ConfigurationFull`.
 *
 * Every value written into the nginx configuration comes from here, so a route is first checked
 * against the ProxyRoute schema itself, whatever the CRD in the cluster enforced: defence in depth
 * against an old or hand-edited CRD letting `example.com; } server { ...` into a server block. Then
 * against what nginx would get wrong ({@link routeHazards}), which the admission webhook refuses but
 * which a route created while it was not serving may hold.
 */
import type { ServiceObject } from "kubeloop";
import { ProxyRoute, type ProxyRouteObject } from "./api.ts";
import { RouteReason } from "./conditions.ts";
import { routeHazards } from "./hazards.ts";
import { byHostAndPath, CONFIG_BUDGET_BYTES, ConfigMeter, compare, pathOf } from "./nginx.ts";

/** Where an accepted route sends its requests. */
export interface Upstream {
  service: string;
  namespace: string;
  /** The Service port number, resolved from a port name when the route names one. */
  port: number;
  /** `http://<service>.<namespace>.svc.cluster.local:<port>`. */
  url: string;
}

/** A route in the configuration. */
export interface AcceptedRoute {
  route: ProxyRouteObject;
  upstream: Upstream;
}

/** A route left out of the configuration, and why. */
export interface RejectedRoute {
  route: ProxyRouteObject;
  reason:
    | typeof RouteReason.BackendNotFound
    | typeof RouteReason.Conflict
    | typeof RouteReason.ConfigurationFull
    | typeof RouteReason.InvalidSpec;
  message: string;
}

/** The verdict on every route of one MyProxy. */
export interface RouteAcceptance {
  /** Sorted by host, then path. */
  accepted: AcceptedRoute[];
  /** Sorted by name. */
  rejected: RejectedRoute[];
}

/**
 * Judges the routes of one MyProxy against the Services they may reference (Services of other
 * namespaces are never used). `budgetBytes` bounds the configuration's size; only tests lower it.
 *
 * @example
 * ```ts
 * const { accepted, rejected } = acceptedRoutes(routesOfProxy, servicesInNamespace);
 * ```
 */
export function acceptedRoutes(
  routes: readonly ProxyRouteObject[],
  services: readonly ServiceObject[],
  budgetBytes = CONFIG_BUDGET_BYTES,
): RouteAcceptance {
  const resolved: AcceptedRoute[] = [];
  const rejected: RejectedRoute[] = [];
  for (const route of routes) {
    const outcome = invalidSpec(route) ?? resolveBackend(route, services);
    if ("upstream" in outcome) resolved.push(outcome);
    else rejected.push(outcome);
  }
  const accepted = admit(resolved, rejected, budgetBytes);
  return { accepted: accepted.sort(byHostAndPath), rejected: rejected.sort(byName) };
}

/**
 * Admits the routes whose backend resolves, oldest first: each host and path goes to the first route
 * claiming it (the others get `Conflict`), while the configuration fits in `budgetBytes` (from the
 * first route that does not fit on, the others get `ConfigurationFull`). A route left out claims
 * nothing. Appends the routes left out to `rejected`.
 */
function admit(resolved: AcceptedRoute[], rejected: RejectedRoute[], budgetBytes: number): AcceptedRoute[] {
  const accepted: AcceptedRoute[] = [];
  const claimed = new Map<string, ProxyRouteObject>();
  const meter = new ConfigMeter();
  let full = false;
  for (const candidate of [...resolved].sort((a, b) => olderFirst(a.route, b.route))) {
    const key = `${candidate.route.spec.host} ${pathOf(candidate.route)}`;
    const winner = claimed.get(key);
    if (winner) rejected.push(conflict(candidate.route, winner));
    else if (full || meter.with(candidate) > budgetBytes) {
      full = true;
      rejected.push(configurationFull(candidate.route, budgetBytes));
    } else {
      claimed.set(key, candidate.route);
      meter.add(candidate);
      accepted.push(candidate);
    }
  }
  return accepted;
}

function resolveBackend(
  route: ProxyRouteObject,
  services: readonly ServiceObject[],
): AcceptedRoute | RejectedRoute {
  const { service: name, port: wanted } = route.spec.backend;
  const namespace = route.metadata.namespace ?? "";
  const service = services.find((s) => s.metadata.name === name && s.metadata.namespace === namespace);
  if (!service) return backendNotFound(route, `Service ${name} not found in namespace ${namespace}`);
  const ports = service.spec?.ports ?? [];
  const port = ports.find((p) => (typeof wanted === "number" ? p.port === wanted : p.name === wanted));
  if (!port) {
    const offered = ports.map((p) => (p.name ? `${p.port} (${p.name})` : `${p.port}`)).join(", ") || "none";
    return backendNotFound(route, `Service ${name} has no port ${wanted}; it offers ${offered}`);
  }
  const url = `http://${name}.${namespace}.svc.cluster.local:${port.port}`;
  return { route, upstream: { service: name, namespace, port: port.port, url } };
}

/**
 * The rejection of a route whose spec the ProxyRoute schema refuses, or whose host or path nginx
 * would get wrong ({@link routeHazards}, which the admission webhook refuses too), naming the first
 * problem.
 */
function invalidSpec(route: ProxyRouteObject): RejectedRoute | undefined {
  const checked = ProxyRoute.specSchema.safeParse(route.spec);
  const [issue] = checked.success ? [] : checked.error.issues;
  const [hazard] = issue ? [] : routeHazards(route.spec);
  const problem = issue
    ? `${["spec", ...issue.path].join(".")} is not allowed (${issue.message})`
    : hazard && `${hazard.field} ${hazard.message}`;
  if (!problem) return undefined;
  return {
    route,
    reason: RouteReason.InvalidSpec,
    message: `${problem}; nothing of this route is written to the nginx configuration`,
  };
}

function backendNotFound(route: ProxyRouteObject, message: string): RejectedRoute {
  return { route, reason: RouteReason.BackendNotFound, message };
}

function conflict(route: ProxyRouteObject, winner: ProxyRouteObject): RejectedRoute {
  const where = `host ${route.spec.host} path ${pathOf(route)}`;
  return {
    route,
    reason: RouteReason.Conflict,
    message: `${where} is already served by the older ProxyRoute ${winner.metadata.name}`,
  };
}

function configurationFull(route: ProxyRouteObject, budgetBytes: number): RejectedRoute {
  const budget = budgetBytes % 1024 === 0 ? `${budgetBytes / 1024} KiB` : `${budgetBytes} bytes`;
  return {
    route,
    reason: RouteReason.ConfigurationFull,
    message:
      `the nginx configuration of MyProxy ${route.spec.proxy} is full: routes are admitted oldest first ` +
      `while it stays within ${budget} (a ConfigMap holds at most 1 MiB), and this one would exceed it`,
  };
}

/** Orders routes oldest first: by `creationTimestamp`, then by name. The order routes are admitted in. */
export function olderFirst(a: ProxyRouteObject, b: ProxyRouteObject): number {
  return (
    compare(a.metadata.creationTimestamp ?? "", b.metadata.creationTimestamp ?? "") ||
    byName({ route: a }, { route: b })
  );
}

function byName(a: { route: ProxyRouteObject }, b: { route: ProxyRouteObject }): number {
  return compare(a.route.metadata.name ?? "", b.route.metadata.name ?? "");
}
