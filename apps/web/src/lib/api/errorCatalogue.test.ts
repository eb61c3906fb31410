import { ErrorCodes, errorCodeLocation } from "@polyforge/contracts/errors";
import i18next from "i18next";

describe("error catalogue", () => {
  const codes = Object.values(ErrorCodes).flatMap((area) => Object.values(area));

  it.each(codes)("has an English message for %s", (code) => {
    const { area, key } = errorCodeLocation(code);
    expect(i18next.exists(key, { ns: `errors/${area}` })).toBe(true);
    expect(typeof i18next.t(key, { ns: `errors/${area}` })).toBe("string");
  });
});
