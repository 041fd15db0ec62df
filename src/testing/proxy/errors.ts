import { KubeloopError } from "../../errors/index.ts";

/** A rule passed to {@link FaultProxy.inject} cannot be applied as written. Code `KL_PROXY_RULE`. */
export class ProxyRuleError extends KubeloopError {
  constructor(detail: string) {
    super("KL_PROXY_RULE", `invalid proxy rule: ${detail}. Fix the match or fault passed to inject().`);
  }
}

/**
 * The proxy cannot be set up from the options or kubeconfig it was given, e.g. the upstream
 * credentials have no client certificate. Code `KL_PROXY_CONFIG`.
 */
export class ProxyConfigError extends KubeloopError {
  constructor(detail: string, options?: { cause?: unknown }) {
    super("KL_PROXY_CONFIG", `cannot set up the fault proxy: ${detail}`, options);
  }
}
