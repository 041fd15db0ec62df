import type { KubeObject } from "kubeloop";
import { defineKind, z } from "kubeloop";

const Route = defineKind({
  group: "example.com",
  version: "v1",
  kind: "Route",
  scope: "Namespaced",
  spec: z.object({ hostname: z.string(), tls: z.object({ secretName: z.string() }).optional() }),
  versions: [{ name: "v1alpha1", spec: z.object({ host: z.string() }) }],
});
interface RouteV1 extends KubeObject {
  spec: { hostname: string; tls?: { secretName: string } };
}
interface RouteV1alpha1 extends KubeObject {
  spec: { host: string };
}

// #region readme-webhooks
import { defineOperator } from "kubeloop";
import { conversion, defaulting, Verdict, validating } from "kubeloop/webhook";

const routeValidation = validating(Route, async (route, _old, ctx) => {
  const routes = await ctx.cache.reader(Route);
  const taken = routes
    .list()
    .find((r) => r.spec.hostname === route.spec.hostname && r.metadata.name !== route.metadata.name);
  if (taken) {
    return Verdict.deny(`the hostname ${route.spec.hostname} is taken`, {
      causes: [{ field: "spec.hostname", message: `used by ${taken.metadata.name}` }],
    });
  }
});
const routeDefaults = defaulting(Route, (route) => {
  route.spec.tls ??= { secretName: `${route.metadata.name}-tls` };
  return route;
});
const routeVersions = conversion(Route, {
  hub: "v1",
  spokes: {
    v1alpha1: {
      toHub: ({ spec, ...old }: RouteV1alpha1): RouteV1 => ({ ...old, spec: { hostname: spec.host } }),
      fromHub: ({ spec, ...hub }: RouteV1): RouteV1alpha1 => ({ ...hub, spec: { host: spec.hostname } }),
      lacks: ["spec.tls"], // v1 only: kept in an annotation of the v1alpha1 object
    },
  },
});

export default defineOperator({
  name: "routes",
  kinds: [Route],
  webhooks: [routeValidation, routeDefaults, routeVersions],
  setup: () => {},
});
// #endregion
