// #region api
import { ConfigMap, type ConfigMapObject } from "kubeloop";

const cm: ConfigMapObject = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a" }, data: {} };
await client.create(ConfigMap, cm);
// #endregion

declare const client: import("kubeloop").Client;
