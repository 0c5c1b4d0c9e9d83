import { childTransportContract } from "./child-transport-contract.js";
import { contractChildDefinition } from "./child-transport-contract-cases.js";
import { InMemoryRunStore } from "./in-memory-run-store.js";
import { InProcessChildTransport } from "./in-process-child-transport.js";

childTransportContract(
  "InProcessChildTransport",
  () => new InProcessChildTransport({ children: [contractChildDefinition], createStore: () => new InMemoryRunStore() }),
);
