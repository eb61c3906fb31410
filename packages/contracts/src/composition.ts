import type { SegmentType } from "./enums";
import { dummyAtoms } from "./smiles/connection-rules";
import type { RDKitModule } from "./smiles/rdkit";

/**
 * What a polymer chain is made of, unit by unit, as the engine's build plan expands it
 * (engine construct/sequence.py, ARCHITECTURE §5): linear segments give each block `occurrence` times
 * (random: `ratio × multiplier` times, in a seeded order; peptide: once per block occurrence), the
 * chain's head cap comes from its first unit's block and its tail cap from its last; a dendrimer
 * grows `generation + 1` shells of repeating units from its core, closed by tail units, with the
 * core sites its mask leaves out closed by the capping central unit.
 */

/** Caps of peptide chains (`synthetic` capping): free amine and free acid ends. */
export const PEPTIDE_HEAD_CAP = "[*:2][H]";
export const PEPTIDE_TAIL_CAP = "[*:1]O";

export type UnitRole = "unit" | "central" | "head" | "tail" | "capping";

export interface CompositionBlock {
  id: string;
  name: string;
  type: string;
  data: Record<string, unknown>;
}
export interface CompositionSegment {
  id: string;
  type: SegmentType;
  data: Record<string, unknown>;
  blocks: ReadonlyArray<{ building_block_id: string; order: number; occurrence: number | null; ratio: number | null }>;
}
export interface CompositionPolymer {
  id: string;
  segments: ReadonlyArray<{ segment_id: string; occurrence: number; order: number }>;
}

/** One kind of unit in a chain: a block's unit in a role, and how many of it one chain has. */
export interface UnitCount {
  blockId: string;
  blockName: string;
  role: UnitRole;
  smiles: string;
  perChain: number;
}

export interface ChainComposition {
  units: UnitCount[];
  /** False when a random segment opens or closes the chain with blocks whose caps differ: the caps
   * then depend on the seeded order, and the first listed block's are counted. */
  exact: boolean;
}

const text = (data: Record<string, unknown>, key: string): string =>
  typeof data[key] === "string" ? (data[key] as string) : "";

/** Connection points [*:2] (tail sides) of a unit. */
function tailSites(smiles: string): number {
  return dummyAtoms(smiles).filter((dummy) => dummy.labelText === "2").length;
}

function unitSmiles(block: CompositionBlock): { unit: string; head: string; tail: string } {
  // The API gives an aminoacid's residue as `repeating_unit` (AminoacidBlockData); only the engine's
  // job renames it `smiles`.
  if (block.type === "aminoacid")
    return { unit: text(block.data, "repeating_unit"), head: PEPTIDE_HEAD_CAP, tail: PEPTIDE_TAIL_CAP };
  return {
    unit: text(block.data, "repeating_unit"),
    head: text(block.data, "head_repeating_unit"),
    tail: text(block.data, "tail_repeating_unit"),
  };
}

class Tally {
  readonly counts = new Map<string, UnitCount>();
  add(block: CompositionBlock, role: UnitRole, smiles: string, count: number) {
    if (count <= 0) return;
    const key = `${block.id}|${role}|${smiles}`;
    const existing = this.counts.get(key);
    if (existing) existing.perChain += count;
    else this.counts.set(key, { blockId: block.id, blockName: block.name, role, smiles, perChain: count });
  }
}

/** Σ r^k for k = 0..n (0 when n < 0). */
function geometric(r: number, n: number): number {
  let sum = 0;
  for (let k = 0, power = 1; k <= n; k++, power *= r) sum += power;
  return sum;
}

function dendrimer(segment: CompositionSegment, block: CompositionBlock, tally: Tally) {
  const generation = Number(segment.data.generation_number ?? 0);
  const fromCore = segment.type === "dendrimer_from_central_unit";
  const repeating = text(block.data, "repeating_unit");
  const core = fromCore ? text(block.data, "central_unit") : repeating;
  const branches = tailSites(repeating);
  const coreSites = tailSites(core);
  const mask = Array.isArray(segment.data.mask) ? (segment.data.mask as unknown[]).map(Number) : [];
  const grown = mask.length === coreSites ? mask.filter(Boolean).length : coreSites;
  // Shells hang on the central unit from shell 0; on a repeating-unit core (shell 0) from shell 1.
  const firstShell = fromCore ? 0 : 1;
  const depth = generation - firstShell;
  tally.add(block, fromCore ? "central" : "unit", core, 1);
  if (!fromCore) tally.add(block, "head", text(block.data, "head_repeating_unit"), 1);
  tally.add(block, "capping", text(block.data, "capping_central_unit"), coreSites - grown);
  tally.add(block, "unit", repeating, grown * geometric(branches, depth));
  tally.add(block, "tail", text(block.data, "tail_repeating_unit"), grown * branches ** (depth + 1));
}

