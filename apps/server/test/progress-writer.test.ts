import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { PROGRESS_INTERVAL_MS, ProgressWriter } from "../src/platform/jobs/progress";

/** The progress coalescing every job queue uses (platform/jobs/progress.ts), on a fake clock. */
describe("ProgressWriter", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(1_000_000);
  });
  afterEach(() => vi.useRealTimers());

  function recorder() {
    const written: string[] = [];
    const write = (label: string) => async () => {
      written.push(label);
    };
    return { written, write };
  }

  it("writes progress in one status at most once an interval, and a new status at once", async () => {
    const { written, write } = recorder();
    const progress = new ProgressWriter<string>("processing");
    progress.progress("processing", write("1%"));
    progress.progress("processing", write("2%"));
    vi.setSystemTime(1_000_000 + PROGRESS_INTERVAL_MS - 1);
    progress.progress("processing", write("3%"));
    progress.progress("running", write("running 4%"));
    progress.progress("running", write("running 5%"));
    vi.setSystemTime(1_000_000 + 2 * PROGRESS_INTERVAL_MS);
    progress.progress("running", write("running 6%"));
    await progress.flushed();
    expect(written).toEqual(["1%", "running 4%", "running 6%"]);
  });

  it("writes at once with now(); with a status, progress in it waits an interval from there", async () => {
    const { written, write } = recorder();
    const progress = new ProgressWriter<string>("processing");
    progress.progress("processing", write("1%"));
    vi.setSystemTime(1_000_000 + PROGRESS_INTERVAL_MS);
    progress.now(write("queue state"));
    progress.progress("processing", write("2%"));
    progress.now(write("waiting"), "waiting_for_resources");
    progress.progress("waiting_for_resources", write("3%"));
    progress.progress("processing", write("4%"));
    await progress.flushed();
    expect(written).toEqual(["1%", "queue state", "2%", "waiting", "4%"]);
  });

  it("keeps the writes in order and drops a failed one", async () => {
    const written: string[] = [];
    const progress = new ProgressWriter<string>("processing");
    progress.now(async () => {
      await Promise.resolve();
      throw new Error("database gone");
    });
    progress.now(async () => {
      written.push("after the failure");
    });
    await expect(progress.flushed()).resolves.toBeUndefined();
    expect(written).toEqual(["after the failure"]);
  });
});
