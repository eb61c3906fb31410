/** Organizations of ARCHITECTURE §4. A missing or unknown value counts as `other`. */
export const ORGANIZATIONS = ["polyforge", "cosmetics", "other"] as const;
export type Organization = (typeof ORGANIZATIONS)[number];

export function normalizeOrganization(value: unknown): Organization {
  return ORGANIZATIONS.includes(value as Organization) ? (value as Organization) : "other";
}

/** SPEC §6: an organization check passes for the listed organizations plus the product's own. */
export function organizationAllowed(org: unknown, allowed: readonly Organization[]): boolean {
  const o = normalizeOrganization(org);
  return o === "polyforge" || allowed.includes(o);
}

export const PRODUCT_NAME = "PolyForge";
