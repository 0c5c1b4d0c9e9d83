// Tree budgets as a property (issue 25), over thousands of random trees of runs spending random steps in a random
// interleaving, with usage reports travelling up and wrap-up signals travelling down as messages delivered at random
// later moments (as between Durable Objects): the real RunBudget, narrowBudget and budgetRejection decide.
// A model call takes time: it starts (the budget decides: call, wrap-up or refuse) and finishes later (its usage is
// recorded), and other runs step, report and dispatch in between, as runs stepping in parallel do.
// - never widened: a run's budget is never wider than what its parent had left when it dispatched it;
// - overshoot per run: once a run's budget is out, it starts one model call at most (its wrap-up); so whatever the
//   reports' delays, a run spends itself at most its share (the tokens it was given) plus two steps: the call under
//   way when its budget ran out, and its wrap-up;
// - overshoot of the tree, with reports delivered at once: when the tree's spending reaches its limit (the end of the
//   call that crosses it), every run live then has at most one call under way (the crossing one among them) and
//   starts at most one after (its wrap-up), so the tree spends at most its limit plus two steps per run live then.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type AgentToolBudget, type AgentToolTree, dispatchTree } from "../protocol/index.js";
import { budgetRejection } from "../registry/run-machine.js";
import { ManualClock } from "../testing/manual-clock.js";
import { RunBudget } from "./run-budget.js";

/**
 * CPU-heavy (thousands of random trees): a time budget of its own. vitest's five-second default is for unit tests, and
 * a busy machine runs this several times slower than an idle one; the budget still ends a test that hangs.
 */
const CPU_HEAVY = { timeout: 60_000 };

type Plan = { steps: number[]; dispatchAfter: number; children: Plan[] };

const planArbitrary: fc.Arbitrary<Plan> = fc.letrec((tie) => ({
  plan: fc.record({
    steps: fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 6 }),
    dispatchAfter: fc.nat({ max: 3 }),
    children: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      fc.constant<Plan[]>([]),
      fc.array(tie("plan") as fc.Arbitrary<Plan>, { maxLength: 3 }),
    ),
  }),
})).plan;

type Node = {
  id: number;
  parent: Node | null;
  plan: Plan;
  tree: AgentToolTree;
  budget: RunBudget;
  stepIndex: number;
  isDone: boolean;
  dispatched: boolean;
  callsAfterExhausted: number;
  isExhausted: boolean;
  /** The size of the model call under way (started, not yet finished), or null. */
  inFlight: number | null;
  /** Tokens this run's own model calls spent. */
  spent: number;
  callsAfterCrossing: number;
  children: Node[];
  /** What the parent had left when it dispatched this run. */
  parentLeft: AgentToolBudget | undefined;
};

type Message = { kind: "report"; to: Node; from: Node } | { kind: "wrap-up"; to: Node };

function simulate(root: Plan, limits: AgentToolBudget, choices: number[], deliverAtOnce: boolean) {
  const clock = new ManualClock(0);
  const nodes: Node[] = [];
  const pending: Message[] = [];
  const limit = limits.maxTokens ?? Number.POSITIVE_INFINITY;
  let spentInAll = 0;
  // The moment the tree's spending reached its limit: the runs live then, and those with a call under way.
  let crossed = false;
  let liveAtCrossing: Node[] = [];
  let underWayAtCrossing: Node[] = [];
  let nextId = 0;

  const make = (plan: Plan, parent: Node | null, tree: AgentToolTree, parentLeft: AgentToolBudget | undefined) => {
    const node = {} as Node;
    Object.assign(node, {
      id: nextId++,
      parent,
      plan,
      tree,
      stepIndex: 0,
      isDone: false,
      dispatched: false,
      callsAfterExhausted: 0,
      isExhausted: false,
      inFlight: null,
      spent: 0,
      callsAfterCrossing: 0,
      children: [],
      parentLeft,
      budget: new RunBudget({
        budget: tree.budget,
        clock,
        onChange: () => {
          if (node.parent) pending.push({ kind: "report", to: node.parent, from: node });
        },
        onExhausted: () => {
          node.isExhausted = true;
          for (const child of node.children) pending.push({ kind: "wrap-up", to: child });
        },
      }),
    });
    nodes.push(node);
    return node;
  };

  const deliver = (message: Message) => {
    if (message.kind === "report") message.to.budget.recordChild(String(message.from.id), message.from.budget.total());
    else if (!message.to.isDone) message.to.budget.exhaust("tokens");
  };

  const step = (node: Node) => {
    // A call under way finishes: its usage is recorded (which may exhaust this run's budget and, by its reports,
    // its ancestors').
    if (node.inFlight !== null) {
      const size = node.inFlight;
      node.inFlight = null;
      node.spent += size;
      spentInAll += size;
      if (!crossed && spentInAll >= limit) {
        crossed = true;
        liveAtCrossing = nodes.filter((candidate) => !candidate.isDone);
        underWayAtCrossing = [node, ...nodes.filter((candidate) => candidate.inFlight !== null)];
      }
      node.budget.recordModelCall({ inputTokens: size, outputTokens: 0 });
      // A model may keep asking for steps after its wrap-up: only the budget stops it.
      node.stepIndex += 1;
      return;
    }
    // Dispatch its children once it reached its dispatch point, each within what it has left.
    if (!node.dispatched && node.stepIndex >= node.plan.dispatchAfter) {
      node.dispatched = true;
      for (const childPlan of node.plan.children) {
        const left = node.budget.remaining();
        const position = {
          rootId: "root",
          path: [...node.tree.ancestors, { agentType: "Run", runId: String(node.id) }],
        };
        const tree = dispatchTree(left ? { ...position, budget: left } : position);
        if (budgetRejection(tree, clock.now()) !== null) continue;
        node.budget.recordDispatch();
        const maxRuns = tree.budget?.maxRuns;
        const counted = maxRuns === undefined ? tree : { ...tree, budget: { ...tree.budget, maxRuns: maxRuns - 1 } };
        node.children.push(make(childPlan, node, counted, left));
      }
    }
    const size = node.plan.steps[node.stepIndex];
    if (size === undefined) {
      // Its turn waits for the runs it dispatched (awaited), then ends.
      if (node.children.every((child) => child.isDone)) node.isDone = true;
      return;
    }
    const wasOut = node.isExhausted;
    const decision = node.budget.beforeModelCall();
    if (decision === "refuse") {
      node.stepIndex = node.plan.steps.length;
      return;
    }
    if (wasOut || node.isExhausted) node.callsAfterExhausted += 1;
    if (crossed) node.callsAfterCrossing += 1;
    node.inFlight = size;
  };

  const isWaiting = (node: Node) =>
    node.dispatched && node.inFlight === null && node.stepIndex >= node.plan.steps.length;
  make(root, null, { rootId: "root", ancestors: [], budget: limits }, undefined);
  for (let turn = 0; turn < 2_000; turn += 1) {
    const live = nodes.filter((node) => !node.isDone && !isWaiting(node));
    // A run that only waits for its children ends when they have.
    for (const node of nodes)
      if (!node.isDone && isWaiting(node) && node.children.every((child) => child.isDone)) node.isDone = true;
    if (live.length === 0 && pending.length === 0 && nodes.every((node) => node.isDone)) break;
    if (deliverAtOnce) while (pending.length > 0) deliver(pending.shift() as Message);
    const actions = live.length + pending.length;
    if (actions === 0) break;
    const choice = (choices[turn % Math.max(1, choices.length)] ?? 0) % actions;
    if (choice < live.length) step(live[choice] as Node);
    else deliver(pending.splice(choice - live.length, 1)[0] as Message);
  }
  return { nodes, liveAtCrossing, underWayAtCrossing, crossed };
}

