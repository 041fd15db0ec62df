import { controller, type Manager, Secret } from "kubeloop";

// #region readme-import
import { Certificate } from "./api/cert-manager.io/v1/certificates.ts";

controller(manager)
  .for(Certificate)
  .owns(Secret)
  .reconcile(async (ctx) => {
    const dnsNames: string[] = ctx.object?.spec?.dnsNames ?? [];
    ctx.log.info({ dnsNames }, "names to certify");
  });
// #endregion

declare const manager: Manager;
