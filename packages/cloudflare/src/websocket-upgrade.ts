/**
 * The `101 Switching Protocols` response that hands a WebSocket to the client, with per-message compression
 * (RFC 7692 `permessage-deflate`) declined unless asked for.
 *
 * Why decline it: these sockets carry many small JSON frames (a chunk frame is ~150 bytes). Deflate costs a
 * compression on the server and an inflate at the client for every frame, which is most of the cost of streaming
 * and replaying a run: on the anchor harness's machines, a bare Durable Object replaying 2 600 frames to a Node
 * `ws` client takes ~250 ms with deflate and ~30 ms without (bench/README.md, "Framing"). The price is bytes on
 * the wire: a replay of 50 runs × 50 chunks is ~400 KB uncompressed. Pass `{ compression: true }` where bandwidth
 * matters more than CPU.
 *
 * How: workerd treats a `Sec-WebSocket-Extensions` header on the Worker's 101 response as the server's agreement
 * and negotiates deflate itself when the header is absent (also under Miniflare, whose entry Worker fronts the
 * handshake, so the `no_web_socket_compression` flag alone does not reach a local client). A value that names no
 * extension it implements is the agreement "none"; workerd does not forward it to the client.
 */
export const NO_WEBSOCKET_EXTENSIONS = "identity";

export function webSocketUpgrade(client: WebSocket, options: { compression?: boolean } = {}): Response {
  if (options.compression === true) return new Response(null, { status: 101, webSocket: client });
  return new Response(null, {
    status: 101,
    webSocket: client,
    headers: { "Sec-WebSocket-Extensions": NO_WEBSOCKET_EXTENSIONS },
  });
}
