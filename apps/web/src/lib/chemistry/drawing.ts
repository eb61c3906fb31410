import {
  dummyAtoms,
  isParsableSmiles,
  MAX_UNIT_ATOMS,
  smilesAtomCount,
} from "@polyforge/contracts/smiles/connection-rules";
import type { RDKitModule } from "@polyforge/contracts/smiles/rdkit";

// Head side [*:1] in blue, tail side [*:2] in orange (RGB 0..1 as RDKit expects).
const MARKER_COLOURS: Record<string, [number, number, number]> = {
  "1": [0.72, 0.84, 1],
  "2": [1, 0.8, 0.6],
};

/**
 * Draws a SMILES as a 2D SVG with every connection point labelled with its number and highlighted.
 * Returns null when RDKit cannot read the SMILES or it is larger than a unit (RDKit is not asked).
 * The SVG is RDKit's output: sanitise it before putting it in a page.
 */
export function drawConnectionSvg(
  rdkit: RDKitModule,
  smiles: string,
  size: { width: number; height: number },
): string | null {
  if (smilesAtomCount(smiles) > MAX_UNIT_ATOMS || !isParsableSmiles(rdkit, smiles)) return null;
  // Keep explicit H atoms so RDKit's atom indices follow the SMILES text, as dummyAtoms() counts them.
  const mol = rdkit.get_mol(smiles, JSON.stringify({ removeHs: false }));
  if (!mol) return null;
  try {
    const labelledMarkers = dummyAtoms(smiles).filter(
      (dummy) => dummy.labelText !== undefined && MARKER_COLOURS[dummy.labelText],
    );
    const atomLabels: Record<string, string> = {};
    const highlightAtomColors: Record<string, [number, number, number]> = {};
    for (const marker of labelledMarkers) {
      const label = marker.labelText as string;
      atomLabels[marker.atomIndex] = label;
      highlightAtomColors[marker.atomIndex] = MARKER_COLOURS[label] as [number, number, number];
    }
    return mol.get_svg_with_highlights(
      JSON.stringify({
        width: size.width,
        height: size.height,
        atoms: labelledMarkers.map((marker) => marker.atomIndex),
        atomLabels,
        highlightAtomColors,
        clearBackground: false,
        // Small units keep a readable scale instead of filling the canvas; text stays legible.
        fixedBondLength: 30,
        minFontSize: 12,
        maxFontSize: 18,
        padding: 0.1,
      }),
    );
  } finally {
    mol.delete();
  }
}
