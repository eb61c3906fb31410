import { formatFileSize } from "./fileSize";

describe("file sizes", () => {
  it("counts a file under 1 KB in bytes, never as 0.0 KB", () => {
    expect(formatFileSize(35)).toBe("35 bytes");
    expect(formatFileSize(1)).toBe("1 byte");
    expect(formatFileSize(0)).toBe("0 bytes");
  });

  it("shows KB and MB with one decimal under 10 and whole numbers above", () => {
    expect(formatFileSize(2048)).toBe("2.0 KB");
    expect(formatFileSize(20 * 1024)).toBe("20 KB");
    expect(formatFileSize(3.5 * 1024 * 1024)).toBe("3.5 MB");
    expect(formatFileSize(30 * 1024 * 1024)).toBe("30 MB");
  });
});
