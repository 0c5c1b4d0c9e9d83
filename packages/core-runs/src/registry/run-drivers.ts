import { isLiveStatus, type RunStatus } from "../protocol/index.js";
import { type LiveRunView, RunDriver, type RunDriverOptions } from "./run-driver.js";
import { startAcknowledgedPatch } from "./run-machine.js";
import { applyRunPatch, type RunRecord } from "./run-record.js";

/**
 * The runs this registry drives in this process: one `RunDriver` per run (single-flight), forgotten when it ends.
 * @internal
 */
export class RunDrivers {
  readonly #options: RunDriverOptions;
  readonly #drivers = new Map<string, RunDriver>();

  constructor(options: RunDriverOptions) {
    this.#options = options;
  }

  get(runId: string): RunDriver | undefined {
    return this.#drivers.get(runId);
  }

  /** What the driver of a run holds beyond the stored copy, if it is driven here. */
  viewOf(runId: string): LiveRunView | undefined {
    return this.#drivers.get(runId)?.view;
  }

  /**
   * A stored row as this process knows the run: a start the child answered, whose acknowledgement rides on the run's
   * next write, shows as written (`running`, its revision, no input).
   */
  present(record: RunRecord): RunRecord {
    if (record.startAcknowledged || this.viewOf(record.runId)?.startAnswered !== true) return record;
    return applyRunPatch(record, startAcknowledgedPatch(record, this.#options.runtime.clock.now()));
  }

  /**
   * The stored runs of `status` (every run when absent or empty), oldest first, as this process knows them
   * (`present`): asked for `running` runs, it finds the answered starts stored `starting`.
   */
  async list(status?: readonly RunStatus[]): Promise<RunRecord[]> {
    const wanted = status?.length ? status : undefined;
    const asked =
      wanted?.includes("running") && !wanted.includes("starting") ? [...wanted, "starting" as const] : wanted;
    const records = await this.#options.runtime.store.listRuns(asked ? { status: asked } : {});
    return records.map((record) => this.present(record)).filter((record) => !wanted || wanted.includes(record.status));
  }

  /**
   * The run's driver: the one driving it already, or a new one started now. `created`: the row was inserted by this
   * process just now (so the parent holds no copy of its log yet).
   */
  drive(record: RunRecord, signal?: AbortSignal, created = false): RunDriver {
    const existing = this.#drivers.get(record.runId);
    if (existing) return existing;
    const driver = new RunDriver(record, this.#options, created);
    this.#drivers.set(record.runId, driver);
    const forget = () => {
      if (this.#drivers.get(record.runId) === driver) this.#drivers.delete(record.runId);
    };
    driver.done.then(forget, forget);
    driver.start(signal);
    return driver;
  }

  /** Stop driving a run that is being cleared (nothing more is written for it). */
  async clear(runId: string): Promise<void> {
    const driver = this.#drivers.get(runId);
    this.#drivers.delete(runId);
    await driver?.clear();
  }

  /**
   * Cancel a live run: its child ends `aborted` and the driver records it. A run not driven here (e.g. after a
   * restart, before recovery) is followed to collect that result. False for a run that is not live.
   */
  async cancel(record: RunRecord, reason: string): Promise<boolean> {
    if (!isLiveStatus(record.status)) return false;
    const existing = this.#drivers.get(record.runId);
    if (existing) {
      await existing.cancel(reason);
      return true;
    }
    const driver = this.drive(record);
    await driver.cancel(reason);
    await driver.done;
    return true;
  }
}
