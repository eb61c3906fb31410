/** Organizations of ARCHITECTURE §4. A missing or unknown value counts as `other`. */
export const ORGANIZATIONS = ["polyforge", "cosmetics", "other"] as const;
export type Organization = (typeof ORGANIZATIONS)[number];

export function normalizeOrganization(value: unknown): Organization {
  return ORGANIZATIONS.includes(value as Organization) ? (value as Organization) : "other";
}

export const PRODUCT_NAME = "PolyForge";
