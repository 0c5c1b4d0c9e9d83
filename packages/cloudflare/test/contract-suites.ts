// Every port contract the packages publish, listed once. `contract-suites.test.ts` runs each one in Node (against the
// in-memory implementation, through the package's vitest helper) and inside workerd (against the Durable Object
// adapter, in `fixtures/contract-worker.ts`, which bundles this same list). A contract added here and not to both
// environments is a type error in each of them. Framework-free: workerd loads this file.
import { chatStoreContractCases } from "@agent-tools/chat/testing";
import { childTransportContractCases, runStoreContractCases } from "@agent-tools/core-runs/testing";

export const CONTRACT_SUITES = {
  RunStore: runStoreContractCases,
  ChildTransport: childTransportContractCases,
  ChatStore: chatStoreContractCases,
} as const;

/** The port a contract is about: a key of `CONTRACT_SUITES`. */
export type ContractPort = keyof typeof CONTRACT_SUITES;

export const CONTRACT_PORTS = Object.keys(CONTRACT_SUITES) as ContractPort[];

export function isContractPort(value: string | null): value is ContractPort {
  return value !== null && Object.hasOwn(CONTRACT_SUITES, value);
}

/** The names of a contract's cases, in order (what the worker reports it bundled). */
export function contractCaseNames(port: ContractPort): string[] {
  return CONTRACT_SUITES[port].map((contractCase) => contractCase.name);
}
