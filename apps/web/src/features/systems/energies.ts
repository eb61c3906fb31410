/** energies.csv of a run (ARCHITECTURE §6): a header, then one numeric row per report. */
export interface EnergySeries {
  time: number[];
  potentialEnergy: number[];
  temperature: number[];
  density: number[];
  /** Box side A (nm) over time: energies.csv written since NPT existed has it, older ones not. */
  boxA?: number[];
}

/** Which header names each series, e.g. time_ps, potential_energy_kj_mol, temperature_k, density_g_cm3. */
const COLUMNS: Record<"time" | "potentialEnergy" | "temperature" | "density", RegExp> = {
  time: /^time/i,
  potentialEnergy: /^potential/i,
  temperature: /^temp/i,
  density: /^density/i,
};

const BOX_A = /^box_a/i;

/** Reads the series the plots need; throws when a column is missing or a value is not a number. */
export function parseEnergies(csv: string): EnergySeries {
  const [header, ...rows] = csv.trim().split(/\r?\n/);
  const names = (header ?? "").split(",").map((name) => name.trim());
  const column = (key: string, index: number) =>
    rows.map((row, line) => {
      const value = Number(row.split(",")[index]);
      if (!Number.isFinite(value)) throw new Error(`energies.csv line ${line + 2}: ${key} is not a number`);
      return value;
    });
  const series = {} as EnergySeries;
  for (const [key, pattern] of Object.entries(COLUMNS) as Array<[keyof typeof COLUMNS, RegExp]>) {
    const index = names.findIndex((name) => pattern.test(name));
    if (index < 0) throw new Error(`energies.csv has no ${key} column`);
    series[key] = column(key, index);
  }
  const box = names.findIndex((name) => BOX_A.test(name));
  if (box >= 0) series.boxA = column("boxA", box);
  return series;
}
