// A vitest setup file of every workspace project (`sourceProject`): fast-check's property tests run with one seed,
// `propertySeed(process.env)`, so a test run is deterministic; a test's own `seed` still wins.
import fc from "fast-check";
import { propertySeed } from "./property-seed.js";

const seed = propertySeed(process.env);
if (process.env["FC_SEED"]?.trim() === "random") console.info(`fast-check: FC_SEED=${seed}`);
fc.configureGlobal({ ...fc.readConfigureGlobal(), seed });
