import type { SlurmResources, SlurmSettings } from "./settings";

/** What a job's size says about its needs: atoms (estimated where the input has no count) and MD or
 * minimisation steps. */
export interface JobSize {
  atoms: number;
  steps: number;
}

/** Resources as submitted: every field the job needs, with the settings' names where given. */
export interface JobResources {
  partition?: string;
  account?: string;
  qos?: string;
  /** Slurm's time format (minutes, HH:MM:SS, D-HH:MM:SS). */
  time: string;
  cpus: number;
  /** Megabytes, or the setting's own spelling (8G). */
  memory: string;
  gpus: number;
}

/** Roughly how many atoms a repeating unit brings, hydrogens included (PE 6, PS 16, a residue ~19). */
const ATOMS_PER_UNIT = 12;
const MAX_MINUTES = 7 * 24 * 60;

/** The size of a build-system job from its snapshot (contracts engine-job): units of every polymer
 * copy, and the protocol's steps. Other kinds say `atoms` (or `atom_count`) and `steps` themselves
 * where they know them. */
export function jobSize(input: unknown): JobSize {
  const job = (input ?? {}) as Record<string, unknown>;
  const declaredAtoms = Number(job.atoms ?? job.atom_count);
  const protocol = (job.simulation_protocol ?? {}) as Record<string, unknown>;
  const steps =
    (protocol.minimization ? Number(protocol.minimization_steps) || 0 : 0) +
    (protocol.dynamics ? Number(protocol.dynamics_steps) || 0 : 0) +
    (Number(job.steps ?? job.minimization_steps) || 0);
  if (Number.isFinite(declaredAtoms) && declaredAtoms > 0) return { atoms: declaredAtoms, steps };
  return { atoms: unitsOf(job) * ATOMS_PER_UNIT, steps };
}

function unitsOf(job: Record<string, unknown>): number {
  const list = (value: unknown) => (Array.isArray(value) ? (value as Array<Record<string, unknown>>) : []);
  const segmentUnits = new Map<unknown, number>();
  for (const segment of list(job.segments)) {
    const data = (segment.data ?? {}) as Record<string, unknown>;
    segmentUnits.set(segment.id, Number(data.total_building_blocks) || list(segment.blocks).length || 1);
  }
  const polymerUnits = new Map<unknown, number>();
  for (const polymer of list(job.polymers)) {
    const units = list(polymer.segments).reduce(
      (sum, s) => sum + (segmentUnits.get(s.segment_id) ?? 1) * (Number(s.occurrence) || 1),
      0,
    );
    polymerUnits.set(polymer.id, units);
  }
  const setup = (job.system_setup ?? {}) as Record<string, unknown>;
  return list(setup.polymers).reduce(
    (sum, p) => sum + (polymerUnits.get(p.polymer_id) ?? 1) * (Number(p.occurrence) || 1),
    0,
  );
}

/** Defaults by kind and size: building and simulating scale with atoms × steps (about 5 M atom-steps
 * a minute on one core, with a quarter of an hour's margin); checks and conversions are small. */
export function defaultResources(kind: string, size: JobSize): Omit<JobResources, "partition" | "account" | "qos"> {
  /** `minutes` (at most MAX_MINUTES) on `cpus` cores, no GPU; memory `base` MB and `perThousandAtoms` MB more per 1000 atoms (at most 64 GB). */
  const cpuJob = (minutes: number, cpus: number, base: number, perThousandAtoms: number) => ({
    time: String(Math.min(MAX_MINUTES, minutes)),
    cpus,
    memory: `${Math.min(64 * 1024, base + Math.ceil(size.atoms / 1000) * perThousandAtoms)}M`,
    gpus: 0,
  });
  switch (kind) {
    case "build-system": {
      const minutes = 15 + Math.ceil((size.atoms * Math.max(size.steps, 1)) / 5_000_000 + size.atoms / 2_000);
      return cpuJob(minutes, 2, 2048, 64);
    }
    case "build-structure":
      return cpuJob(15 + Math.ceil(size.atoms / 2_000), 2, 2048, 64);
    case "generate-potential":
      return cpuJob(30 + Math.ceil(size.atoms / 500), 1, 2048, 32);
    default:
      return cpuJob(15, 1, 1024, 16);
  }
}

/** The job's resources: the kind's settings over the global settings over the size's defaults. */
export function resourcesFor(
  kind: string,
  size: JobSize,
  settings: Pick<SlurmSettings, "defaults" | "perKind">,
): JobResources {
  const own: SlurmResources = settings.perKind[kind as keyof SlurmSettings["perKind"]] ?? {};
  const base = defaultResources(kind, size);
  return {
    partition: own.partition ?? settings.defaults.partition,
    account: own.account ?? settings.defaults.account,
    qos: own.qos ?? settings.defaults.qos,
    time: own.time ?? settings.defaults.time ?? base.time,
    cpus: own.cpus ?? settings.defaults.cpus ?? base.cpus,
    memory: own.memory ?? settings.defaults.memory ?? base.memory,
    gpus: own.gpus ?? settings.defaults.gpus ?? base.gpus,
  };
}
