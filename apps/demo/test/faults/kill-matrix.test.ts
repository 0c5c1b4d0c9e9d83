import { mkdir, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import {
  createPersistDirectory,
  type MiniflareHost,
  type PersistDirectory,
} from "@agent-tools/workerd-harness/miniflare-host";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDemoHost } from "../harness/demo.js";
import { requestEnded } from "./kill-observe.js";
import {
  armFault,
  BINDINGS,
  type DeliveryVerdict,
  judgeDelivery,
  judgeTurn,
  killAtRandomMoment,
  killAtTurnPoint,
  killDuringDelivery,
  runReference,
  startTurn,
  TURN_POINTS,
  type TurnOutcome,
  type TurnVerdict,
} from "./kill-scenarios.js";

// The kill matrix (issue 17's figures): the kills of kill-parent-turn and kill-delivery, each repeated KILL_MATRIX
// times, plus KILL_RANDOM kills at seeded random moments of a paced turn (no fault point: wherever the turn is when
// the runtime dies). Counts the outcomes per point, prints them as a table and writes them to
// apps/demo/test-results/kill-matrix.json. Skipped unless KILL_MATRIX is set:
//
//   npx -y pnpm@10.34.9 --filter @agent-tools/demo kill-matrix           # KILL_MATRIX=10, KILL_RANDOM=40
//   KILL_MATRIX=3 KILL_RANDOM=10 KILL_SEED=7 npx vitest run --project demo apps/demo/test/faults/kill-matrix.test.ts

const perPoint = Number(process.env["KILL_MATRIX"] ?? 0);
const randomKills = Number(process.env["KILL_RANDOM"] ?? perPoint * 4);
const seed = Number(process.env["KILL_SEED"] ?? 1) >>> 0 || 1;
/** The random kills' turn: paced, so that it lasts long enough to be cut anywhere. */
const RANDOM_BINDINGS = { DEMO_PACE_MS: "20" };
/**
 * Each test's time budget: generous per kill (a loaded 2-core machine), since a test runs many; a delivery's kill may
 * wait out the claim's 60 s lease (where start-up does not take the delivery back).
 */
const budget = (kills: number, perKillMs = 30_000) => 60_000 + kills * perKillMs;
const RESULTS = fileURLToPath(new URL("../../test-results/kill-matrix.json", import.meta.url));

/** A count, or "" where it does not apply (a delivery's kill has no user message, tool call or child replay). */
type Count = number | "";

type Row = {
  point: string;
  kills: number;
  userMessageOnce: Count;
  toolCallOnce: Count;
  childRunOnce: Count;
  resumed: Count;
  interrupted: Count;
  missing: Count;
  /** An answer other than the uninterrupted run's (not resumed as it should be, not marked interrupted). */
  other: Count;
  partialFinished: number;
  clientError: number;
  childReplayEqual: Count;
  deliveredAtStartUp: Count;
  deliveredOnce: Count;
  /** What the client had seen when the runtime died (random kills): stage → count. */
  stages: string;
};

const rows: Row[] = [];
const turnVerdicts: Array<{ point: string; verdict: TurnVerdict }> = [];
const deliveryVerdicts: DeliveryVerdict[] = [];

function turnRow(point: string, verdicts: TurnVerdict[], stages: string[] = []): Row {
  const count = (test: (verdict: TurnVerdict) => boolean) => verdicts.filter(test).length;
  const tally = new Map<string, number>();
  for (const stage of stages) tally.set(stage, (tally.get(stage) ?? 0) + 1);
  return {
    point,
    kills: verdicts.length,
    userMessageOnce: count((verdict) => verdict.userMessageOnce),
    toolCallOnce: count((verdict) => verdict.toolCallOnce),
    childRunOnce: count((verdict) => verdict.childRunOnce),
    resumed: count((verdict) => verdict.answer === "resumed"),
    interrupted: count((verdict) => verdict.answer === "interrupted"),
    missing: count((verdict) => verdict.answer === "missing"),
    other: count((verdict) => verdict.answer === "other"),
    partialFinished: count((verdict) => verdict.partialFinished),
    clientError: count((verdict) => verdict.clientError),
    childReplayEqual: count((verdict) => verdict.childReplayEqual),
    deliveredAtStartUp: "",
    deliveredOnce: "",
    stages: [...tally.entries()].map(([stage, times]) => `${stage} ×${times}`).join("; "),
  };
}

/** xorshift32: the same seed, the same kill moments. */
function random(): () => number {
  let state = seed;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
}

