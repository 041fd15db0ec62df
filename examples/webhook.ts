import { ConfigMap, defineKind, z } from "kubeloop";

const Widget = defineKind({
  group: "example.com",
  version: "v1",
  kind: "Widget",
  scope: "Namespaced",
  spec: z.object({ replicas: z.int().min(0) }),
});

// #region webhook
import { defaulting, Verdict, validating, WebhookServer } from "kubeloop/webhook";

const widgetValidation = validating(Widget, async (widget, _old, ctx) => {
  const quotas = await ctx.cache.reader(ConfigMap);
  const limit = Number(quotas.get("widget-quota", widget.metadata.namespace)?.data?.replicas ?? 10);
  if (widget.spec.replicas > limit) {
    return Verdict.deny(`at most ${limit} replicas in this namespace`, {
      causes: [{ field: "spec.replicas", message: `must be at most ${limit}` }],
    });
  }
});
const widgetDefaults = defaulting(Widget, (widget) => {
  widget.metadata.labels = { ...widget.metadata.labels, "example.com/tier": "standard" };
  return widget;
});

const server = new WebhookServer({
  webhooks: [widgetValidation, widgetDefaults],
  tls: { certFile: "certs/tls.crt", keyFile: "certs/tls.key" },
  client,
  cache,
});
await server.listen(); // https://:9443/validate-example-com-v1-widget, /mutate-example-com-v1-widget
// #endregion

declare const client: import("kubeloop").Client;
declare const cache: import("kubeloop/cache").InformerCache;
