import type { ModelEnv } from "../model/select-model.js";
import type { FaultEnv } from "./fault-points.js";
import type { HoldEnv } from "./test-holds.js";

/** The demo Worker's bindings (`HoldEnv`'s `DEMO_HOLD_AFTER` is a test knob: test-holds.ts). */
export type Env = ModelEnv &
  FaultEnv &
  HoldEnv & {
    ASSISTANT: DurableObjectNamespace;
    /** The Assistant whose tools stream children as preliminary results (the stock-`useChat` page's). */
    PLAIN_ASSISTANT: DurableObjectNamespace;
    RESEARCHER: DurableObjectNamespace;
    SUMMARIZER: DurableObjectNamespace;
    IMPORTER: DurableObjectNamespace;
    EDITOR: DurableObjectNamespace;
    WRITER: DurableObjectNamespace;
    /** The built page (wrangler.jsonc's `assets`). */
    ASSETS: Fetcher;
    /** Signs run read tokens (a secret); read by `AgentToolParent`. */
    AGENT_TOOLS_RUN_TOKEN_SECRET?: string;
    DEBUG?: string;
    /** The `pollInterval` the Assistant's MCP tasks suggest, in ms (default 1 s; tests shorten it). */
    DEMO_MCP_POLL_MS?: string;
    /** Test knobs (fault tests). How often a background run is re-followed after a restart, in ms. */
    DETACHED_WATCH_INTERVAL_MS?: string;
    /**
     * How often, at most, the Assistant persists its position in a followed run, in ms (default 500). `0` writes every
     * forwarded entry at once: a crash then finds all of them stored (recovery tests).
     */
    FOLLOW_WRITE_INTERVAL_MS?: string;
    /** How long a background delivery's claim holds before it may be retried, in ms (default 60 s). */
    DEMO_DELIVERY_LEASE_MS?: string;
    /** "1": a child's `agentToolStart` never answers nor records the run (fault tests: "before the child starts"). */
    DEMO_HOLD_CHILD_START?: string;
    /** "1": a child's `agentToolDestroy` cancels the run, then never answers (fault tests: "during clear"). */
    DEMO_HOLD_CHILD_DESTROY?: string;
    /** "1": a background completion hangs once appended to the chat, before the model's answer (fault tests). */
    DEMO_HOLD_DELIVERIES?: string;
    /**
     * A user message's text: the first answer to each message with exactly this text fails after its first words (the
     * model stops with an error), and later ones — a Retry — answer (browser tests of a failed answer).
     */
    DEMO_FAIL_ONCE_TEXT?: string;
  };
