import { expect } from "vitest";
import type { TestApp } from "./app";

/** A small API client for the polymer-builder suites: one caller's token, JSON in and out. */
export interface Caller {
  call(
    method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE",
    url: string,
    payload?: object,
    // biome-ignore lint/suspicious/noExplicitAny: the suites read JSON bodies of many shapes.
  ): Promise<{ status: number; body: any }>;
}

export function caller(testApp: TestApp, token: string): Caller {
  return {
    async call(method, url, payload) {
      const response = await testApp.app.inject({
        method,
        url: `/api/v2${url}`,
        headers: { authorization: `Bearer ${token}` },
        ...(payload ? { payload } : {}),
      });
      return { status: response.statusCode, body: response.body ? response.json() : null };
    },
  };
}

export const errorCode = (body: { errors?: { error_code: string }[] }) => body.errors?.[0]?.error_code;

/** Calls and expects the status; returns the body. */
export async function expectStatus(
  user: Caller,
  status: number,
  method: "GET" | "POST" | "PATCH" | "DELETE",
  url: string,
  payload?: object,
) {
  const response = await user.call(method, url, payload);
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  return response.body;
}

export async function startDraft(user: Caller): Promise<{ id: string }> {
  return expectStatus(user, 201, "POST", "/systems/draft");
}

/** A new linear block of the caller (polyethylene-like unit). */
export async function linearBlock(user: Caller, name = `PE ${Math.random().toString(36).slice(2, 8)}`) {
  const block = await expectStatus(user, 201, "POST", "/building_blocks", {
    type: "linear",
    name,
    data: { repeating_unit: "[*:1]CC[*:2]" },
  });
  return block.id as string;
}

/** The global aminoacid blocks by one-letter code. */
export async function aminoacids(user: Caller): Promise<Map<string, string>> {
  const list = await expectStatus(user, 200, "GET", "/building_blocks?type=aminoacid&page_size=50");
  return new Map(
    list.data.map((b: { id: string; data: { one_letter_code: string } }) => [b.data.one_letter_code, b.id]),
  );
}

export function linearBlockSegment(name: string, blocks: Array<[string, number]>) {
  return {
    name,
    type: "linear_block",
    data: { total_building_blocks: blocks.reduce((sum, [, o]) => sum + o, 0) },
    blocks: blocks.map(([id, occurrence], i) => ({ building_block_id: id, order: i + 1, occurrence })),
  };
}

export async function createSegment(user: Caller, body: object): Promise<string> {
  return (await expectStatus(user, 201, "POST", "/segments", body)).id;
}

export async function createPolymer(
  user: Caller,
  name: string,
  segments: Array<[string, number]>,
  forceField = "gaff2",
) {
  const polymer = await expectStatus(user, 201, "POST", "/polymers", {
    name,
    force_field: forceField,
    segments: segments.map(([segment_id, occurrence], i) => ({ segment_id, occurrence, order: i + 1 })),
  });
  return polymer.id as string;
}

export async function saveSetup(user: Caller, polymers: Array<[string, number]>, overrides: object = {}) {
  const setup = await expectStatus(user, 200, "GET", "/polymer_builder_systems/system_setup/draft");
  return expectStatus(user, 200, "PATCH", `/polymer_builder_systems/system_setup/${setup.id}`, {
    polymers: polymers.map(([polymer_id, occurrence], i) => ({ polymer_id, order: i + 1, occurrence })),
    cell_dimension_selector: "density",
    potential_wall_z: false,
    density: 0.1,
    construction_order: "as_listed_in_components",
    ...overrides,
  });
}
