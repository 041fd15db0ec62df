/**
 * The paths a webhook server serves: one per admission webhook, and `/convert` for every
 * conversion (the apiserver's conversion requests name the kind in their objects).
 */
import type { AdmissionWebhook } from "../admission.ts";
import type { ConversionWebhook } from "../conversion.ts";
import { WebhookDeclarationError } from "../errors.ts";
import { type AdmitDeps, admissionOf } from "./admit.ts";
import { answerConversion, groupKind } from "./convert.ts";

/** One served path: how large a body it takes, and how it answers one. */
export interface Route {
  readonly maxBytes: number;
  /**
   * The review answered. `controller` is the request's: the server aborts it when the caller goes
   * away, and an admission webhook aborts it when its timeout passes.
   */
  answer(body: unknown, controller: AbortController): unknown;
}

/** Body limits per review type, in bytes. */
export interface BodyLimits {
  readonly admission: number;
  readonly conversion: number;
}

function claim<V>(map: Map<string, V>, key: string, value: V, what: string): void {
  if (map.has(key)) {
    throw new WebhookDeclarationError(
      what,
      "is declared twice",
      "declare one webhook of each type per kind and version (one handler may check several things)",
    );
  }
  map.set(key, value);
}

/** The routes of `webhooks`; throws {@link WebhookDeclarationError} when two claim one path or kind. */
export function routesOf(
  webhooks: readonly (AdmissionWebhook | ConversionWebhook)[],
  deps: AdmitDeps,
  limits: BodyLimits,
): Map<string, Route> {
  const routes = new Map<string, Route>();
  const conversions = new Map<string, ConversionWebhook>();
  for (const webhook of webhooks) {
    if (webhook.type === "conversion") {
      const key = groupKind(webhook.group, webhook.resource.kind);
      claim(conversions, key, webhook, `the conversion of ${key}`);
      continue;
    }
    const route: Route = { maxBytes: limits.admission, answer: admissionOf(webhook, deps) };
    claim(routes, webhook.path, route, `webhook ${webhook.path}`);
  }
  if (conversions.size > 0) {
    routes.set("/convert", {
      maxBytes: limits.conversion,
      answer: (body) => answerConversion(conversions, body, deps),
    });
  }
  return routes;
}
