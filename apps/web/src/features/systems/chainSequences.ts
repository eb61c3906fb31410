/** The sequences of the chains a build drew one by one (random segments, engine construct/sequence.py):
 * report.json's `build.polymers`, one entry per distinct chain, several for a polymer whose random
 * segments were drawn for every chain. Read leniently: anything of another shape is left out. */

export interface DrawnChains {
  name: string;
  /** Every chain's residue names in order, one entry per chain (copies of a sequence repeated). */
  sequences: string[][];
}

interface BuiltPolymer {
  polymer_id?: unknown;
  name?: unknown;
  copies?: unknown;
  sequence?: unknown;
}

/** The polymers whose chains differ, in the report's order; empty when every polymer has one sequence. */
export function drawnChains(reportJson: string): DrawnChains[] {
  let report: unknown;
  try {
    report = JSON.parse(reportJson);
  } catch {
    return [];
  }
  const polymers = (report as { build?: { polymers?: unknown } } | null)?.build?.polymers;
  if (!Array.isArray(polymers)) return [];
  const byPolymer = new Map<string, DrawnChains>();
  for (const entry of polymers as BuiltPolymer[]) {
    const { polymer_id: id, name, copies, sequence } = entry ?? {};
    if (typeof id !== "string" || typeof name !== "string" || typeof copies !== "number") continue;
    if (!Array.isArray(sequence) || !sequence.every((residue) => typeof residue === "string")) continue;
    const drawn = byPolymer.get(id) ?? { name, sequences: [] };
    for (let copy = 0; copy < copies; copy++) drawn.sequences.push(sequence as string[]);
    byPolymer.set(id, drawn);
  }
  return [...byPolymer.values()].filter((drawn) => new Set(drawn.sequences.map((s) => s.join(" "))).size > 1);
}
