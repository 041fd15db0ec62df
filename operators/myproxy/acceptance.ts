/**
 * The verdict on a MyProxy's routes ({@link acceptedRoutes}), computed once per change of what it
 * depends on, not once per reconcile: with N routes, each of the N route reconciles a burst brings
 * would otherwise judge all N routes again (N² schema checks and sorts; 2,000 routes spent most of
 * their converge time there). The verdict depends on the routes' specs (their generation), names,
 * creation times and existence, and on the Services; the cache's handlers forget the verdicts on each
 * change of those, and a verdict is reused until then. Status writes, which are most of the events,
 * keep it.
 */
import { type ObjectKey, Service } from "kubeloop";
import type { InformerCache } from "kubeloop/cache";
import { ProxyRoute, type ProxyRouteObject } from "./api.ts";
import { backendsOf, routesOfProxy } from "./indexes.ts";
import { type AcceptedRoute, acceptedRoutes, type RejectedRoute, type RouteAcceptance } from "./routes.ts";

/** A MyProxy's verdict, and each route's part of it by uid. */
export interface Acceptance extends RouteAcceptance {
  /** The route's entry among `accepted` or `rejected`, by its uid. */
  readonly byUid: ReadonlyMap<string, AcceptedRoute | RejectedRoute>;
}

/** The verdicts known in a cache, by MyProxy key. */
type Memo = Map<ObjectKey, Acceptance>;

const memos = new WeakMap<InformerCache, Memo>();

/** The verdict on the routes of the MyProxy with this key, as {@link acceptedRoutes} judges them. */
export function acceptanceOf(cache: InformerCache, proxyKey: ObjectKey): Acceptance {
  const memo = memoOf(cache);
  const known = memo.get(proxyKey);
  if (known) return known;
  const routes = routesOfProxy(cache, proxyKey);
  const verdict = withIndex(acceptedRoutes(routes, backendsOf(cache, routes)));
  memo.set(proxyKey, verdict);
  return verdict;
}

function withIndex(acceptance: RouteAcceptance): Acceptance {
  const entries = [...acceptance.accepted, ...acceptance.rejected];
  return { ...acceptance, byUid: new Map(entries.map((entry) => [entry.route.metadata.uid ?? "", entry])) };
}

/** The memo of `cache`, created with the handlers that forget every verdict when an input changes. */
function memoOf(cache: InformerCache): Memo {
  const known = memos.get(cache);
  if (known) return known;
  const memo: Memo = new Map();
  const forget = () => memo.clear();
  cache.informer(ProxyRoute).addHandler({
    onAdd: forget,
    onDelete: forget,
    onUpdate: (old, obj) => {
      if (judgedDifferently(old, obj)) forget();
    },
  });
  cache.informer(Service).addHandler({ onAdd: forget, onUpdate: forget, onDelete: forget });
  memos.set(cache, memo);
  return memo;
}

/** Whether anything a verdict reads of a route changed: its spec (generation) or its deletion. */
function judgedDifferently(old: ProxyRouteObject, obj: ProxyRouteObject): boolean {
  return (
    old.metadata.generation !== obj.metadata.generation ||
    old.metadata.deletionTimestamp !== obj.metadata.deletionTimestamp ||
    old.metadata.uid !== obj.metadata.uid
  );
}