const limitsArbitrary: fc.Arbitrary<AgentToolBudget> = fc.record(
  {
    maxTokens: fc.integer({ min: 1, max: 200 }),
    maxRuns: fc.integer({ min: 0, max: 12 }),
    maxDepth: fc.integer({ min: 1, max: 4 }),
  },
  { requiredKeys: ["maxTokens"] },
);

const widened = (child: AgentToolBudget | undefined, left: AgentToolBudget | undefined): boolean =>
  Object.entries(left ?? {}).some(([field, limit]) => {
    const value = child?.[field as keyof AgentToolBudget];
    return value === undefined || value > (limit as number);
  });

const largestStep = (plan: Plan): number => Math.max(...plan.steps, ...plan.children.map(largestStep));

describe("tree budgets, over random trees", CPU_HEAVY, () => {
  it("are never widened; once a run's budget is out it starts one model call at most, so it spends at most its share and two steps", () => {
    fc.assert(
      fc.property(
        planArbitrary,
        limitsArbitrary,
        fc.array(fc.nat(), { minLength: 1, maxLength: 64 }),
        (plan, limits, choices) => {
          const { nodes } = simulate(plan, limits, choices, false);
          const step = largestStep(plan);
          for (const node of nodes) {
            if (node.parent) expect(widened(node.tree.budget, node.parentLeft)).toBe(false);
            expect(node.callsAfterExhausted).toBeLessThanOrEqual(1);
            expect(node.inFlight).toBeNull();
            // Its share: the tokens it was given (the root: the limit). Below it, the call under way, the wrap-up.
            expect(node.spent).toBeLessThanOrEqual((node.tree.budget?.maxTokens ?? 0) + 2 * step);
          }
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it("with reports delivered at once: the tree spends at most its limit and two steps per run live when it reached it", () => {
    fc.assert(
      fc.property(
        planArbitrary,
        limitsArbitrary,
        fc.array(fc.nat(), { minLength: 1, maxLength: 64 }),
        (plan, limits, choices) => {
          const { nodes, liveAtCrossing, underWayAtCrossing, crossed } = simulate(plan, limits, choices, true);
          const spent = nodes.reduce((sum, node) => sum + node.spent, 0);
          if (!crossed) {
            expect(spent).toBeLessThan(limits.maxTokens ?? 0);
            return;
          }
          // Each run live then: at most one call under way (it finishes and counts), at most one started after.
          for (const node of underWayAtCrossing) expect(liveAtCrossing).toContain(node);
          for (const node of nodes) {
            expect(node.callsAfterCrossing).toBeLessThanOrEqual(liveAtCrossing.includes(node) ? 1 : 0);
          }
          const calls = underWayAtCrossing.length + nodes.reduce((sum, node) => sum + node.callsAfterCrossing, 0);
          expect(calls).toBeLessThanOrEqual(2 * liveAtCrossing.length);
          expect(spent).toBeLessThanOrEqual((limits.maxTokens ?? 0) + 2 * largestStep(plan) * liveAtCrossing.length);
        },
      ),
      {
        numRuns: 2_000,
        // A child whose last step crosses the limit and ends before its parent hears of it: it counts as live when
        // the limit was reached (measuring when the root heard missed its step).
        examples: [
          [
            {
              steps: [1, 1, 2, 15, 1],
              dispatchAfter: 0,
              children: [{ steps: [8, 15], dispatchAfter: 0, children: [] }],
            },
            { maxTokens: 11 },
            [43833471, 0],
          ],
        ],
      },
    );
  });
});
