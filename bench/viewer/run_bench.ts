/**
 * The 3D viewer on a 100 k atom melt (issue 24: "stays smooth on 100 k atoms"): time to the first
 * frame and frames per second while the structure turns, for each representation, in Debian's
 * Chromium (headless, software WebGL: SwiftShader on the CPU, no GPU on this machine; a desktop
 * browser with a GPU renders faster), with 3Dmol's default settings and with the viewer's own. Run: `npx tsx bench/viewer/run_bench.ts`; results in
 * bench/viewer/out/results.json.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { chromium } from "playwright";

const here = import.meta.dirname;
const out = join(here, "out");
mkdirSync(out, { recursive: true });

/** A polyethylene melt as the engine's viewer file writes one: CRYST1, HETATM with elements, CONECT
 * for every bond; chains whole, some sticking out of the cell (their atoms past the faces). */
function meltPdb(chains: number, units: number): { text: string; atoms: number } {
  const side = Math.cbrt(chains) * 30;
  const lines = [
    `CRYST1${[side, side, side].map((v) => v.toFixed(3).padStart(9)).join("")}  90.00  90.00  90.00 P 1           1`,
  ];
  const conect: string[] = [];
  let serial = 0;
  let seed = 17;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const atom = (name: string, residue: number, x: number, y: number, z: number, element: string) => {
    serial += 1;
    lines.push(
      `HETATM${String(serial).padStart(5)} ${name.padEnd(3)}  PE  ${String(residue % 10000).padStart(4)}    ${x.toFixed(3).padStart(8)}${y.toFixed(3).padStart(8)}${z.toFixed(3).padStart(8)}  1.00  0.00          ${element.padStart(2)}`,
    );
    return serial;
  };
  let residue = 0;
  for (let chain = 0; chain < chains; chain++) {
    // A zigzag backbone (1.27 Å per carbon along its axis) wandering through the cell.
    let [x, y, z] = [random() * side, random() * side, random() * side];
    const [dx, dy, dz] = [random() - 0.5, random() - 0.5, random() - 0.5];
    const norm = Math.hypot(dx, dy, dz);
    let previous = 0;
    for (let carbon = 0; carbon < 2 * units; carbon++) {
      if (carbon % 2 === 0) residue += 1;
      x += (1.27 * dx) / norm;
      y += (1.27 * dy) / norm + (carbon % 2 ? 0.4 : -0.4);
      z += (1.27 * dz) / norm;
      const c = atom("C", residue, x, y, z, "C");
      const hydrogens = carbon === 0 || carbon === 2 * units - 1 ? 3 : 2;
      const bonded = previous ? [previous] : [];
      for (let h = 0; h < hydrogens; h++) {
        const angle = (2 * Math.PI * h) / hydrogens;
        const hydrogen = atom("H", residue, x + 0.3, y + Math.cos(angle) * 0.9, z + Math.sin(angle) * 0.9, "H");
        bonded.push(hydrogen);
      }
      // One record per carbon with its partners (a repeated pair would read as a double bond).
      conect.push(`CONECT${String(c).padStart(5)}${bonded.map((b) => String(b).padStart(5)).join("")}`);
      previous = c;
    }
  }
  return { text: [...lines, ...conect, "END", ""].join("\n"), atoms: serial };
}

const { text: pdb, atoms } = meltPdb(166, 100);
const bundle = join(out, "page.js");
await build({
  entryPoints: [join(here, "page.ts")],
  bundle: true,
  format: "iife",
  outfile: bundle,
  logLevel: "warning",
});
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader"],
});
const page = await browser.newPage({ viewport: { width: 1000, height: 700 } });
await page.setContent('<div id="viewer" style="position:relative;width:900px;height:600px"></div>');
await page.addScriptTag({ content: readFileSync(bundle, "utf8") });
const renderer = await page.evaluate(() => {
  const gl = document.createElement("canvas").getContext("webgl2");
  const info = gl?.getExtension("WEBGL_debug_renderer_info");
  return info && gl ? String(gl.getParameter(info.UNMASKED_RENDERER_WEBGL)) : "unknown";
});
const load = [loadavg()[0]];
const runs: Array<{ representation: string; keepH: boolean; settings: string; fps: number }> = [];
// Above 20,000 atoms the viewer drops hydrogens (keepH false) and starts with lines; the other
// representations are a click away. Lines with hydrogens kept shows what dropping them saves.
// Each case twice, one right after the other: with 3Dmol's defaults (the viewer before it turned
// antialiasing off for large systems) and with the viewer's settings today, so the ratio of the
// two is measured under the same load; which goes first alternates from case to case.
const cases = [
  ["lines", false],
  ["sticks", false],
  ["ballAndStick", false],
  ["spacefill", false],
  ["lines", true],
] as const;
for (const [index, [representation, keepH]] of cases.entries()) {
  const order = index % 2 === 0 ? (["before", "app"] as const) : (["app", "before"] as const);
  for (const settings of order) {
    const result = await page.evaluate(
      ([text, rep, h, s, n]) =>
        (
          window as unknown as {
            measure: (p: string, r: string, k: boolean, seconds: number, s: string, n: number) => Promise<unknown>;
          }
        ).measure(text, rep, h, 5, s, n),
      [pdb, representation, keepH, settings, atoms] as const,
    );
    console.log(JSON.stringify(result));
    runs.push(result as (typeof runs)[number]);
  }
  const pair = runs.slice(-2);
  const before = pair.find((run) => run.settings === "before");
  const after = pair.find((run) => run.settings === "app");
  console.log(
    `${representation}${keepH ? " with H" : ""}: ${before?.fps} -> ${after?.fps} frames/s (x${((after?.fps ?? 0) / (before?.fps || 1)).toFixed(1)})`,
  );
}
load.push(loadavg()[0]);
await browser.close();
const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
const chromiumVersion = execFileSync(process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", ["--version"], {
  encoding: "utf8",
}).trim();
writeFileSync(
  join(out, "results.json"),
  `${JSON.stringify({ commit, atoms, chromium: chromiumVersion, renderer, cores: cpus().length, load, runs }, null, 2)}\n`,
);
console.log(`atoms ${atoms}, renderer ${renderer}, load ${load.map((l) => l.toFixed(1)).join(" -> ")}`);
