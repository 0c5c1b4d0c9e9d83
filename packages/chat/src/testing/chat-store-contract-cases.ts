import { assertEqual, assertTrue } from "@agent-tools/core-runs/testing";
import type { UIMessage, UIMessageChunk } from "ai";
import type { ChatStore, StoredChatTurn } from "../ports/chat-store.js";

/** One case of the `ChatStore` contract: a name, and a check that rejects when the implementation breaks the port. */
export type ChatStoreContractCase = {
  name: string;
  /** Runs against a fresh, empty store; resolves when the store keeps the contract, rejects otherwise. */
  run(store: ChatStore): Promise<void>;
};

/** A text message for tests. Each call returns a new object. */
export function makeChatMessage(id: string, role: UIMessage["role"] = "user", text = `text of ${id}`): UIMessage {
  return { id, role, parts: [{ type: "text", text }] };
}

/** A stored turn for tests: `turn-1`, started at 1000, with `overrides`. Each call returns a new object. */
export function makeStoredTurn(overrides: Partial<StoredChatTurn> = {}): StoredChatTurn {
  return {
    turnId: "turn-1",
    origin: "client",
    assistantMessageId: "answer-1",
    userMessageId: "user-1",
    startedAt: 1_000,
    resumeAttempts: 0,
    ...overrides,
  };
}

const delta = (text: string): UIMessageChunk => ({ type: "text-delta", id: "t", delta: text });
const ids = (messages: readonly UIMessage[]) => messages.map((message) => message.id);

/** A string of `length` UTF-16 units, with a surrogate pair (an emoji) straddling every 1 000th unit. */
function bigText(length: number): string {
  const unit = `${"a".repeat(999)}😀`;
  return unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
}

