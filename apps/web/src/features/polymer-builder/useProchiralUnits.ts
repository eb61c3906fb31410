import type { BuildingBlock } from "@polyforge/contracts/building-blocks";
import { type CompositionBlock, chainComposition } from "@polyforge/contracts/composition";
import { prochiralBackboneCentres } from "@polyforge/contracts/smiles/prochiral";
import { useQueries } from "@tanstack/react-query";
import { useMemo } from "react";
import { blockQueryOptions } from "../../lib/api/buildingBlock";
import { useRDKit } from "../../lib/chemistry/useRDKit";
import { useDraftSegments } from "./api/getDraftSegments";

/**
 * The names of the blocks whose repeating unit, among the chain units of these segments, has a
 * prochiral backbone centre its SMILES leaves open (issue 22: only those take a tacticity; a unit
 * whose SMILES draws the configuration keeps it). Empty until the blocks and RDKit are loaded.
 */
export function useProchiralUnits(segmentIds: readonly string[]): string[] {
  const segments = useDraftSegments();
  const chosen = useMemo(() => {
    const byId = new Map((segments.data?.data ?? []).map((s) => [s.id, s]));
    return segmentIds.flatMap((id) => byId.get(id) ?? []);
  }, [segments.data, segmentIds]);
  const blockIds = useMemo(
    () => [...new Set(chosen.flatMap((s) => s.blocks.map((b) => b.building_block_id)))].sort(),
    [chosen],
  );
  const blocks = useQueries({
    queries: blockIds.map((id) => blockQueryOptions(id)),
    combine: (results) => results.flatMap((r) => (r.data ? [r.data as BuildingBlock] : [])),
  });
  // RDKit (≈7 MB) is fetched once the polymer has a segment, not when the step opens.
  const rdkit = useRDKit(segmentIds.length > 0);
  const key = segmentIds.join(",");
  return useMemo(() => {
    if (!rdkit.data || chosen.length === 0) return [];
    const blockMap = new Map<string, CompositionBlock>(
      blocks.map((b) => [b.id, { id: b.id, name: b.name, type: b.type, data: b.data as Record<string, unknown> }]),
    );
    const composition = chainComposition(
      { id: key, segments: chosen.map((s, index) => ({ segment_id: s.id, occurrence: 1, order: index + 1 })) },
      new Map(chosen.map((s) => [s.id, s])),
      blockMap,
    );
    const names = new Set<string>();
    for (const unit of composition?.units ?? []) {
      if (unit.role !== "unit" || names.has(unit.blockName)) continue;
      if (prochiralBackboneCentres(rdkit.data, unit.smiles).open > 0) names.add(unit.blockName);
    }
    return [...names];
  }, [rdkit.data, chosen, blocks, key]);
}
