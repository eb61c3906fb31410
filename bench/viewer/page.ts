// The viewer's own calls (apps/web StructureViewer): 3Dmol with the same wrapping and styles,
// bundled by run_bench.ts for a bare page, so the figures are the library's work on a large system.
import * as $3Dmol from "3dmol";
import { type CrystalCell, wrapMoleculesIntoCell } from "../../apps/web/src/lib/chemistry/periodicWrap";
import { type Representation, viewerOptions, viewerStyle } from "../../apps/web/src/lib/chemistry/viewerStyle";

const nextFrame = () => new Promise<number>((resolve) => requestAnimationFrame(resolve));

async function measure(
  pdb: string,
  representation: Representation,
  keepH: boolean,
  seconds: number,
  settings: "before" | "app",
  atoms: number,
) {
  const element = document.getElementById("viewer") as HTMLDivElement;
  element.replaceChildren();
  const started = performance.now();
  // "before": 3Dmol's defaults, the viewer's settings before large systems lost antialiasing
  // (multisampling, drawn at twice the width and height); "app": the viewer's settings today.
  const options = settings === "app" ? viewerOptions(atoms) : { backgroundColor: "white" };
  const viewer = $3Dmol.createViewer(element, options as never);
  const model = viewer.addModel(pdb, "pdb", { keepH });
  const parsed = performance.now();
  const cell = model.getCrystData() as CrystalCell;
  const molecules = wrapMoleculesIntoCell(model.selectedAtoms({}) as Parameters<typeof wrapMoleculesIntoCell>[0], cell);
  viewer.setStyle({}, viewerStyle(representation, "element", molecules) as never);
  viewer.addUnitCell(model, { box: { color: "purple" } } as never);
  viewer.zoomTo();
  viewer.render();
  // glFinish: the software renderer runs behind the page; the figures wait for its work to be done.
  const canvas = element.querySelector("canvas");
  const gl = canvas?.getContext("webgl2") ?? canvas?.getContext("webgl");
  await nextFrame();
  gl?.finish();
  const shown = performance.now();
  // Frames while the user turns the structure: one degree a frame, each frame drawn and presented.
  // rotate() redraws the scene the way a mouse drag does (3Dmol's show(); render() would also
  // rebuild the clickable-atom lists, which a drag does not).
  let frames = 0;
  const times: number[] = [];
  const spinStart = performance.now();
  let last = spinStart;
  while (performance.now() - spinStart < seconds * 1000) {
    viewer.rotate(1, "y");
    gl?.finish();
    const now = await nextFrame();
    times.push(now - last);
    last = now;
    frames++;
  }
  const elapsed = (performance.now() - spinStart) / 1000;
  times.sort((a, b) => a - b);
  const atomsShown = model.selectedAtoms({}).length;
  viewer.clear();
  // Free the WebGL context now, not at some later garbage collection that would land in the next
  // case's parse time.
  gl?.getExtension("WEBGL_lose_context")?.loseContext();
  element.replaceChildren();
  await nextFrame();
  return {
    representation,
    keepH,
    settings,
    antialias: options.antialias !== false,
    atomsShown,
    parseMs: Math.round(parsed - started),
    firstFrameMs: Math.round(shown - started),
    fps: Math.round((frames / elapsed) * 10) / 10,
    medianFrameMs: Math.round(times[Math.floor(times.length / 2)] ?? 0),
    molecules: molecules.reduce((max, label) => Math.max(max, label + 1), 0),
  };
}

(window as unknown as { measure: typeof measure }).measure = measure;
