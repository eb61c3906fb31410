import { Box } from "@mantine/core";
import { useEffect, useRef } from "react";

/** Above this many atoms the viewer drops hydrogens and draws lines, the cheapest style (a 100 k
 * atom melt then shows about a third of its atoms); below it, every atom as sticks. */
const LARGE_SYSTEM_ATOMS = 20_000;

export interface StructureViewerProps {
  /** PDB text with a CRYST1 record (the periodic box). */
  pdb: string;
  atoms: number;
  label: string;
}

interface CrystData {
  a: number;
  b: number;
  c: number;
  alpha: number;
  beta: number;
  gamma: number;
}

/** zoomTo centres on the atoms; molecules are kept whole, so in a periodic system they stick out
 * across the faces and the cell would sit off-centre. Centre an orthorhombic cell instead (the
 * zoom already takes the cell in). The view's first three numbers are the scene's offset. */
function centreOnCell(viewer: { getView(): number[]; setView(view: number[]): unknown }, cell: CrystData | undefined) {
  if (!cell || [cell.alpha, cell.beta, cell.gamma].some((angle) => Math.abs(angle - 90) > 1e-3)) return;
  const view = viewer.getView();
  view[0] = -cell.a / 2;
  view[1] = -cell.b / 2;
  view[2] = -cell.c / 2;
  viewer.setView(view);
}

/**
 * An interactive 3D view of a structure with its periodic box (3Dmol.js, WebGL). Loaded lazily:
 * the library is fetched only when a completed run is shown.
 */
export default function StructureViewer({ pdb, atoms, label }: StructureViewerProps) {
  const container = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const element = container.current;
    if (!element) return;
    let disposed = false;
    let viewer: { clear(): void } | undefined;
    void import("3dmol").then(($3Dmol) => {
      if (disposed) return;
      const glViewer = $3Dmol.createViewer(element, { backgroundColor: "white" });
      const large = atoms > LARGE_SYSTEM_ATOMS;
      const model = glViewer.addModel(pdb, "pdb", { keepH: !large });
      glViewer.setStyle(
        {},
        large ? { line: { colorscheme: "Jmol" } } : { stick: { radius: 0.12, colorscheme: "Jmol" } },
      );
      glViewer.addUnitCell(model, { box: { color: "purple" } });
      glViewer.zoomTo();
      centreOnCell(glViewer, model.getCrystData());
      glViewer.render();
      viewer = glViewer;
    });
    return () => {
      disposed = true;
      viewer?.clear();
      element.replaceChildren();
    };
  }, [pdb, atoms]);

  return (
    <Box
      ref={container}
      role="img"
      aria-label={label}
      data-testid="structure-viewer"
      pos="relative"
      h={420}
      style={{ border: "1px solid var(--mantine-color-gray-3)", borderRadius: 8, overflow: "hidden" }}
    />
  );
}
