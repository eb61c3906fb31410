import { formatDate } from "./date";

describe("formatDate", () => {
  it("writes day, month and year with leading zeros", () => {
    expect(formatDate(new Date(2024, 0, 5))).toBe("05/01/2024");
    expect(formatDate(new Date(1999, 11, 31, 23, 59))).toBe("31/12/1999");
  });

  it("reads ISO strings from the wire in local time", () => {
    const iso = new Date(2025, 6, 14, 12, 0).toISOString();
    expect(formatDate(iso)).toBe("14/07/2025");
  });

  it("gives an empty text for missing or invalid values", () => {
    expect(formatDate(null)).toBe("");
    expect(formatDate(undefined)).toBe("");
    expect(formatDate("")).toBe("");
    expect(formatDate("not a date")).toBe("");
  });
});
