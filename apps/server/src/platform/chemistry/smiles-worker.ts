import { parentPort } from "node:worker_threads";
import {
  type BlockSmilesField,
  type CreatableBlockType,
  smilesIssuesByField,
} from "@polyforge/contracts/building-blocks";
import { RDKitFault, structureAtomCount } from "@polyforge/contracts/smiles/connection-rules";
import { loadRDKit } from "@polyforge/contracts/smiles/rdkit";

/** The RDKit WebAssembly module in a worker thread (see smiles-checker.ts). It says `ready` once the
 * module is loaded and has checked a known-good SMILES of each kind (which also compiles the code
 * those checks run, so the first real check is as quick as any), then answers one request at a
 * time; after a fault the thread ends, since the module's memory can no longer be trusted. */

export type SmilesWork =
  | { kind: "blockIssues"; type: CreatableBlockType; data: Partial<Record<BlockSmilesField, string>> }
  | { kind: "structureAtoms"; smiles: string };

export type SmilesRequest = SmilesWork & { id: number };

export type SmilesResponse = { ready: true } | { id: number; result: unknown } | { id: number; fault: string };

const PROBE = { repeating_unit: "[*:1]CC[*:2]" };

const port = parentPort;
if (!port) throw new Error("smiles-worker runs as a worker thread");

const rdkit = await loadRDKit();
if (structureAtomCount(rdkit, "CCO") !== 9 || Object.keys(smilesIssuesByField(rdkit, "linear", PROBE)).length > 0) {
  throw new Error("RDKit answered a known-good SMILES wrongly");
}
port.postMessage({ ready: true } satisfies SmilesResponse);

port.on("message", (request: SmilesRequest) => {
  try {
    const result =
      request.kind === "blockIssues"
        ? smilesIssuesByField(rdkit, request.type, request.data)
        : structureAtomCount(rdkit, request.smiles);
    port.postMessage({ id: request.id, result } satisfies SmilesResponse);
  } catch (error) {
    const fault = error instanceof RDKitFault ? error.message : `RDKit worker failed: ${String(error)}`;
    port.postMessage({ id: request.id, fault } satisfies SmilesResponse);
    // The module may be corrupt: end this thread; the checker starts a fresh one.
    process.exit(1);
  }
});
