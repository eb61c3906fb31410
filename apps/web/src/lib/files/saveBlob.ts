/** Saves a downloaded file under this name, as the browser's own download would. */
export function saveBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  // The browser has taken the blob once the click has been handled.
  setTimeout(() => URL.revokeObjectURL(url), 1_000);
}