describe.skipIf(!(perPoint > 0))(`kill matrix (KILL_MATRIX=${perPoint}, KILL_RANDOM=${randomKills})`, () => {
  let persist: PersistDirectory;
  let host: MiniflareHost;
  let reference: TurnOutcome;

  beforeAll(async () => {
    persist = await createPersistDirectory("agent-tools-kill-matrix-");
    host = await startDemoHost(persist, BINDINGS);
    reference = await runReference(host);
  });

  afterAll(async () => {
    if (rows.length > 0) {
      console.log(`\nKill matrix (KILL_MATRIX=${perPoint}, KILL_RANDOM=${randomKills}, KILL_SEED=${seed}):`);
      console.table(rows);
      const columns = Object.keys(rows[0] as Row) as Array<keyof Row>;
      const lines = [
        `| ${columns.join(" | ")} |`,
        `|${columns.map(() => "---").join("|")}|`,
        ...rows.map((row) => `| ${columns.map((column) => row[column]).join(" | ")} |`),
      ];
      console.log(lines.join("\n"));
      await mkdir(fileURLToPath(new URL("../../test-results/", import.meta.url)), { recursive: true });
      await writeFile(RESULTS, `${JSON.stringify({ perPoint, randomKills, seed, rows }, null, 2)}\n`);
    }
    await host?.dispose();
    await persist?.remove();
  });

  for (const point of TURN_POINTS) {
    it(
      `${perPoint} kills at ${point}`,
      async () => {
        const verdicts: TurnVerdict[] = [];
        for (let index = 0; index < perPoint; index += 1) {
          const kill = await killAtTurnPoint(host, point, `${point}-${index}`);
          const verdict = judgeTurn(kill, reference);
          verdicts.push(verdict);
          turnVerdicts.push({ point, verdict });
        }
        rows.push(turnRow(point, verdicts));
      },
      budget(perPoint),
    );
  }

  it(
    `${perPoint} kills during a background run's delivery (delivery-answer)`,
    async () => {
      const verdicts: DeliveryVerdict[] = [];
      for (let index = 0; index < perPoint; index += 1) {
        verdicts.push(judgeDelivery(await killDuringDelivery(host, `delivery-${index}`)));
      }
      deliveryVerdicts.push(...verdicts);
      const count = (test: (verdict: DeliveryVerdict) => boolean) => verdicts.filter(test).length;
      rows.push({
        point: "delivery-answer",
        kills: verdicts.length,
        userMessageOnce: "",
        toolCallOnce: "",
        childRunOnce: "",
        resumed: "",
        interrupted: "",
        missing: "",
        other: "",
        partialFinished: count((verdict) => verdict.partialFinished),
        clientError: count((verdict) => verdict.clientError),
        childReplayEqual: "",
        deliveredAtStartUp: count((verdict) => verdict.deliveredAtStartUp),
        deliveredOnce: count((verdict) => verdict.exactlyOnce),
        stages: "",
      });
    },
    budget(perPoint, 90_000),
  );

  it.runIf(randomKills > 0)(
    `${randomKills} kills at random moments of a turn (KILL_SEED=${seed})`,
    async () => {
      await armFault(host, null, RANDOM_BINDINGS);
      // How long the paced turn takes uninterrupted: the kills fall anywhere in it.
      const timed = await startTurn(host, "random-timing");
      const startedAt = performance.now();
      await timed.chat.waitFor((messages) => requestEnded(messages, "r-random-timing"), 60_000);
      const turnMs = performance.now() - startedAt;
      timed.chat.close();
      timed.events.close();
      const next = random();
      const verdicts: TurnVerdict[] = [];
      const stages: string[] = [];
      for (let index = 0; index < randomKills; index += 1) {
        const kill = await killAtRandomMoment(host, `random-${index}`, Math.floor(next() * turnMs));
        const verdict = judgeTurn(kill, reference);
        verdicts.push(verdict);
        stages.push(kill.stage);
        turnVerdicts.push({ point: "random", verdict });
      }
      rows.push(turnRow(`random (turn ≈ ${Math.round(turnMs)} ms)`, verdicts, stages));
    },
    budget(randomKills),
  );

  it("every kill kept the user message and the tool call once, one child run, an answer, and no client error", () => {
    const broken = turnVerdicts.filter(
      ({ verdict }) =>
        !verdict.userMessageOnce ||
        !verdict.toolCallOnce ||
        !verdict.childRunOnce ||
        verdict.answer === "missing" ||
        verdict.answer === "other" ||
        !verdict.partialFinished ||
        verdict.clientError,
    );
    expect(broken).toEqual([]);
    expect(
      deliveryVerdicts.filter(
        (verdict) =>
          !verdict.deliveredAtStartUp || !verdict.exactlyOnce || !verdict.partialFinished || verdict.clientError,
      ),
    ).toEqual([]);
  });
});
