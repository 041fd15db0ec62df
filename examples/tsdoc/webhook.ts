import type { Client, KubeObject } from "kubeloop";
import type { InformerCache } from "kubeloop/cache";
import {
  type AdmissionWebhook,
  admissionConfigurations,
  checkNamespacesAdmitted,
  conversion,
  defaulting,
  type SpokeConversion,
  type Validator,
  Verdict,
  validating,
  WebhookServer,
} from "kubeloop/webhook";
import type { Registry } from "prom-client";
import { ProxyRoute, type ProxyRouteObject } from "../../operators/myproxy/api.ts";
// jsonPatch is internal to webhook (a defaulting webhook's answer): no door exports it.
import { jsonPatch } from "../../src/webhook/internal/json-patch.ts";
import { Widget, type WidgetObject } from "./kinds.ts";

declare const widgetValidation: AdmissionWebhook;
declare const validateWidget: Validator<WidgetObject>;
declare const widgetVersions: { spokes: Record<string, SpokeConversion<KubeObject, WidgetObject>> };
declare const client: Client;
declare const cache: InformerCache;
declare const registry: Registry;

// #region validating
export const routeValidation = validating(ProxyRoute, async (route, _old, ctx) => {
  const routes = await ctx.cache.reader(ProxyRoute);
  const taken = routes
    .list()
    .find((r) => r.spec.host === route.spec.host && r.metadata.name !== route.metadata.name);
  if (taken) {
    return Verdict.deny(`host ${route.spec.host} is taken`, {
      causes: [{ field: "spec.host", message: `used by ${taken.metadata.name}` }],
    });
  }
});
// #endregion

// #region defaulting
export const widgetDefaults = defaulting(Widget, (widget) => {
  widget.spec.replicas ??= 1;
  return widget;
});
// #endregion

// #region admissionConfigurations
const [validatingConfig] = admissionConfigurations([widgetValidation], {
  name: "widgets",
  operator: "widgets",
  endpoint: { service: { name: "widgets-webhook-service", namespace: "widgets" } },
});
// #endregion

// #region checkNamespacesAdmitted
checkNamespacesAdmitted([widgetValidation], { watchNamespace: "team-a" });
// #endregion

// #region WebhookServer
const server = new WebhookServer({
  webhooks: [validating(Widget, validateWidget), conversion(Widget, widgetVersions)],
  tls: {
    certFile: "/tmp/k8s-webhook-server/serving-certs/tls.crt",
    keyFile: "/tmp/k8s-webhook-server/serving-certs/tls.key",
  },
  client,
  cache,
  registry,
});
const { port } = await server.listen();
// ...
await server.close();
// #endregion

export const validateRoute: Validator<ProxyRouteObject> = (route) => {
  // #region Verdict
  if (route.spec.host.includes(" ")) {
    return Verdict.deny("the host is unsafe", {
      causes: [{ field: "spec.host", message: "must not contain spaces" }],
    });
  }
  return Verdict.allow("spec.timeout is deprecated");
  // #endregion
};

// #region jsonPatch
jsonPatch({ spec: { a: 1 } }, { spec: { a: 2, "b/c": true } });
// [{ op: "replace", path: "/spec/a", value: 2 }, { op: "add", path: "/spec/b~1c", value: true }]
// #endregion

console.log(validatingConfig, port);
