import { engineJobSchema } from "@polyforge/contracts/engine-job";
import { CommonErrors, SegmentErrors, SystemErrors } from "@polyforge/contracts/errors";
import { NPT_WALLS_MESSAGE } from "@polyforge/contracts/polymer-builder";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { simulationProtocols, systemSetups } from "../src/modules/polymer-builder/schema";
import { polymerSegments, polymers } from "../src/modules/polymers/schema";
import { segmentBlocks, segments } from "../src/modules/segments/schema";
import { systems } from "../src/modules/systems/schema";
import { startTestApp, type TestApp } from "./support/app";
import { databaseKinds } from "./support/database";
import {
  aminoacids,
  type Caller,
  caller,
  createPolymer,
  createSegment,
  errorCode,
  expectStatus,
  linearBlock,
  linearBlockSegment,
  saveSetup,
  startDraft,
} from "./support/polymer-builder";
import { userClaims } from "./support/tokens";

describe.each(databaseKinds())("system drafts on %s", (kind) => {
  let testApp: TestApp;
  const newUser = async () => caller(testApp, await testApp.issuer.sign(userClaims()));

  beforeAll(async () => {
    testApp = await startTestApp(kind);
  });
  afterAll(() => testApp.close());

  /** A draft with one block, one segment, one polymer and a saved setup of `copies` of it. */
  async function completeDraft(user: Caller, copies: number) {
    const draft = await startDraft(user);
    const block = await linearBlock(user);
    await expectStatus(user, 200, "PATCH", `/building_blocks/${block}/draft?draft_status=true`);
    const segment = await createSegment(user, linearBlockSegment("PE10", [[block, 10]]));
    const polymer = await createPolymer(user, "PE", [[segment, 2]]);
    await saveSetup(user, [[polymer, copies]]);
    return { draft, block, segment, polymer };
  }

  it("creates one draft per user with its setup and protocol defaults", async () => {
    const alice = await newUser();
    const draft = await startDraft(alice);
    expect(draft).toMatchObject({ is_draft: true, origin: "polymer_builder", type: "not_defined" });

    const again = await alice.call("POST", "/systems/draft");
    expect(again.status).toBe(409);
    expect(errorCode(again.body)).toBe(SystemErrors.CREATE_DRAFT_EXISTING_DRAFT);

    expect(await expectStatus(alice, 200, "GET", "/systems/draft")).toMatchObject({ id: draft.id });
    expect(await expectStatus(alice, 200, "GET", "/polymer_builder_systems/system_setup/draft")).toMatchObject({
      cell_dimension_selector: "density",
      density: 0.1,
      cell_sides: [100, 100, 100],
      potential_wall_z: false,
      construction_order: "as_listed_in_components",
      polymers: [],
      saved: false,
    });
    expect(await expectStatus(alice, 200, "GET", "/polymer_builder_systems/simulation_protocol/draft")).toMatchObject({
      simulation: "MD",
      random_seed: -1,
    });
  });

  it("answers 404 for the draft calls when there is no draft", async () => {
    const bob = await newUser();
    expect(errorCode((await bob.call("GET", "/systems/draft")).body)).toBe(SystemErrors.GET_NOT_FOUND);
    expect((await bob.call("DELETE", "/systems/draft")).status).toBe(404);
    expect((await bob.call("GET", "/polymer_builder_systems/system_setup/draft")).status).toBe(404);
    const segment = await bob.call("POST", "/segments", linearBlockSegment("x", [[crypto.randomUUID(), 1]]));
    expect(segment.status).toBe(404);
    // Lists of a user without a draft are empty, not errors.
    expect((await expectStatus(bob, 200, "GET", "/segments/draft")).metadata.num_records).toBe(0);
  });

  it("two simultaneous draft creations give one draft", async () => {
    const carol = await newUser();
    const results = await Promise.all([carol.call("POST", "/systems/draft"), carol.call("POST", "/systems/draft")]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
  });

  it("exposes what step completion is derived from", async () => {
    const dave = await newUser();
    await startDraft(dave);
    const probe = async (url: string) => (await expectStatus(dave, 200, "GET", url)).metadata.num_records;
    expect(await probe("/building_blocks/draft?page_size=1")).toBe(0);
    expect(await probe("/segments/draft?page_size=1")).toBe(0);
    expect(await probe("/polymers/draft?page_size=1")).toBe(0);

    const { polymer } = await (async () => {
      const block = await linearBlock(dave);
      await expectStatus(dave, 200, "PATCH", `/building_blocks/${block}/draft?draft_status=true`);
      const segment = await createSegment(dave, linearBlockSegment("S", [[block, 3]]));
      return { polymer: await createPolymer(dave, "P", [[segment, 1]]) };
    })();
    expect(await probe("/building_blocks/draft?page_size=1")).toBe(1);
    expect(await probe("/segments/draft?page_size=1")).toBe(1);
    expect(await probe("/polymers/draft?page_size=1")).toBe(1);
    const saved = await saveSetup(dave, [[polymer, 1]]);
    expect(saved.saved).toBe(true);
  });

  it("clears the draft with everything in it and lets the user start again", async () => {
    const erin = await newUser();
    const { draft, segment, polymer } = await completeDraft(erin, 2);
    await expectStatus(erin, 204, "DELETE", "/systems/draft");

    // No orphan rows: everything that belonged to the draft went with it.
    const db = testApp.app.database.db;
    for (const table of [segments, polymers, systemSetups, simulationProtocols]) {
      expect(await db.select().from(table).where(eq(table.systemId, draft.id))).toEqual([]);
    }
    expect(await db.select().from(segmentBlocks).where(eq(segmentBlocks.segmentId, segment))).toEqual([]);
    expect(await db.select().from(polymerSegments).where(eq(polymerSegments.polymerId, polymer))).toEqual([]);

    expect(errorCode((await erin.call("GET", `/segments/${segment}`)).body)).toBe(SegmentErrors.GET_NOT_FOUND);
    expect((await erin.call("GET", `/polymers/${polymer}`)).status).toBe(404);
    expect((await expectStatus(erin, 200, "GET", "/building_blocks/draft")).metadata.num_records).toBe(0);
    expect((await erin.call("GET", "/systems/draft")).status).toBe(404);
    await startDraft(erin);
    expect((await expectStatus(erin, 200, "GET", "/segments/draft")).metadata.num_records).toBe(0);
  });

  it.each([
    [1, "molecule"],
    [4, "system"],
  ])("finishes a draft of %i copies of one polymer as a %s", async (copies, type) => {
    const frank = await newUser();
    const { draft, segment } = await completeDraft(frank, copies);
    const finished = await expectStatus(frank, 200, "PATCH", `/systems/${draft.id}/draft`, {
      name: "  My PE box #1 ",
      is_draft: false,
    });
    expect(finished).toMatchObject({
      id: draft.id,
      name: "My PE box #1",
      sanitized_name: "my_pe_box_1",
      is_draft: false,
      type,
    });
    expect(finished.system_data).toMatchObject({
      simulation: "MD",
      density: 0.1,
      polymers: [{ name: "PE", occurrence: copies }],
    });

    // No draft is left; the blocks are no longer draft blocks; the finished system's parts are frozen.
    expect((await frank.call("GET", "/systems/draft")).status).toBe(404);
    expect((await expectStatus(frank, 200, "GET", "/building_blocks/draft")).metadata.num_records).toBe(0);
    const edit = await frank.call("PATCH", `/segments/${segment}`, { name: "renamed" });
    expect(errorCode(edit.body)).toBe(SegmentErrors.UPDATE_NOT_FOUND);

    const [row] = await testApp.app.database.db.select().from(systems).where(eq(systems.id, draft.id));
    const job = engineJobSchema.parse(row!.engineJob);
    expect(job.system).toEqual({ id: draft.id, name: "My PE box #1", sanitized_name: "my_pe_box_1" });
    expect(job.segments[0]!.data.total_building_blocks).toBe(10);
    expect(job.blocks[0]!.data).toMatchObject({ repeating_unit: "[*:1]CC[*:2]" });
    expect(job.system_setup.polymers).toEqual([{ polymer_id: job.polymers[0]!.id, order: 1, occurrence: copies }]);
  });

  it("freezes NPT with its pressure and the melt equilibration, and refuses them with walls", async () => {
    const ivy = await newUser();
    const { draft, polymer } = await completeDraft(ivy, 2);
    const stored = await expectStatus(ivy, 200, "GET", "/polymer_builder_systems/simulation_protocol/draft");
    const npt = {
      simulation: "MD",
      random_seed: 3,
      minimization: true,
      minimization_steps: 100,
      dynamics: true,
      dynamics_steps: 21_000,
      temperature: 300,
      ensemble: "NPT",
      pressure: 1.5,
      equilibration: "melt_21_step",
    };
    await expectStatus(ivy, 200, "PATCH", `/polymer_builder_systems/simulation_protocol/${stored.id}`, npt);

    await saveSetup(ivy, [[polymer, 2]], { potential_wall_z: true });
    const walls = await ivy.call("PATCH", `/systems/${draft.id}/draft`, { name: "npt walls", is_draft: false });
    expect(walls.status).toBe(400);
    expect(errorCode(walls.body)).toBe(SystemErrors.VALIDATE_SYSTEM_DATA_NOT_FOUND);
    expect(walls.body.errors[0].args.message).toBe(NPT_WALLS_MESSAGE);

    await saveSetup(ivy, [[polymer, 2]]);
    const finished = await expectStatus(ivy, 200, "PATCH", `/systems/${draft.id}/draft`, {
      name: "npt melt",
      is_draft: false,
    });
    expect(finished.system_data).toMatchObject({ ensemble: "NPT", pressure: 1.5, equilibration: "melt_21_step" });
    const [row] = await testApp.app.database.db.select().from(systems).where(eq(systems.id, draft.id));
    const job = engineJobSchema.parse(row!.engineJob);
    expect(job.simulation_protocol).toMatchObject({
      ensemble: "NPT",
      pressure: 1.5,
      equilibration: "melt_21_step",
      dynamics_steps: 21_000,
    });
  });

  it("freezes each polymer's tacticity into the engine job, the meso fraction for atactic only", async () => {
    const uma = await newUser();
    const { draft, segment, polymer } = await completeDraft(uma, 1);
    // Created before tacticity could be chosen, or without choosing: atactic 0.5.
    const iso = await createPolymer(uma, "PS iso", [[segment, 3]]);
    await expectStatus(uma, 200, "PATCH", `/polymers/${iso}`, { tacticity: { kind: "isotactic" } });
    const meso = await expectStatus(uma, 201, "POST", "/polymers", {
      name: "PS 80% meso",
      force_field: "gaff2",
      segments: [{ segment_id: segment, occurrence: 2, order: 1 }],
      tacticity: { kind: "atactic", meso_fraction: 0.8 },
    });
    await saveSetup(uma, [
      [polymer, 1],
      [iso, 1],
      [meso.id, 2],
    ]);
    const finished = await expectStatus(uma, 200, "PATCH", `/systems/${draft.id}/draft`, {
      name: "tacticities",
      is_draft: false,
    });
    expect(finished.system_data.polymers).toEqual([
      expect.objectContaining({ id: polymer, tacticity: { kind: "atactic", meso_fraction: 0.5 } }),
      expect.objectContaining({ id: iso, tacticity: { kind: "isotactic" } }),
      expect.objectContaining({ id: meso.id, tacticity: { kind: "atactic", meso_fraction: 0.8 } }),
    ]);
    const [row] = await testApp.app.database.db.select().from(systems).where(eq(systems.id, draft.id));
    const job = engineJobSchema.parse(row!.engineJob);
    const tacticityOf = (id: string) => job.polymers.find((p) => p.id === id)?.tacticity;
    expect(tacticityOf(polymer)).toEqual({ kind: "atactic", meso_fraction: 0.5 });
    expect(tacticityOf(iso)).toEqual({ kind: "isotactic" });
    expect(tacticityOf(meso.id)).toEqual({ kind: "atactic", meso_fraction: 0.8 });
  });

  it("finishes a draft of two polymers as mixed", async () => {
    const gina = await newUser();
    const { draft, segment, polymer } = await completeDraft(gina, 1);
    const second = await createPolymer(gina, "PE long", [[segment, 5]]);
    await saveSetup(gina, [
      [polymer, 1],
      [second, 1],
    ]);
    const finished = await expectStatus(gina, 200, "PATCH", `/systems/${draft.id}/draft`, {
      name: "blend",
      is_draft: false,
    });
    expect(finished.type).toBe("mixed");
  });

  it("freezes a peptide's aminoacids with the residue SMILES the engine builds from", async () => {
    const lena = await newUser();
    const draft = await startDraft(lena);
    const codes = await aminoacids(lena);
    const residues = [codes.get("G")!, codes.get("A")!];
    const peptide = await createSegment(lena, {
      name: "GA",
      type: "linear_peptide",
      data: { total_building_blocks: 2, sequence: "GA", sequence_naming: "oneLetter" },
      blocks: residues.map((id, i) => ({ building_block_id: id, order: i + 1, occurrence: 1 })),
    });
    const polymer = await createPolymer(lena, "GA peptide", [[peptide, 3]]);
    await saveSetup(lena, [[polymer, 1]]);
    await expectStatus(lena, 200, "PATCH", `/systems/${draft.id}/draft`, { name: "peptide", is_draft: false });

    const [row] = await testApp.app.database.db.select().from(systems).where(eq(systems.id, draft.id));
    const job = engineJobSchema.parse(row!.engineJob);
    expect(job.segments).toEqual([
      expect.objectContaining({
        type: "linear_peptide",
        data: { total_building_blocks: 2, capping_type: "synthetic" },
      }),
    ]);
    const glycine = job.blocks.find((b) => b.id === residues[0]);
    expect(glycine).toMatchObject({ type: "aminoacid", data: { one_letter_code: "G", three_letter_code: "Gly" } });
    expect(glycine!.data).toHaveProperty("smiles", expect.stringContaining("[*:1]"));
  });

  it("refuses to finish an incomplete, foreign or malformed draft", async () => {
    const hank = await newUser();
    const draft = await startDraft(hank);
    const incomplete = await hank.call("PATCH", `/systems/${draft.id}/draft`, { name: "x", is_draft: false });
    expect(incomplete.status).toBe(400);
    expect(errorCode(incomplete.body)).toBe(SystemErrors.VALIDATE_SYSTEM_DATA_NOT_FOUND);

    const noName = await hank.call("PATCH", `/systems/${draft.id}/draft`, { name: "", is_draft: false });
    expect(errorCode(noName.body)).toBe(CommonErrors.VALIDATION_ERROR);
    expect(
      errorCode((await hank.call("PATCH", "/systems/not-a-uuid/draft", { name: "x", is_draft: false })).body),
    ).toBe(SystemErrors.VALIDATE_INVALID_ID);

    const ivan = await newUser();
    const other = await ivan.call("PATCH", `/systems/${draft.id}/draft`, { name: "x", is_draft: false });
    expect(other.status).toBe(404);
    expect(errorCode(other.body)).toBe(SystemErrors.UPDATE_NOT_FOUND);
  });

  it("keeps users' drafts apart", async () => {
    const judy = await newUser();
    const kim = await newUser();
    const { segment, polymer } = await completeDraft(judy, 1);
    await startDraft(kim);
    expect((await kim.call("GET", `/segments/${segment}`)).status).toBe(404);
    expect((await kim.call("DELETE", `/segments/${segment}`)).status).toBe(404);
    expect((await kim.call("GET", `/polymers/${polymer}`)).status).toBe(404);
    expect((await expectStatus(kim, 200, "GET", "/segments")).metadata.num_records).toBe(0);
    const judySetup = await expectStatus(judy, 200, "GET", "/polymer_builder_systems/system_setup/draft");
    const foreign = await kim.call("PATCH", `/polymer_builder_systems/system_setup/${judySetup.id}`, {
      polymers: [{ polymer_id: polymer, order: 1, occurrence: 1 }],
      cell_dimension_selector: "density",
      potential_wall_z: false,
      density: 0.5,
      construction_order: "random",
    });
    expect(foreign.status).toBe(404);
    // Kim's clearing leaves Judy's draft alone.
    await expectStatus(kim, 204, "DELETE", "/systems/draft");
    expect((await expectStatus(judy, 200, "GET", "/segments/draft")).metadata.num_records).toBe(1);
  });
});
