import type { BuildingBlock } from "@polyforge/contracts/building-blocks";
import {
  type ChainComposition,
  type CompositionBlock,
  type CompositionTotals,
  chainComposition,
  chainTotals,
  rdkitUnitMeasure,
} from "@polyforge/contracts/composition";
import { estimatedChainAtoms } from "@polyforge/contracts/job-limits";
import { useQueries } from "@tanstack/react-query";
import { useMemo } from "react";
import { blockQueryOptions } from "../../lib/api/buildingBlock";
import { useRDKit } from "../../lib/chemistry/useRDKit";
import { useDraftPolymers } from "./api/getDraftPolymers";
import { useDraftSegments } from "./api/getDraftSegments";

export interface PolymerComposition {
  polymerId: string;
  composition: ChainComposition;
  /** One chain's atoms (hydrogens included), heavy atoms and mass (g/mol); undefined until RDKit is loaded. */
  chain?: CompositionTotals;
  /** The server's estimate of one chain's atoms, hydrogens not counted (what the atom ceiling is checked on). */
  estimatedHeavyAtoms: number;
}

function loadedBlocks(results: ReadonlyArray<{ data?: BuildingBlock; isError: boolean }>) {
  return { data: results.flatMap((r) => (r.data ? [r.data] : [])), failed: results.some((r) => r.isError) };
}

/**
 * What each draft polymer's chain is made of (units per chain, atoms, mass), from the draft's
 * segments and the building blocks they use. `byPolymer` holds the polymers whose blocks are loaded.
 */
export function useDraftComposition() {
  const polymers = useDraftPolymers();
  const segments = useDraftSegments();
  const blockIds = useMemo(
    () => [...new Set((segments.data?.data ?? []).flatMap((s) => s.blocks.map((b) => b.building_block_id)))].sort(),
    [segments.data],
  );
  const blocks = useQueries({
    queries: blockIds.map((id) => blockQueryOptions(id)),
    combine: loadedBlocks,
  });
  const rdkit = useRDKit();
  const byPolymer = useMemo(() => {
    const segmentList = segments.data?.data ?? [];
    const blockList: CompositionBlock[] = blocks.data.map((b) => ({
      id: b.id,
      name: b.name,
      type: b.type,
      data: b.data as Record<string, unknown>,
    }));
    const segmentMap = new Map(segmentList.map((s) => [s.id, s]));
    const blockMap = new Map(blockList.map((b) => [b.id, b]));
    const estimates = estimatedChainAtoms({
      blocks: blockList,
      segments: segmentList,
      polymers: polymers.data?.data ?? [],
    });
    const measure = rdkit.data ? rdkitUnitMeasure(rdkit.data) : undefined;
    const out = new Map<string, PolymerComposition>();
    for (const polymer of polymers.data?.data ?? []) {
      const composition = chainComposition(polymer, segmentMap, blockMap);
      if (!composition) continue;
      out.set(polymer.id, {
        polymerId: polymer.id,
        composition,
        chain: measure ? chainTotals(composition, measure) : undefined,
        estimatedHeavyAtoms: estimates.get(polymer.id) ?? 0,
      });
    }
    return out;
  }, [polymers.data, segments.data, blocks.data, rdkit.data]);
  return { byPolymer, failed: blocks.failed || polymers.isError || segments.isError || rdkit.isError };
}
