const KB = 1024;
const MB = 1024 * 1024;

/** SPEC §5: sizes are shown in KB or MB (one decimal under 10, whole above). */
export function formatFileSize(bytes: number): string {
  const [value, unit] = bytes >= MB ? [bytes / MB, "MB"] : [Math.max(bytes, 0) / KB, "KB"];
  const shown = value < 10 ? value.toFixed(1) : Math.round(value).toString();
  return `${shown} ${unit}`;
}
