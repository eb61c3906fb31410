/** energies.csv of a run (ARCHITECTURE §6): a header, then one numeric row per report. */
export interface EnergySeries {
  time: number[];
  potentialEnergy: number[];
  temperature: number[];
  density: number[];
}

/** Which header names each series, e.g. time_ps, potential_energy_kj_mol, temperature_k, density_g_cm3. */
const COLUMNS: Record<keyof EnergySeries, RegExp> = {
  time: /^time/i,
  potentialEnergy: /^potential/i,
  temperature: /^temp/i,
  density: /^density/i,
};

/** Reads the series the plots need; throws when a column is missing or a value is not a number. */
export function parseEnergies(csv: string): EnergySeries {
  const [header, ...rows] = csv.trim().split(/\r?\n/);
  const names = (header ?? "").split(",").map((name) => name.trim());
  const series = {} as EnergySeries;
  for (const [key, pattern] of Object.entries(COLUMNS) as Array<[keyof EnergySeries, RegExp]>) {
    const index = names.findIndex((name) => pattern.test(name));
    if (index < 0) throw new Error(`energies.csv has no ${key} column`);
    series[key] = rows.map((row, line) => {
      const value = Number(row.split(",")[index]);
      if (!Number.isFinite(value)) throw new Error(`energies.csv line ${line + 2}: ${key} is not a number`);
      return value;
    });
  }
  return series;
}