/** The units of one chain of `polymer`, or null while a segment or block it uses is not known. */
export function chainComposition(
  polymer: CompositionPolymer,
  segments: ReadonlyMap<string, CompositionSegment>,
  blocks: ReadonlyMap<string, CompositionBlock>,
): ChainComposition | null {
  const tally = new Tally();
  const ordered = [...polymer.segments].sort((a, b) => a.order - b.order);
  const used = ordered.map((link) => ({ link, segment: segments.get(link.segment_id) }));
  if (used.some(({ segment }) => !segment)) return null;
  const dendrimerSegment = used.find(({ segment }) => segment?.type.startsWith("dendrimer"))?.segment;
  if (dendrimerSegment) {
    const block = blocks.get(dendrimerSegment.blocks[0]?.building_block_id ?? "");
    if (!block) return null;
    dendrimer(dendrimerSegment, block, tally);
    return { units: [...tally.counts.values()], exact: true };
  }
  // Linear: every block of every segment, in order, with how many of it one pass of the segment has.
  const passes: Array<{ segment: CompositionSegment; occurrence: number; entries: Array<[CompositionBlock, number]> }> =
    [];
  for (const { link, segment } of used) {
    if (!segment) return null;
    const refs = [...segment.blocks].sort((a, b) => a.order - b.order);
    const entries: Array<[CompositionBlock, number]> = [];
    const ratioSum = refs.reduce((sum, ref) => sum + (ref.ratio ?? 0), 0);
    const multiplier = ratioSum > 0 ? Math.floor(Number(segment.data.total_building_blocks ?? 0) / ratioSum) : 0;
    for (const ref of refs) {
      const block = blocks.get(ref.building_block_id);
      if (!block) return null;
      const count = segment.type === "linear_random" ? (ref.ratio ?? 0) * multiplier : (ref.occurrence ?? 1);
      entries.push([block, count]);
    }
    passes.push({ segment, occurrence: link.occurrence, entries });
  }
  for (const { occurrence, entries } of passes)
    for (const [block, count] of entries) tally.add(block, "unit", unitSmiles(block).unit, count * occurrence);
  const present = passes.filter((pass) => pass.occurrence > 0);
  const first = present.find((pass) => pass.entries.some(([, count]) => count > 0));
  const last = [...present].reverse().find((pass) => pass.entries.some(([, count]) => count > 0));
  let exact = true;
  const capOf = (pass: typeof first, end: "head" | "tail") => {
    if (!pass) return;
    const live = pass.entries.filter(([, count]) => count > 0).map(([block]) => block);
    const block = end === "head" ? live[0] : live[live.length - 1];
    if (!block) return;
    if (pass.segment.type === "linear_random" && new Set(live.map((b) => unitSmiles(b)[end])).size > 1) exact = false;
    tally.add(block, end, unitSmiles(block)[end], 1);
  };
  capOf(first, "head");
  capOf(last, "tail");
  return { units: [...tally.counts.values()], exact };
}

/** What a unit adds to a chain: its atoms (hydrogens included, connection points not) and mass. */
export interface UnitMeasure {
  atoms: number;
  heavyAtoms: number;
  /** g/mol */
  mass: number;
}

export interface CompositionTotals {
  atoms: number;
  heavyAtoms: number;
  mass: number;
}

/** Atoms and mass of a chain from its units, given how each unit's SMILES measures (RDKit). */
export function chainTotals(
  composition: ChainComposition,
  measure: (smiles: string) => UnitMeasure,
): CompositionTotals {
  const totals = { atoms: 0, heavyAtoms: 0, mass: 0 };
  for (const unit of composition.units) {
    const m = measure(unit.smiles);
    totals.atoms += m.atoms * unit.perChain;
    totals.heavyAtoms += m.heavyAtoms * unit.perChain;
    totals.mass += m.mass * unit.perChain;
  }
  return totals;
}

/** Measures units with RDKit: implicit hydrogens counted, connection points (mass 0) not; each
 * SMILES read once. A unit RDKit cannot read measures as nothing. */
export function rdkitUnitMeasure(rdkit: RDKitModule): (smiles: string) => UnitMeasure {
  const cache = new Map<string, UnitMeasure>();
  return (smiles) => {
    const known = cache.get(smiles);
    if (known) return known;
    let measured: UnitMeasure = { atoms: 0, heavyAtoms: 0, mass: 0 };
    const mol = rdkit.get_mol(smiles);
    try {
      if (mol?.is_valid()) {
        const descriptors = JSON.parse(mol.get_descriptors()) as Record<string, number>;
        measured = {
          atoms: (descriptors.NumAtoms ?? 0) - dummyAtoms(smiles).length,
          heavyAtoms: descriptors.NumHeavyAtoms ?? 0,
          mass: descriptors.amw ?? 0,
        };
      }
    } finally {
      mol?.delete();
    }
    cache.set(smiles, measured);
    return measured;
  };
}
