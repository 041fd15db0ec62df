// #region tls
import { createServer } from "node:https";
import { createCertificateAuthority, issueCertificate } from "kubeloop/tls";

const ca = await createCertificateAuthority("dev-ca");
const serving = await issueCertificate(ca, {
  commonName: "api",
  hosts: ["127.0.0.1", "localhost"],
  usage: "server",
});
createServer({ cert: serving.certPem, key: serving.keyPem, ca: ca.certPem }, handler);
// #endregion

declare const handler: import("node:http").RequestListener;
