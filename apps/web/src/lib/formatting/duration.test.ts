import { formatDuration, simulatedTime } from "./duration";

describe("time left and simulated time", () => {
  it("says a duration in its two largest whole units", () => {
    expect(formatDuration(42.4)).toBe("42 s");
    expect(formatDuration(95)).toBe("1 min 35 s");
    expect(formatDuration(120)).toBe("2 min");
    expect(formatDuration(7_530)).toBe("2 h 5 min");
    expect(formatDuration(3_600)).toBe("1 h");
    expect(formatDuration(-3)).toBe("0 s");
  });

  it("shows short runs in ps and long ones in ns", () => {
    expect(simulatedTime(0.0004, 0.001)).toEqual({ done: "0.400", total: "1.000", unit: "ps" });
    expect(simulatedTime(0.25, 0.5)).toEqual({ done: "250.0", total: "500.0", unit: "ps" });
    expect(simulatedTime(0.004, 6)).toEqual({ done: "0.004", total: "6.000", unit: "ns" });
    expect(simulatedTime(12.5, 50)).toEqual({ done: "12.50", total: "50.00", unit: "ns" });
    expect(simulatedTime(150, 1_000)).toEqual({ done: "150.0", total: "1,000.0", unit: "ns" });
  });
});
