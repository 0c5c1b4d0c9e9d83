import type { AgentToolChildRunner } from "@agent-tools/core-runs";
import { webSocketUpgrade } from "../websocket-upgrade.js";
import { serveDrillIn } from "./drill-in-socket.js";

/**
 * A child's drill-in route (reached only through the parent, which checks the run is its own): `GET ?runId=` answers
 * `snapshot(runId)` as JSON; a WebSocket upgrade is served by `serveDrillIn` (its delivery kept alive with `waitUntil`).
 * @internal
 */
export async function serveDrillInRequest(
  request: Request,
  host: {
    runner: Pick<AgentToolChildRunner, "getConversation" | "tail">;
    snapshot(runId: string): Promise<Record<string, unknown>>;
    waitUntil(work: Promise<unknown>): void;
  },
): Promise<Response> {
  const runId = new URL(request.url).searchParams.get("runId");
  if (!runId) return new Response("runId required", { status: 400 });
  if (request.headers.get("Upgrade")?.toLowerCase() !== "websocket") return Response.json(await host.snapshot(runId));
  const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
  server.accept();
  const { delivery } = await serveDrillIn(host.runner, runId, server);
  host.waitUntil(delivery);
  return webSocketUpgrade(client);
}
