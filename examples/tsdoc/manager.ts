import { type Operator, runOperator } from "kubeloop";
import {
  type EndpointsOptions,
  endpointOptions,
  Manager,
  parseEndpointFlags,
  parseOperatorFlags,
  serveEndpoints,
} from "kubeloop/manager";
import type { Webhook } from "kubeloop/webhook";
import type { Registry } from "prom-client";

declare const operator: Operator;
declare const registry: Registry;
declare const certPem: string;
declare const keyPem: string;
declare const manager: Manager;
declare const widgetValidation: Webhook;

// #region MetricsOptions
await Manager.create({
  name: "widgets",
  metrics: { secure: true, port: 8443, certDir: "/tmp/k8s-metrics-server/metrics-certs" },
});
// #endregion

// #region endpointOptions
endpointOptions({ metricsBindAddress: ":8443", metricsSecure: true }); // { metrics: { host: "0.0.0.0", port: 8443, secure: true } }
// #endregion

// #region parseEndpointFlags
await runOperator(operator, parseEndpointFlags(process.argv.slice(2)));
// #endregion

// #region parseOperatorFlags
await runOperator(operator, parseOperatorFlags(process.argv.slice(2)));
// #endregion

// #region EndpointsOptions
const options: EndpointsOptions = {
  metrics: registry,
  tls: { certPem, keyPem },
  guard: async () => undefined,
};
// #endregion

// #region serveEndpoints
const { server, port } = await serveEndpoints("127.0.0.1", 0, { metrics: manager.metrics.registry });
// #endregion

// #region WebhookServingOptions
await Manager.create({
  name: "widgets",
  webhooks: [widgetValidation],
  webhookServer: { port: 9443, certDir: "/tmp/k8s-webhook-server/serving-certs" },
});
// #endregion

console.log(options, server, port);
