/** The simulation protocol's fixed numbers, read by the builder's forms and requests
 * (polymer-builder.ts) and by the engine job (engine-job.ts), which engine/polyforge_engine/job.py
 * mirrors. Here, below both, so that the engine job need not import the builder's forms. */

/** The engine's time step (fs): the simulated time is steps × this. */
export const TIMESTEP_FS = 2;
/** Pressure bounds (bar) of NPT: above 0, at most 10 kbar (the melt equilibration's own peak of
 * 50 kbar is internal to it). */
export const MAX_PRESSURE_BAR = 10_000;
/** The melt equilibration runs 21 stages of at least 20 steps each. */
export const MELT_EQUILIBRATION_MIN_STEPS = 420;