export const chatStoreContractCases: readonly ChatStoreContractCase[] = [
  {
    name: "a fresh store is empty",
    async run(store) {
      assertEqual(await store.messages(), [], "messages");
      assertEqual(await store.turns(), [], "turns");
      assertEqual(await store.turnChunks("turn-1"), [], "chunks");
      assertEqual(await store.hasMessage("u1"), false, "hasMessage");
    },
  },
  {
    name: "upsertMessage puts a new id last and replaces a known id where it is",
    async run(store) {
      assertEqual(await store.upsertMessage(makeChatMessage("u1")), true, "u1 is new");
      assertEqual(await store.upsertMessage(makeChatMessage("a1", "assistant")), true, "a1 is new");
      assertEqual(await store.upsertMessage(makeChatMessage("u2")), true, "u2 is new");
      assertEqual(await store.upsertMessage(makeChatMessage("a1", "assistant", "changed")), false, "a1 is known");
      assertEqual(ids(await store.messages()), ["u1", "a1", "u2"], "order");
      assertEqual((await store.messages())[1], makeChatMessage("a1", "assistant", "changed"), "replaced in place");
      assertEqual(await store.hasMessage("u2"), true, "hasMessage");
    },
  },
  {
    name: "truncateFrom drops the message and everything after it; an unknown id drops nothing",
    async run(store) {
      for (const id of ["u1", "a1", "u2", "a2"]) await store.upsertMessage(makeChatMessage(id));
      await store.truncateFrom("nope");
      assertEqual(ids(await store.messages()), ["u1", "a1", "u2", "a2"], "unknown id");
      await store.truncateFrom("u2");
      assertEqual(ids(await store.messages()), ["u1", "a1"], "after truncate");
      await store.upsertMessage(makeChatMessage("u3"));
      assertEqual(ids(await store.messages()), ["u1", "a1", "u3"], "a new message goes last");
    },
  },
  {
    name: "beginTurn stores the turn and its user message together; updateTurn changes the turn, its usage included",
    async run(store) {
      await store.beginTurn(makeStoredTurn(), makeChatMessage("user-1"));
      assertEqual(ids(await store.messages()), ["user-1"], "user message stored");
      assertEqual(await store.turns(), [makeStoredTurn()], "turn stored");
      await store.updateTurn(makeStoredTurn({ resumeAttempts: 2 }));
      assertEqual(await store.turns(), [makeStoredTurn({ resumeAttempts: 2 })], "turn updated");
      const usage = { inputTokens: 1_200, outputTokens: 340, runs: 2, cost: 0.0125 };
      await store.updateTurn(makeStoredTurn({ resumeAttempts: 2, usage }));
      assertEqual(await store.turns(), [makeStoredTurn({ resumeAttempts: 2, usage })], "the turn's usage kept");
      await store.beginTurn(makeStoredTurn({ turnId: "server-turn", origin: "server", startedAt: 2_000 }));
      assertEqual((await store.turns()).length, 2, "a turn without a user message");
      assertEqual(ids(await store.messages()), ["user-1"], "no message added");
    },
  },
  {
    name: "turns lists every stored turn, oldest first",
    async run(store) {
      await store.beginTurn(makeStoredTurn({ turnId: "late", startedAt: 3_000 }));
      await store.beginTurn(makeStoredTurn({ turnId: "early", startedAt: 1_000 }));
      await store.beginTurn(makeStoredTurn({ turnId: "middle", startedAt: 2_000 }));
      assertEqual(
        (await store.turns()).map((turn) => turn.turnId),
        ["early", "middle", "late"],
        "oldest first",
      );
    },
  },
  {
    name: "turnChunks returns appended batches in firstIndex order; a batch appended again replaces it",
    async run(store) {
      await store.beginTurn(makeStoredTurn());
      await store.appendTurnChunks("turn-1", 2, [delta("c"), delta("d")]);
      await store.appendTurnChunks("turn-1", 0, [delta("a"), delta("b")]);
      await store.appendTurnChunks("turn-1", 4, []);
      assertEqual(await store.turnChunks("turn-1"), [delta("a"), delta("b"), delta("c"), delta("d")], "in order");
      await store.appendTurnChunks("turn-1", 2, [delta("C"), delta("D")]);
      assertEqual(await store.turnChunks("turn-1"), [delta("a"), delta("b"), delta("C"), delta("D")], "replaced");
      assertEqual(await store.turnChunks("other-turn"), [], "another turn's chunks are its own");
    },
  },
  {
    name: "rewriteTurnChunks replaces every chunk of the turn",
    async run(store) {
      await store.beginTurn(makeStoredTurn());
      await store.appendTurnChunks("turn-1", 0, [delta("a"), delta("b")]);
      await store.appendTurnChunks("turn-1", 2, [delta("c")]);
      await store.rewriteTurnChunks("turn-1", [delta("kept")]);
      assertEqual(await store.turnChunks("turn-1"), [delta("kept")], "rewritten");
      await store.appendTurnChunks("turn-1", 1, [delta("next")]);
      assertEqual(await store.turnChunks("turn-1"), [delta("kept"), delta("next")], "appending goes on after it");
      await store.rewriteTurnChunks("turn-1", []);
      assertEqual(await store.turnChunks("turn-1"), [], "rewritten empty");
    },
  },
  {
    name: "finishTurn stores the answer and forgets the turn and its chunks; a null answer stores nothing",
    async run(store) {
      await store.beginTurn(makeStoredTurn(), makeChatMessage("user-1"));
      await store.appendTurnChunks("turn-1", 0, [delta("a")]);
      await store.finishTurn("turn-1", makeChatMessage("answer-1", "assistant"));
      assertEqual(ids(await store.messages()), ["user-1", "answer-1"], "answer stored");
      assertEqual(await store.turns(), [], "turn forgotten");
      assertEqual(await store.turnChunks("turn-1"), [], "chunks forgotten");
      await store.beginTurn(makeStoredTurn({ turnId: "turn-2", userMessageId: "user-2" }), makeChatMessage("user-2"));
      await store.finishTurn("turn-2", null);
      assertEqual(ids(await store.messages()), ["user-1", "answer-1", "user-2"], "no answer");
      assertEqual(await store.turns(), [], "turn-2 forgotten");
    },
  },
  {
    name: "what a read returns is a copy: changing it changes nothing stored",
    async run(store) {
      await store.upsertMessage(makeChatMessage("u1"));
      const [read] = await store.messages();
      if (read) read.parts = [];
      assertEqual(await store.messages(), [makeChatMessage("u1")], "unchanged");
    },
  },
  {
    name: "a message of 3 MB (Unicode across every split) is stored whole and read back equal",
    async run(store) {
      const big = makeChatMessage("big", "user", bigText(3_000_000));
      await store.upsertMessage(makeChatMessage("before"));
      assertEqual(await store.upsertMessage(big), true, "stored");
      await store.upsertMessage(makeChatMessage("after"));
      const read = await store.messages();
      assertEqual(ids(read), ["before", "big", "after"], "order");
      assertTrue(JSON.stringify(read[1]) === JSON.stringify(big), "the big message reads back equal");
      await store.upsertMessage(makeChatMessage("big", "user", "small now"));
      assertEqual((await store.messages())[1], makeChatMessage("big", "user", "small now"), "replaced by a small one");
    },
  },
  {
    name: "a turn's chunks of several MB (one chunk of 2.5 MB among them) are stored whole and read back equal",
    async run(store) {
      await store.beginTurn(makeStoredTurn(), makeChatMessage("user-1", "user", bigText(1_200_000)));
      const huge: UIMessageChunk = {
        type: "tool-input-available",
        toolCallId: "c1",
        toolName: "t",
        input: bigText(1_250_000),
      };
      const batch = [delta("start"), huge, delta("end")];
      await store.appendTurnChunks("turn-1", 0, batch);
      await store.appendTurnChunks("turn-1", 3, [delta(bigText(900_000))]);
      const read = await store.turnChunks("turn-1");
      assertEqual(read.length, 4, "every chunk");
      assertTrue(JSON.stringify(read) === JSON.stringify([...batch, delta(bigText(900_000))]), "read back equal");
      await store.rewriteTurnChunks("turn-1", [huge]);
      assertTrue(JSON.stringify(await store.turnChunks("turn-1")) === JSON.stringify([huge]), "rewritten whole");
      const answer = makeChatMessage("answer-1", "assistant", bigText(2_600_000));
      await store.finishTurn("turn-1", answer);
      const messages = await store.messages();
      assertTrue(JSON.stringify(messages[1]) === JSON.stringify(answer), "a 5 MB answer stored whole");
      assertEqual(await store.turnChunks("turn-1"), [], "chunks forgotten");
    },
  },
];
