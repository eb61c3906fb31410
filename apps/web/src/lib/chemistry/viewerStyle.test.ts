import { LARGE_SYSTEM_ATOMS, viewerOptions, viewerStyle } from "./viewerStyle";

type Colour = (atom: { index?: number; resi?: number }) => string;

describe("the viewer's styles", () => {
  it("draws each representation with its own primitives", () => {
    expect(Object.keys(viewerStyle("lines", "element"))).toEqual(["line"]);
    expect(Object.keys(viewerStyle("sticks", "element"))).toEqual(["stick"]);
    expect(Object.keys(viewerStyle("ballAndStick", "element"))).toEqual(["stick", "sphere"]);
    expect(viewerStyle("spacefill", "element")).toEqual({ sphere: { scale: 1, colorscheme: "Jmol" } });
  });

  it("colours by element with Jmol's colours, by molecule and by residue with one colour each", () => {
    expect(viewerStyle("sticks", "element")).toMatchObject({ stick: { colorscheme: "Jmol" } });
    const molecules = Int32Array.from([0, 0, 1, 1]);
    const byMolecule = (viewerStyle("sticks", "molecule", molecules) as { stick: { colorfunc: Colour } }).stick
      .colorfunc;
    expect(byMolecule({ index: 0 })).toBe(byMolecule({ index: 1 }));
    expect(byMolecule({ index: 2 })).not.toBe(byMolecule({ index: 1 }));
    const byResidue = (viewerStyle("lines", "residue") as { line: { colorfunc: Colour } }).line.colorfunc;
    expect(byResidue({ resi: 3 })).toBe(byResidue({ resi: 3 }));
    expect(byResidue({ resi: 4 })).not.toBe(byResidue({ resi: 3 }));
  });
});

describe("the viewer's settings", () => {
  it("antialiases up to the large-system threshold and not above it (cheaper frames while turning)", () => {
    expect(viewerOptions(LARGE_SYSTEM_ATOMS)).toEqual({ backgroundColor: "white", antialias: true });
    expect(viewerOptions(LARGE_SYSTEM_ATOMS + 1)).toEqual({ backgroundColor: "white", antialias: false });
  });
});
