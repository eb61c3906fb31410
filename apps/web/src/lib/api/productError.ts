import {
  type ApiErrorEntry,
  CommonErrors,
  camelCaseArgs,
  errorCodeLocation,
  firstApiError,
} from "@polyforge/contracts/errors";
import i18next from "i18next";

/** An error the product can show: the server's code, its camel-cased args and the message for the code. */
export class ProductError extends Error {
  readonly code: string;
  readonly args: Record<string, unknown>;
  /** HTTP status, or null when the server could not be reached. */
  readonly status: number | null;

  constructor(entry: ApiErrorEntry, status: number | null) {
    const args = camelCaseArgs(entry.args);
    super(messageForCode(entry.error_code, args));
    this.name = "ProductError";
    this.code = entry.error_code;
    this.args = args;
    this.status = status;
  }
}

const COMMON_NAMESPACE = "errors/common";

/** The catalogue message of SPEC §8 for a code (errors/<area>.json), else the generic one. */
export function messageForCode(code: string, args: Record<string, unknown> = {}): string {
  const { area, key } = errorCodeLocation(code);
  const ns = `errors/${area}`;
  if (i18next.exists(key, { ns })) return i18next.t(key, { ns, ...args });
  return i18next.t("DEFAULT_MESSAGE", { ns: COMMON_NAMESPACE });
}

/** The text to show for any caught error: the catalogue's message for a product error, else the generic one. */
export function errorMessage(error: unknown): string {
  if (error instanceof ProductError) return error.message;
  return i18next.t("DEFAULT_MESSAGE", { ns: COMMON_NAMESPACE });
}

/** The generic heading shown above an error message ('Something went wrong'). */
export function errorTitle(): string {
  return i18next.t("DEFAULT_TITLE", { ns: COMMON_NAMESPACE });
}

/** An HTTP error response's body (parsed JSON or null) → product error; anything unparseable is UNKNOWN_ERROR. */
export function productErrorFromResponse(body: unknown, status: number): ProductError {
  return new ProductError(firstApiError(body), status);
}

/** The server was not reached at all (network failure): a generic error. */
export function networkProductError(): ProductError {
  return new ProductError({ error_code: CommonErrors.UNKNOWN_ERROR }, null);
}
