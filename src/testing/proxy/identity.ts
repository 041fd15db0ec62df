/**
 * Keeps the caller's identity across the proxy, so the apiserver authorizes the caller and not
 * the proxy. A caller with an `Authorization` header is forwarded as is, over a connection without
 * a client certificate (the apiserver would otherwise authenticate the certificate first). A caller
 * with a client certificate is forwarded over the admin connection with `Impersonate-User` set to
 * the certificate's common name and one `Impersonate-Group` per organization. Anyone else reaches
 * the apiserver anonymously.
 */
import type { IncomingHttpHeaders } from "node:http";
import type { TLSSocket } from "node:tls";

/** Who is calling, as the proxy forwards it. */
export type Caller =
  | { kind: "bearer" }
  | { kind: "certificate"; user: string; groups: string[] }
  | { kind: "anonymous" };

/** A request the proxy answers itself because it cannot forward the caller's identity. */
export interface Refusal {
  kind: "refused";
  status: number;
  message: string;
}

/** The client-certificate facts of one TLS connection. */
export interface PeerCertificate {
  /** True when a certificate was presented and verified against the client CA. */
  authorized: boolean;
  /** True when a certificate was presented at all. */
  presented: boolean;
  commonName?: string;
  organizations: string[];
}

const impersonationPrefix = "impersonate-";

/** What each connection's client certificate says, read once per connection, not per request. */
const peers = new WeakMap<TLSSocket, PeerCertificate>();

/** Reads the client certificate of a TLS connection (once: it cannot change on a connection). */
export function peerCertificate(socket: TLSSocket): PeerCertificate {
  let info = peers.get(socket);
  if (!info) {
    info = readPeerCertificate(socket);
    peers.set(socket, info);
  }
  return info;
}

function readPeerCertificate(socket: TLSSocket): PeerCertificate {
  const cert = socket.getPeerCertificate();
  const subject = (cert?.subject ?? {}) as { CN?: string | string[]; O?: string | string[] };
  const list = (v: string | string[] | undefined) => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
  const info: PeerCertificate = {
    authorized: socket.authorized,
    presented: cert !== undefined && Object.keys(cert).length > 0,
    organizations: list(subject.O),
  };
  const commonName = list(subject.CN)[0];
  if (commonName !== undefined) info.commonName = commonName;
  return info;
}

/** Decides how to forward a caller, or refuses when its identity cannot be kept. */
export function identifyCaller(headers: IncomingHttpHeaders, peer: PeerCertificate): Caller | Refusal {
  if (headers.authorization !== undefined) return { kind: "bearer" };
  if (!peer.presented) return { kind: "anonymous" };
  if (!peer.authorized || !peer.commonName) {
    return refused(401, "the client certificate is not signed by the client CA this proxy trusts");
  }
  if (Object.keys(headers).some((h) => h.startsWith(impersonationPrefix))) {
    return refused(
      400,
      "the kubeloop proxy cannot pass on impersonation (--as) for a client-certificate caller, because it " +
        "impersonates that caller itself; use a bearer-token kubeconfig for --as",
    );
  }
  return { kind: "certificate", user: peer.commonName, groups: peer.organizations };
}

function refused(status: number, message: string): Refusal {
  return { kind: "refused", status, message };
}

/** The impersonation headers that carry a certificate caller's identity; none for the others. */
export function identityHeaders(caller: Caller): Record<string, string | string[]> {
  if (caller.kind !== "certificate") return {};
  const headers: Record<string, string | string[]> = { "impersonate-user": caller.user };
  if (caller.groups.length > 0) headers["impersonate-group"] = caller.groups;
  return headers;
}

/** A short name for the request history. */
export function callerName(caller: Caller): string {
  return caller.kind === "certificate" ? caller.user : `(${caller.kind})`;
}
