/**
 * Answers one AdmissionReview: the declaration's handler runs with its context, within its
 * timeout; a handler that throws or times out is answered `allowed: false` with code 500 and a
 * message naming the webhook, logged and counted, and the server goes on.
 */
import type { Client } from "../../client/index.ts";
import { type Clock, untilAborted } from "../../clock/index.ts";
import type { AdmissionAnswer, AdmissionContext, AdmissionWebhook, WebhookCache } from "../admission.ts";
import { BadWebhookRequestError, WebhookSideEffectError, WebhookTimeoutError } from "../errors.ts";
import type { WebhookLogger } from "../logger.ts";
import type { WebhookMetrics } from "../metrics.ts";
import { type AdmissionRequest, type AdmissionResponse, parseAdmissionReview } from "../review.ts";

/** What answering an admission request needs from the server. */
export interface AdmitDeps {
  readonly client: Client;
  readonly cache: WebhookCache;
  readonly clock: Clock;
  readonly metrics: WebhookMetrics;
  readonly logger: WebhookLogger;
}

/** An AdmissionReview answered: the request's apiVersion, echoed. */
export interface AnsweredAdmissionReview {
  apiVersion: string;
  kind: "AdmissionReview";
  response: AdmissionResponse;
}

function contextFor(
  webhook: AdmissionWebhook,
  request: AdmissionRequest,
  deps: AdmitDeps,
  signal: AbortSignal,
): AdmissionContext {
  const dryRun = request.dryRun === true;
  const refuseWrites = dryRun || webhook.sideEffects === "None";
  const client = refuseWrites
    ? deps.client.fenced(AbortSignal.abort(new WebhookSideEffectError(webhook.path, dryRun)))
    : deps.client;
  const { operation, userInfo } = request;
  return { operation, dryRun, userInfo, request, client, cache: deps.cache, signal };
}

function failure(webhook: AdmissionWebhook, request: AdmissionRequest, err: unknown, deps: AdmitDeps) {
  const timedOut = err instanceof WebhookTimeoutError;
  deps.metrics.failed(webhook.path, timedOut ? "timeout" : "error");
  const message = timedOut
    ? err.message
    : `webhook ${webhook.path} failed: ${(err as Error)?.message ?? err}`;
  const { uid, operation, namespace, name } = request;
  deps.logger.error({ err, webhook: webhook.path, uid, operation, namespace, name }, message);
  return {
    allowed: false,
    status: { status: "Failure" as const, code: 500, reason: "InternalError", message },
  };
}

async function admitWithin(
  webhook: AdmissionWebhook,
  request: AdmissionRequest,
  deps: AdmitDeps,
  hangup: AbortSignal,
): Promise<AdmissionAnswer> {
  const timeoutMs = webhook.timeoutSeconds * 1000;
  const deadline = new AbortController();
  const timer = deps.clock.setTimer(timeoutMs, () =>
    deadline.abort(new WebhookTimeoutError(webhook.path, timeoutMs)),
  );
  const ctx = contextFor(webhook, request, deps, AbortSignal.any([deadline.signal, hangup]));
  const timedOut = untilAborted(deadline.signal).then(() => Promise.reject(deadline.signal.reason));
  try {
    return await Promise.race([webhook.admit(request, ctx), timedOut]);
  } catch (err) {
    if (err instanceof BadWebhookRequestError) throw err;
    return failure(webhook, request, err, deps);
  } finally {
    timer.cancel();
  }
}

/**
 * Answers the AdmissionReview `body` with `webhook`; `hangup` aborts when the apiserver goes away.
 * Throws {@link BadWebhookRequestError} for a body that is not an AdmissionReview.
 */
export async function answerAdmission(
  webhook: AdmissionWebhook,
  body: unknown,
  deps: AdmitDeps,
  hangup: AbortSignal,
): Promise<AnsweredAdmissionReview> {
  const { apiVersion, request } = parseAdmissionReview(body);
  const answer = await admitWithin(webhook, request, deps, hangup);
  return { apiVersion, kind: "AdmissionReview", response: { uid: request.uid, ...answer } };
}
