// How browser mode's page proves it logged in, shared by the server (src-main/server) and the
// page (src-renderer/browser-login.ts, ws-client.ts). Why a credential and not a cookie:
// src-main/server/login.ts.

/** The WebSocket subprotocol the app speaks. */
export const WS_PROTOCOL = 'ramforge.v1';
/** Prefix of the subprotocol entry that carries the credential: `ramforge.auth.<credential>`. */
export const WS_AUTH_PREFIX = 'ramforge.auth.';
/** Query parameter of the one-time login code in the printed URL. */
export const LOGIN_CODE_PARAM = 'code';
/** Where the page trades the code for a credential: POST {"code"} → {"credential"}. */
export const LOGIN_PATH = '/login';

/** The subprotocol list the page offers: the protocol, then the credential when it has one. */
export function wsProtocols(credential: string | null): string[] {
  return credential ? [WS_PROTOCOL, WS_AUTH_PREFIX + credential] : [WS_PROTOCOL];
}
