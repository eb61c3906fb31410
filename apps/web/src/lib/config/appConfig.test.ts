import { DEFAULT_JOB_LIMITS } from "@polyforge/contracts/job-limits";
import { parseAppConfig } from "./appConfig";

describe("the app's configuration (/config.json)", () => {
  const identity = { oidcProvider: "https://polyforge.example/auth/realms/polyforge", clientId: "polyforge-web" };

  it("reads this deployment's job limits apart from the identity settings", () => {
    const jobLimits = { ...DEFAULT_JOB_LIMITS, maxAtoms: 5000 };
    const config = parseAppConfig({ ...identity, flags: { clientKey: "k" }, jobLimits });
    expect(config.jobLimits).toEqual(jobLimits);
    expect(config.identity).toEqual(identity);
  });

  it("falls back to the contracts' defaults from a server that sends no limits, and refuses broken ones", () => {
    expect(parseAppConfig(identity).jobLimits).toEqual(DEFAULT_JOB_LIMITS);
    expect(() => parseAppConfig({ ...identity, jobLimits: { ...DEFAULT_JOB_LIMITS, maxAtoms: -1 } })).toThrow();
  });
});
