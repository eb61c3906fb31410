import { useDraftBlocks } from "./api/getDraftBlocks";
import { useDraftPolymers } from "./api/getDraftPolymers";
import { useDraftSegments } from "./api/getDraftSegments";
import { useSetup } from "./api/getSetup";

export const STEPS = [1, 2, 3, 4, 5, 6] as const;
export type Step = (typeof STEPS)[number];
export type StepCompletion = Record<Exclude<Step, 6>, boolean>;

/**
 * SPEC §4: completion derived from the server draft — blocks when any draft block or a peptide
 * segment exists; segments, polymers and setup when each has an item; the protocol starts complete.
 * The lists are the same cached queries the steps update, so completion follows every change.
 */
export function useDraftProgress(): { completion: StepCompletion; loaded: boolean; failed: boolean } {
  const blocks = useDraftBlocks();
  const segments = useDraftSegments();
  const polymers = useDraftPolymers();
  const setup = useSetup();
  const queries = [blocks, segments, polymers, setup];
  const segmentList = segments.data?.data ?? [];
  return {
    completion: {
      1: (blocks.data?.metadata.num_records ?? 0) > 0 || segmentList.some((s) => s.type === "linear_peptide"),
      2: segmentList.length > 0,
      3: (polymers.data?.metadata.num_records ?? 0) > 0,
      4: Boolean(setup.data?.saved && setup.data.polymers.length > 0),
      5: true,
    },
    loaded: queries.every((q) => q.isSuccess),
    failed: queries.some((q) => q.isError),
  };
}

/** Steps 1 and 2 are always open (peptide segments skip step 1); a later step opens once the steps
 * from 2 up to it are complete. */
export function stepEnabled(step: Step, completion: StepCompletion): boolean {
  for (let s = 2; s < step; s++) if (!completion[s as keyof StepCompletion]) return false;
  return true;
}

/** The first step that keeps `step` closed (what the user has to finish first), or null. */
export function blockingStep(step: Step, completion: StepCompletion): Exclude<Step, 6> | null {
  for (let s = 2; s < step; s++) if (!completion[s as keyof StepCompletion]) return s as Exclude<Step, 6>;
  return null;
}

export function allStepsComplete(completion: StepCompletion): boolean {
  return Object.values(completion).every(Boolean);
}
