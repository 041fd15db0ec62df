import type { RequestListener } from "node:http";
import https from "node:https";
import { createCertificateAuthority, issueCertificate, selfSignedServingCertificate } from "kubeloop/tls";

declare const handler: RequestListener;

// #region createCertificateAuthority
const ca = await createCertificateAuthority("my-ca");
const client = await issueCertificate(ca, { commonName: "alice", organizations: ["dev"], usage: "client" });
// #endregion

// #region issueCertificate
const serving = await issueCertificate(ca, {
  commonName: "webhook",
  hosts: ["webhook.default.svc"],
  usage: "server",
});
// #endregion

// #region selfSignedServingCertificate
const { certPem, keyPem } = await selfSignedServingCertificate("metrics", ["localhost", "127.0.0.1"]);
https.createServer({ cert: certPem, key: keyPem }, handler);
// #endregion

console.log(client, serving);
