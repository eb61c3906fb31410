import type { FastifyBaseLogger } from "fastify";
import type { Config } from "../config";
import { type EngineExecutor, LocalExecutor } from "./executor";
import { SlurmExecutor } from "./slurm/executor";
import { StoreTransfer } from "./slurm/transfer";

/** The executor the settings choose (POLYFORGE_EXECUTOR). Apart from executor.ts, which the Slurm
 * executor implements, so that neither imports the other. */
export function createEngineExecutor(config: Config, logger: FastifyBaseLogger): EngineExecutor {
  if (config.executor === "slurm" && config.slurm) {
    const transfer = config.slurm.transfer === "store" ? StoreTransfer.fromConfig(config) : undefined;
    return new SlurmExecutor(config.slurm, logger, undefined, transfer);
  }
  return new LocalExecutor(config.maxJobs);
}
