import { parentPort } from "node:worker_threads";
import {
  type BlockSmilesField,
  type CreatableBlockType,
  smilesIssuesByField,
} from "@polyforge/contracts/building-blocks";
import { isParsableSmiles, RDKitFault } from "@polyforge/contracts/smiles/connection-rules";
import { loadRDKit } from "@polyforge/contracts/smiles/rdkit";

/** The RDKit WebAssembly module in a worker thread (see smiles-checker.ts). One request at a time;
 * after a fault the thread ends, since the module's memory can no longer be trusted. */

export type SmilesRequest =
  | { id: number; kind: "blockIssues"; type: CreatableBlockType; data: Partial<Record<BlockSmilesField, string>> }
  | { id: number; kind: "parsable"; smiles: string };

export type SmilesResponse = { id: number; result: unknown } | { id: number; fault: string };

const port = parentPort;
if (!port) throw new Error("smiles-worker runs as a worker thread");

port.on("message", async (request: SmilesRequest) => {
  try {
    const rdkit = await loadRDKit();
    const result =
      request.kind === "blockIssues"
        ? smilesIssuesByField(rdkit, request.type, request.data)
        : isParsableSmiles(rdkit, request.smiles);
    port.postMessage({ id: request.id, result } satisfies SmilesResponse);
  } catch (error) {
    const fault = error instanceof RDKitFault ? error.message : `RDKit worker failed: ${String(error)}`;
    port.postMessage({ id: request.id, fault } satisfies SmilesResponse);
    // The module may be corrupt: end this thread; the checker starts a fresh one.
    process.exit(1);
  }
});
