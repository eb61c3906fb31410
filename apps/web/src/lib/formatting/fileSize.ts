const KB = 1024;
const MB = 1024 * 1024;

/** SPEC §5: sizes are shown in KB or MB (one decimal under 10, whole above); a file under 1 KB is
 * counted in bytes, since "0.0 KB" would say it is empty. */
export function formatFileSize(bytes: number): string {
  const whole = Math.max(Math.round(bytes), 0);
  if (whole < KB) return `${whole} ${whole === 1 ? "byte" : "bytes"}`;
  const [value, unit] = whole >= MB ? [whole / MB, "MB"] : [whole / KB, "KB"];
  const shown = value < 10 ? value.toFixed(1) : Math.round(value).toString();
  return `${shown} ${unit}`;
}
