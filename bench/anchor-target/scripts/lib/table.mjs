// The human table `pnpm bench` prints (markdown). Medians with [min–max] over repetitions.
import { cell, round } from "./stats.mjs";

/**
 * The anchor's figures from the anchor harness's RESULTS.md (the harness is external, see bench/README.md;
 * 2026-12-02, the stub child, medians of 6 runs): a reference from another sitting only. The issue's targets are read from the harness run with both targets
 * interleaved (README.md, "Side by side with the anchor").
 */
const ANCHOR = {
  w1: 14,
  w2: 6538,
  w3: 364,
  w4: 422,
  w5Parent: 7,
  w5Child: 202,
  w5ParentBytes: 287,
  w5ChildBytes: 8192,
};
/** The same for the anchor's Think child (anchor-think), the real child's counterpart. */
const ANCHOR_THINK = { w1: 53, w2: 1884, w3: 1372, w5Parent: 20, w5Child: 42 };

const get = (object, path) => path.split(".").reduce((value, key) => value?.[key], object);
const ratio = (a, b) => (typeof a === "number" && typeof b === "number" && b !== 0 ? `${round(a / b, 2)}×` : "");

export function renderTable(results, P) {
  const ours = results.ours;
  const raw = results.raw;
  const real = results.realChild;
  // The anchor measured in this sitting (`--anchor`), else its RESULTS.md figures (another sitting).
  const measured = (path, fallback) => get(results.anchor, `${path}.median`) ?? fallback;
  const anchor = {
    w1: measured("w1.innerMs", ANCHOR.w1),
    w2: measured("w2.chunksPerSec", ANCHOR.w2),
    w3: measured("w3.innerWallMs", ANCHOR.w3),
  };
  const rows = [];
  /** The real child's cell of a row, by the row's figure (rows without one leave the column empty). */
  const realCells = new Map();
  const row = (figure, oursCell, rawCell = "", versusRaw = "", anchor = "", target = "") =>
    rows.push(
      `| ${figure} | ${oursCell} | ${rawCell} | ${versusRaw} | ${realCells.get(figure) ?? ""} | ${anchor} | ${target} |`,
    );
  const med = (object, path) => get(object, `${path}.median`);
  /** The real child's median of `path` [min–max], and its ratio to the anchor's Think child (RESULTS.md). */
  const realCell = (path, think, digits = 1) =>
    get(real, path) === undefined ? "" : `${cell(get(real, path), digits)} (${ratio(med(real, path), think)} think)`;
  const w1Figure = `W1 awaited run C=${P.w1Chunks}, in-DO ms`;
  const w2Figure = `W2 C=${P.w2Chunks}: chunk frames/s at the client (dispatch→terminal)`;
  const w3Figure = `W3 ${P.w3Runs}×C=${P.w3Chunks} concurrent, in-DO wall ms`;
  const w5Figure = `W5 C=${P.w5Chunks}: SQL rows written, parent + child (child − unused child)`;
  realCells.set(w1Figure, realCell("w1.innerMs", ANCHOR_THINK.w1));
  realCells.set("W1 Node-side ms", cell(get(real, "w1.outerMs")));
  realCells.set(w2Figure, realCell("w2.chunksPerSec", ANCHOR_THINK.w2, 0));
  realCells.set("W2 rate between first and last chunk frame, frames/s", cell(get(real, "w2.streamChunksPerSec"), 0));
  realCells.set("W2 dispatch→first chunk frame, ms", cell(get(real, "w2.firstChunkMs")));
  realCells.set("W2 in-DO ms (the run, inside the parent)", cell(get(real, "w2.innerMs")));
  realCells.set("W2 without permessage-deflate†: chunk frames/s", cell(get(real, "w2NoDeflate.chunksPerSec"), 0));
  realCells.set(w3Figure, realCell("w3.innerWallMs", ANCHOR_THINK.w3));
  realCells.set("W5 parent DB growth, bytes/run (amortized)", cell(get(real, "w5.parent.growthBytesPerRun"), 0));
  const realW5 =
    get(real, "w5.parent.rowsWritten") + get(real, "w5.child.rowsWritten") - get(real, "w5.childEmpty.rowsWritten");
  if (Number.isFinite(realW5)) {
    const parentRows = get(real, "w5.parent.rowsWritten");
    const think = ANCHOR_THINK.w5Parent + ANCHOR_THINK.w5Child;
    realCells.set(w5Figure, `${parentRows} + ${realW5 - parentRows} = ${realW5} (${ratio(realW5, think)} think)`);
  }

  row("baseline: Node→DO ping, ms", cell(get(ours, "baseline.pingOuterMs")), cell(get(raw, "baseline.pingOuterMs")));
  row(
    w1Figure,
    cell(get(ours, "w1.innerMs")),
    cell(get(raw, "w1NewObject.innerMs")),
    ratio(med(ours, "w1.innerMs"), med(raw, "w1NewObject.innerMs")),
    `${anchor.w1} (${ratio(med(ours, "w1.innerMs"), anchor.w1)})`,
    "≤ 0.5× anchor",
  );
  row("W1 Node-side ms", cell(get(ours, "w1.outerMs")));
  row(
    w2Figure,
    cell(get(ours, "w2.chunksPerSec"), 0),
    cell(get(raw, "w2.chunksPerSec"), 0),
    ratio(med(ours, "w2.chunksPerSec"), med(raw, "w2.chunksPerSec")),
    `${round(anchor.w2, 0)} (${ratio(med(ours, "w2.chunksPerSec"), anchor.w2)})`,
    "≥ 2× anchor, ≥ 0.67× raw",
  );
  row(
    "W2 rate between first and last chunk frame, frames/s",
    cell(get(ours, "w2.streamChunksPerSec"), 0),
    cell(get(raw, "w2.streamChunksPerSec"), 0),
    ratio(med(ours, "w2.streamChunksPerSec"), med(raw, "w2.streamChunksPerSec")),
  );
  row("W2 dispatch→first chunk frame, ms", cell(get(ours, "w2.firstChunkMs")), cell(get(raw, "w2.firstChunkMs")));
  row("W2 in-DO ms (the run, inside the parent)", cell(get(ours, "w2.innerMs")), cell(get(raw, "w2.innerMs")));
  row(
    "W2 without permessage-deflate†: chunk frames/s",
    cell(get(ours, "w2NoDeflate.chunksPerSec"), 0),
    cell(get(raw, "w2NoDeflate.chunksPerSec"), 0),
    ratio(med(ours, "w2NoDeflate.chunksPerSec"), med(raw, "w2NoDeflate.chunksPerSec")),
  );
  row(
    w3Figure,
    cell(get(ours, "w3.innerWallMs")),
    cell(get(raw, "w3Children.innerWallMs")),
    ratio(med(ours, "w3.innerWallMs"), med(raw, "w3Children.innerWallMs")),
    `${anchor.w3} (${ratio(med(ours, "w3.innerWallMs"), anchor.w3)})`,
    "≤ 0.5× anchor",
  );
  row(
    `W4 replay K=${P.w4Runs}×C=${P.w4Chunks}, warm: connect→all frames ms`,
    cell(get(ours, "w4.connectToAllMs")),
    cell(get(raw, "w4.connectToAllMs")),
    ratio(med(ours, "w4.connectToAllMs"), med(raw, "w4.connectToAllMs")),
    `${ANCHOR.w4} (${ratio(med(ours, "w4.connectToAllMs"), ANCHOR.w4)})`,
    "≤ 1/3 anchor, ≤ 1.5× raw",
  );
  row(
    "W4 replay inside the parent (replay call), ms",
    cell(get(ours, "w4.serverReplayMs")),
    cell(get(raw, "w4.serverReplayMs")),
    ratio(med(ours, "w4.serverReplayMs"), med(raw, "w4.serverReplayMs")),
  );
  row(
    "W4 without permessage-deflate†: connect→all frames ms",
    cell(get(ours, "w4NoDeflate.connectToAllMs")),
    cell(get(raw, "w4NoDeflate.connectToAllMs")),
    ratio(med(ours, "w4NoDeflate.connectToAllMs"), med(raw, "w4NoDeflate.connectToAllMs")),
  );
  row(
    "W4 replay frames / bytes",
    `${get(ours, "w4.framesReceived.0")} / ${get(ours, "w4.replayBytes")}`,
    `${get(raw, "w4.framesReceived.0")} / ${get(raw, "w4.replayBytes")}`,
  );
  row(
    "W4 children woken / child RPC calls during replays",
    `${get(ours, "w4.childrenWokenDuringReplays")} / ${JSON.stringify(get(ours, "w4.childCallsDuringReplays") ?? {})}`,
    "",
    "",
    "",
    "none woken",
  );
  row(
    "W4-cold (after a restart): connect→all frames ms",
    cell(get(ours, "w4cold.connectToAllMs")),
    cell(get(raw, "w4cold.connectToAllMs")),
    ratio(med(ours, "w4cold.connectToAllMs"), med(raw, "w4cold.connectToAllMs")),
  );
  const w5Child = get(ours, "w5.child.rowsWritten") - get(ours, "w5.childEmpty.rowsWritten");
  const w5Parent = get(ours, "w5.parent.rowsWritten");
  row(
    w5Figure,
    `${w5Parent} + ${w5Child} = ${w5Parent + w5Child}`,
    "",
    "",
    `${ANCHOR.w5Parent} + ${ANCHOR.w5Child} (${ratio(w5Parent + w5Child, ANCHOR.w5Parent + ANCHOR.w5Child)})`,
    "≤ 0.5× anchor",
  );
  row("W5 parent DB growth, bytes/run (amortized)", cell(get(ours, "w5.parent.growthBytesPerRun"), 0));
  const w5ParentBytes = get(ours, "w5.parent.growthBytesPerRun");
  const w5ChildBytes = get(ours, "w5.child.databaseSize") - get(ours, "w5.childEmpty.databaseSize");
  if (typeof w5ParentBytes === "number") {
    const anchorBytes = ANCHOR.w5ParentBytes + ANCHOR.w5ChildBytes;
    row(
      `W5 C=${P.w5Chunks}: bytes per run, parent (growth over ${P.w5GrowthRuns} runs) + child (− unused child)`,
      `${round(w5ParentBytes, 0)} + ${w5ChildBytes} = ${round(w5ParentBytes + w5ChildBytes, 0)}`,
      "",
      "",
      `${ANCHOR.w5ParentBytes} + ${ANCHOR.w5ChildBytes} (${ratio(w5ParentBytes + w5ChildBytes, anchorBytes)})`,
      "≤ anchor",
    );
  }
  const retention = get(ours, "retention");
  for (const shape of retention?.shapes ?? []) {
    const mib = (bytes) => round(bytes / 2 ** 20, 2);
    const size = (data) =>
      `${mib(data.databaseSizeAfter - data.databaseSizeBefore)} MiB (${round(data.databaseBytesPerRun, 0)} B/run)`;
    row(
      `parent DB after ${retention.runs} runs of C=${retention.chunks} (${shape.shape}): full logs · retainLogs { maxRuns: ${retention.maxRuns} } (pass of 20, ms: median, longest; a first pass, which lists)`,
      `${size(shape.full)} · ${size(shape.retained)} (${shape.retained.medianPassMs}, ${shape.retained.maxPassMs}; ${shape.retained.maxFirstPassMs})`,
    );
  }
  const reconnect = get(ours, "reconnect");
  if (reconnect) {
    const line = (label, data) =>
      row(
        `reconnect, ${label}: frames (chunk frames), connect→replay done ms`,
        `${data.frames} (${data.chunkFrames}), ${cell(data.connectToDoneMs)}`,
      );
    line("no cursors", reconnect.noCursors);
    line("full cursors", reconnect.fullCursors);
    line(`missed the last 10 % (${reconnect.missedLast10Percent.framesMissed} frames)`, reconnect.missedLast10Percent);
  }
  for (const shape of get(ours, "reconcile.shapes") ?? []) {
    const tick = (t) => `${t.ms} ms, ${t.rowsRead} rows read, ${t.due} due`;
    row(
      `reconcile tick (@agent-tools/detached), ${shape.retained} retained, ${shape.due} due: first tick (start) · due tick · idle tick`,
      `${tick(shape.firstTick)} · ${tick(shape.dueTick)}, ${shape.dueTick.delivered} delivered · ${tick(shape.idleTick)}`,
      "",
      "",
      "",
      "∝ due",
    );
  }
  const stop = get(ours, "stopCascade");
  if (stop) {
    row(
      `Stop cascade: ${stop.descendantsPerTurn} running descendants across 3 levels, every one's end after Stop, ms (p50 / p99 / max, ${stop.reps} turns)`,
      `${round(stop.endAfterStopMs.median, 0)} / ${round(stop.endAfterStopMs.p99, 0)} / ${round(stop.endAfterStopMs.max, 0)}`,
      "",
      "",
      "",
      "p99 ≤ 1000",
    );
    row(
      "Stop cascade: model calls started after Stop (per turn); statuses",
      `${stop.modelCallsAfterStop.join(", ")}; ${Object.entries(stop.statuses)
        .map(([status, count]) => `${status} ${count}`)
        .join(", ")}`,
      "",
      "",
      "",
      "0",
    );
  }
  // ── issue 32 ────────────────────────────────────────────────────────────────────────────────────────────────
  const again = get(ours, "regenerated");
  if (again) {
    row(
      `model output tokens made again after a child's host is cut (of ${again.uncutTokens} uncut): ${Object.keys(again.points).join(" / ")}`,
      Object.values(again.points)
        .map((point) => `${point.tokensAgain}${point.status === "completed" ? "" : ` (${point.status})`}`)
        .join(" / "),
      "",
      "",
      "",
      "0 but the cut step",
    );
  }
  // ── issue 27 ────────────────────────────────────────────────────────────────────────────────────────────────
  const chat = get(ours, "chat");
  if (chat) {
    row(
      `chat turn, one awaited child (C=${chat.chunksPerRun}): agent-tool turn − plain-tool turn, in-DO ms (${chat.turnsPerKind} turns each)`,
      `${cell(chat.awaitedChildOverheadMs)} (${cell(chat.agentToolTurnMs)} − ${cell(chat.plainToolTurnMs)})`,
      cell(chat.newDurableObjectRoundTripMs),
      "",
      "",
      "≤ 2 ms (raw: a round trip to a new object)",
    );
    row("chat turn without a model (fixed chunks), in-DO ms", cell(chat.fixedTurnMs));
  }
  const floorRatio = (realPath, floorPath, faster) => {
    const realValue = med(real, realPath);
    const floorValue = med(raw, floorPath);
    if (typeof realValue !== "number" || typeof floorValue !== "number") return "";
    return `${round(faster === "higher" ? realValue / floorValue : floorValue / realValue, 2)}× floor`;
  };
  if (get(raw, "w1StreamText")) {
    row(
      "real child W1 (C=10) vs streamText alone in the raw pipe's object, in-DO ms",
      `${cell(get(real, "w1.innerMs"))} (${floorRatio("w1.innerMs", "w1StreamText.innerMs", "lower")})`,
      cell(get(raw, "w1StreamText.innerMs")),
      "",
      "",
      "≥ 0.9× floor",
    );
  }
  if (get(raw, "w2StreamText")) {
    row(
      "real child W2 chunk frames/s vs streamText alone (the same frames from the raw pipe's object)",
      `${cell(get(real, "w2.chunksPerSec"), 0)} (${floorRatio("w2.chunksPerSec", "w2StreamText.chunksPerSec", "higher")})`,
      cell(get(raw, "w2StreamText.chunksPerSec"), 0),
      "",
      "",
      "≥ 0.9× floor",
    );
    row(
      "real child W2: dispatch→first / →last chunk frame, ms (streamText alone: the same)",
      `${cell(get(real, "w2.firstChunkMs"))} / ${cell(get(real, "w2.lastChunkMs"))}`,
      `${cell(get(raw, "w2StreamText.firstChunkMs"))} / ${cell(get(raw, "w2StreamText.lastChunkMs"))}`,
      "",
      "",
      "first as the model yields it",
    );
  }
  if (get(raw, "w3StreamText")) {
    row(
      "real child W3 (20×C=50) vs streamText alone ×20 at once, in-DO ms",
      `${cell(get(real, "w3.innerWallMs"))} (${floorRatio("w3.innerWallMs", "w3StreamText.innerWallMs", "lower")})`,
      cell(get(raw, "w3StreamText.innerWallMs")),
      "",
      "",
      "≥ 0.9× floor",
    );
  }
  for (const size of get(ours, "fanout.sizes") ?? []) {
    row(
      `fan-out: one chat turn of ${size.calls} awaited stub children (C=${get(ours, "fanout.chunksPerRun")}), in-DO ms; all terminal; V8 heap peak growth MiB`,
      `${size.turnMs} (the same turn with a plain tool ${size.plainTurnMs}: children ${size.childrenPartMs}; registry alone ${size.registryMs}); ${size.allTerminal ? "all terminal" : `NOT all terminal: ${JSON.stringify(size.statuses)}`}; heap +${size.heapPeakGrowthMiB}`,
      `${size.rawChildrenMs}; heap +${size.rawHeapPeakGrowthMiB}`,
      `${size.turnVersusRaw}× (children ${size.childrenPartVersusRaw}×, registry ${size.registryVersusRaw}×)`,
      "",
      "≤ 2× raw",
    );
  }
  if (get(ours, "fanout")) {
    row(
      "fan-out: time per run at the largest size ÷ at the smallest (1 = linear)",
      `turn ${get(ours, "fanout.turnLinearity")}, registry ${get(ours, "fanout.registryLinearity")}`,
      "",
      "",
      "",
      "linear",
    );
  }
  const history = get(ours, "history");
  if (history) {
    const shape = (name, key) =>
      `${cell(history[name][key])} (${round((history[name][key].median ?? 0) / Math.max(1, history.empty[key].median ?? 0), 2)}×)`;
    row(
      `history: chat turn without a model, in-DO ms: empty · ${history.historyMessages} messages · ${history.historyRuns} retained runs (÷ empty)`,
      `${cell(history.empty.fixedTurnMs)} · ${shape("conversation", "fixedTurnMs")} · ${shape("retainedRuns", "fixedTurnMs")}`,
      "",
      "",
      "",
      "≤ 1.2× empty",
    );
    row(
      "history: chat turn with one awaited child, in-DO ms: the same three parents",
      `${cell(history.empty.agentToolTurnMs)} · ${shape("conversation", "agentToolTurnMs")} · ${shape("retainedRuns", "agentToolTurnMs")}`,
      "",
      "",
      "",
      "≤ 1.2× empty",
    );
    row(
      "history: parent SQL rows read per turn (no model / one child), the same three parents",
      ["empty", "conversation", "retainedRuns"]
        .map((name) => `${history[name].rowsReadPerTurn.fixed} / ${history[name].rowsReadPerTurn.agentTool}`)
        .join(" · "),
    );
    row(
      "history: the first turn after the parent woke (no model / one child), in-DO ms, the same three parents",
      ["empty", "conversation", "retainedRuns"]
        .map((name) => `${history[name].firstFixedTurnMs} / ${history[name].firstAgentToolTurnMs}`)
        .join(" · "),
    );
  }
  const clients = get(ours, "historyClients");
  if (clients) {
    const shape = (rep) =>
      rep.refused
        ? `refused: ${rep.refused}`
        : `${rep.frames} (${rep.runs}), ${rep.bytes} B, ${cell(rep.connectToFirstMs)} / ${cell(rep.connectToDoneMs)}`;
    row(
      `history: a new client of a parent with ${clients.retainedRuns} retained runs, paging (${clients.page} a page): frames (runs), bytes, connect→first / →done ms`,
      shape(clients.newClient),
      "",
      "",
      "",
      "the runs it shows, paged",
    );
    row("history: … a client that does not page (every run at once)", shape(clients.newClientWithoutPaging));
    const again = clients.reconnectAfterOneNewRun;
    row(
      "history: the paging client reconnecting with its cursors after 1 new run: frames (runs), connect→first / →done ms; only the missed frames",
      `${shape(again)}; ${again.onlyMissed ? `only the missed run's ${again.missedRunFrames} frames` : "NOT only the missed frames"} (cursors ${again.cursorQueryBytes} B)`,
      "",
      "",
      "",
      "< 50 ms, only the missed frames",
    );
  }
  const memory = get(ours, "memory");
  if (memory) {
    const sizes = Object.keys(memory.cold);
    const series = (key) => sizes.map((size) => cell(memory.cold[size][key])).join(" / ");
    row(
      `memory: workerd RSS MiB, fresh process, parent over ${sizes.join(" / ")} retained runs: woken + 1 run`,
      series("wokenAndOneRunMiB"),
      "",
      "",
      "",
      "flat",
    );
    row("memory: … then after listing every run", series("afterListingMiB"));
    if (memory.startupRowsRead) {
      row(
        `start-up: SQL rows the parent reads from waking to ready, over ${sizes.join(" / ")} retained runs (none live or due)`,
        sizes.map((size) => memory.startupRowsRead[size]).join(" / "),
        "",
        "",
        "",
        "O(due + live), not O(retained)",
      );
    }
    row("memory: live process while seeding, RSS MiB", memory.liveProcess.map((step) => `${step.rssMiB}`).join(" → "));
  }
  return [
    `| figure | agent-tools | raw pipe§ | ÷ raw | real child‡ | anchor (${results.anchor?.w1 ? "this sitting" : "RESULTS.md, another sitting"}) | issue target |`,
    "|---|---|---|---|---|---|---|",
    ...rows,
    "",
    "‡ The real child (real-child/worker.ts): AgentToolChild + streamText over the scripted model, C + 6 chunks a run; its ratio is to the anchor's Think child in RESULTS.md (another sitting: compare in one sitting with the harness, README.md).",
    "§ W1 and W3's raw pipe: as many new objects, one RPC each (its `children` mode), taken in the same rounds; W2's: the frames made in its object, no child.",
    "† The harness's ws client offers permessage-deflate. Both servers here decline it (packages/cloudflare/src/websocket-upgrade.ts), so these rows, from a client that does not offer it, should match the ones above; with deflate accepted, W2/W4 measure mostly zlib per message.",
  ].join("\n");
}
