/** Where the webhook server logs: pino's `logger.info(obj, msg)` shape, so a pino logger (or a child of one) fits as is. */

/** The log a webhook server writes: handler failures and refused requests, certificate reloads. */
export interface WebhookLogger {
  /** Logs a change worth knowing (a certificate reloaded); `obj` carries the details. */
  info(obj: object, msg: string): void;
  /** Logs a failure the server survived; `obj` carries `err` and the request. */
  error(obj: object, msg: string): void;
}

/** The default: failures to stderr, nothing else. */
export const stderrLogger: WebhookLogger = {
  info: () => {},
  error: (obj, msg) => console.error(msg, obj),
};
