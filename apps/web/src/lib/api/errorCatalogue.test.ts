import { ErrorCodes, errorCodeLocation } from "@polyforge/contracts/errors";
import i18next from "i18next";

describe("error catalogue", () => {
  const codes = Object.values(ErrorCodes).flatMap((area) => Object.values(area));

  it.each(codes)("has an English message for %s", (code) => {
    const { area, key } = errorCodeLocation(code);
    expect(i18next.exists(key, { ns: `errors/${area}` })).toBe(true);
    // i18next answers a missing or empty message with the key itself.
    const message = i18next.t(key, { ns: `errors/${area}` });
    expect(message.trim()).not.toBe("");
    expect(message).not.toBe(key);
  });
});
