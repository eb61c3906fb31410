/** A rough wall-clock duration for "time left": "2 h 5 min", "3 min 10 s", "40 s" (whole units,
 * the two largest; seconds dropped past an hour). */
export function formatDuration(seconds: number): string {
  const total = Math.max(0, Math.round(seconds));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const rest = total % 60;
  if (hours > 0) return minutes > 0 ? `${hours} h ${minutes} min` : `${hours} h`;
  if (minutes > 0) return rest > 0 ? `${minutes} min ${rest} s` : `${minutes} min`;
  return `${rest} s`;
}

/** Simulated time in the unit that reads best for the run's length: ps under 1 ns in all, else ns.
 * Answers the done and total values in that unit, with the unit. */
export function simulatedTime(doneNs: number, totalNs: number): { done: string; total: string; unit: "ps" | "ns" } {
  const [scale, unit] = totalNs < 1 ? [1000, "ps" as const] : [1, "ns" as const];
  // Enough decimals that the first steps of a long run do not read as nothing done.
  const digits = totalNs * scale < 10 ? 3 : totalNs * scale < 100 ? 2 : 1;
  const format = (value: number) =>
    (value * scale).toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
  return { done: format(doneNs), total: format(totalNs), unit };
}
