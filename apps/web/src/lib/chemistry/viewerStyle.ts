/** Above this many atoms the viewer drops hydrogens and starts with lines, the cheapest style (a
 * 100 k atom melt then draws about a third of its atoms; bench/viewer measures it). */
export const LARGE_SYSTEM_ATOMS = 20_000;

/** 3Dmol's viewer settings for a structure of `atoms` atoms. 3Dmol antialiases by default with
 * multisampling and by drawing at twice the width and height (four times the pixels); above
 * LARGE_SYSTEM_ATOMS both are off, so each frame while the user turns the structure costs far less
 * (bench/viewer: about 5-15 times the frames per second in software WebGL); edges are jagged. */
export function viewerOptions(atoms: number) {
  return { backgroundColor: "white", antialias: atoms <= LARGE_SYSTEM_ATOMS };
}

export const REPRESENTATIONS = ["lines", "sticks", "ballAndStick", "spacefill"] as const;
export type Representation = (typeof REPRESENTATIONS)[number];
export const COLOURINGS = ["element", "molecule", "residue"] as const;
export type Colouring = (typeof COLOURINGS)[number];

/** Qualitative colours that stay apart on white (Tableau 10). */
const PALETTE = [
  "#4e79a7",
  "#f28e2b",
  "#e15759",
  "#76b7b2",
  "#59a14f",
  "#edc948",
  "#b07aa1",
  "#ff9da7",
  "#9c755f",
  "#bab0ac",
];

interface ViewerAtom {
  index?: number;
  resi?: number;
}

/** The 3Dmol style of a representation and colouring; `molecules` holds each atom's molecule. */
export function viewerStyle(representation: Representation, colouring: Colouring, molecules?: Int32Array) {
  const colour =
    colouring === "element"
      ? { colorscheme: "Jmol" }
      : {
          colorfunc: (atom: ViewerAtom) => {
            const group = colouring === "molecule" ? (molecules?.[atom.index ?? 0] ?? 0) : (atom.resi ?? 0);
            return PALETTE[Math.abs(group) % PALETTE.length];
          },
        };
  switch (representation) {
    case "lines":
      return { line: { ...colour } };
    case "sticks":
      return { stick: { radius: 0.15, ...colour } };
    case "ballAndStick":
      return { stick: { radius: 0.1, ...colour }, sphere: { scale: 0.25, ...colour } };
    case "spacefill":
      return { sphere: { scale: 1, ...colour } };
  }
}
