import { z } from "zod";

/** The measured properties of a result: report.json's `properties`, written by the engine's
 * simulate/properties.py (ARCHITECTURE §6). Read leniently: unknown keys are ignored, and a
 * result computed before properties existed has none. */

const range = z.object({ low: z.number(), high: z.number(), source: z.string() });
const stats = z.object({ mean: z.number(), std: z.number() });
const populations = z.object({
  count: z.number(),
  trans: z.number(),
  gauche_plus: z.number(),
  gauche_minus: z.number(),
});

export const chainProperties = z.object({
  name: z.string(),
  copies: z.number(),
  radius_of_gyration_a: stats,
  end_to_end_distance_a: stats.extend({ root_mean_square: z.number() }).optional(),
  backbone_bonds: z.number().optional(),
  internal_distances: z
    .object({
      m: z.array(z.number()),
      c_m: z.array(z.number()),
      c_infinity: z.number().nullable(),
      c_infinity_error: z.number().nullable().optional(),
      c_infinity_note: z.string().optional(),
      c_n: z.number(),
    })
    .optional(),
  torsions: z
    .object({
      by_atoms: z.record(z.string(), populations),
      all: populations.nullable(),
      consecutive_gauche_plus_minus: z.number().nullable(),
    })
    .optional(),
  meso_fraction: z.object({ value: z.number().nullable(), dyads: z.number() }).optional(),
  note: z.string().optional(),
  reference: z.object({ polymer: z.string(), c_infinity: range, density_g_cm3: range }).optional(),
});
export type ChainProperties = z.infer<typeof chainProperties>;

export const measuredProperties = z.object({
  density_g_cm3: z
    .object({
      mean: z.number(),
      std: z.number().optional(),
      drift_per_ns: z.number().optional(),
      part: z.string().optional(),
      from: z.string(),
    })
    .nullable(),
  chains: z.array(chainProperties),
});
export type MeasuredProperties = z.infer<typeof measuredProperties>;

/** The properties in a report.json text, null when the report has none; throws on a malformed one. */
export function parseMeasuredProperties(reportJson: string): MeasuredProperties | null {
  const report = JSON.parse(reportJson) as { properties?: unknown };
  if (report.properties === undefined) return null;
  return measuredProperties.parse(report.properties);
}
