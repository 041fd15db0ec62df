/**
 * The HTTP edge of the webhook server: reading a JSON body within a size limit, and answering
 * with JSON, or with a metav1.Status when no review can be answered.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { BadWebhookRequestError } from "../errors.ts";

const reasons: Readonly<Record<number, string>> = {
  400: "BadRequest",
  404: "NotFound",
  405: "MethodNotAllowed",
  413: "RequestEntityTooLarge",
  415: "UnsupportedMediaType",
  500: "InternalError",
};

function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const tooLarge = () =>
    new BadWebhookRequestError(413, `the body is larger than the limit of ${maxBytes} bytes`);
  if (Number(req.headers["content-length"]) > maxBytes) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      chunks.push(chunk);
      if (size <= maxBytes) return;
      // Stop keeping it; the rest is read and dropped while the 413 goes out.
      req.off("data", onData);
      reject(tooLarge());
    };
    req.on("data", onData);
    req.once("end", () => resolve(Buffer.concat(chunks)));
    req.once("error", reject);
  });
}

/** The request's body as JSON; throws {@link BadWebhookRequestError} when it is not JSON, empty or too large. */
export async function readJson(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  const type = req.headers["content-type"] ?? "";
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    throw new BadWebhookRequestError(415, `the content-type is "${type}"; send application/json`);
  }
  const body = await readBody(req, maxBytes);
  if (body.length === 0) throw new BadWebhookRequestError(400, "the body is empty; send a review");
  try {
    return JSON.parse(body.toString("utf8"));
  } catch (err) {
    throw new BadWebhookRequestError(400, `the body is not JSON: ${(err as Error).message}`);
  }
}

/** Answers with `body` as JSON and returns `status`; asks the client to reconnect elsewhere when `closing`. */
export function sendJson(res: ServerResponse, status: number, body: unknown, closing: boolean): number {
  const json = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(json),
    ...(closing && { connection: "close" }),
  });
  res.end(json);
  return status;
}

/** A metav1.Status of a failed request, as the apiserver's REST client reads one. */
export function failureStatus(code: number, message: string): object {
  return {
    apiVersion: "v1",
    kind: "Status",
    metadata: {},
    status: "Failure",
    code,
    reason: reasons[code],
    message,
  };
}
