import type { BuildingBlock } from "@polyforge/contracts/building-blocks";
import type { BlockType, SegmentType } from "@polyforge/contracts/enums";
import type { ListResponse } from "@polyforge/contracts/pagination";
import type {
  SimulationProtocolBody,
  SimulationProtocolResponse,
  SystemSetupBody,
  SystemSetupResponse,
} from "@polyforge/contracts/polymer-builder";
import type { PolymerCreateBody, PolymerResponse } from "@polyforge/contracts/polymers";
import type { SegmentCreateBody, SegmentResponse } from "@polyforge/contracts/segments";
import type { FinishDraftBody, SystemResponse } from "@polyforge/contracts/systems";
import { api } from "../../lib/api/client";

/** SPEC §9 page sizes used by the builder. */
export const PAGE_SIZES = { list: 10, draftItems: 100, probe: 1, aminoacids: 50 } as const;

/** Every builder query starts with this key, so clearing the draft refreshes them all at once. */
const ROOT = ["polymer-builder"] as const;
export const queryKeys = {
  all: ROOT,
  draft: [...ROOT, "draft"] as const,
  catalogueBlocks: (name: string, page: number) => [...ROOT, "catalogue-blocks", name, page] as const,
  draftBlocks: [...ROOT, "draft-blocks"] as const,
  draftBlocksPage: (name: string, page: number) => [...ROOT, "draft-blocks", name, page] as const,
  draftPolymersPage: (name: string, page: number) => [...ROOT, "draft-polymers", name, page] as const,
  draftSegments: [...ROOT, "draft-segments"] as const,
  draftPolymers: [...ROOT, "draft-polymers"] as const,
  setup: [...ROOT, "setup"] as const,
  protocol: [...ROOT, "protocol"] as const,
  aminoacids: [...ROOT, "aminoacids"] as const,
};

const OWN_BLOCK_TYPES: BlockType[] = ["linear", "dendrimer"];

// Draft system
export const fetchDraft = () => api.get<SystemResponse>("/systems/draft");
export const createDraft = () => api.post<SystemResponse>("/systems/draft");
export const deleteDraft = () => api.delete<null>("/systems/draft");
export const finishDraft = (id: string, body: FinishDraftBody) =>
  api.patch<SystemResponse>(`/systems/${encodeURIComponent(id)}/draft`, body);

// Building blocks (step 1)
export const fetchCatalogueBlocks = (name: string, page: number) =>
  api.get<ListResponse<BuildingBlock>>("/building_blocks", {
    query: { page_num: page, page_size: PAGE_SIZES.list, type: OWN_BLOCK_TYPES, name },
  });
export const fetchDraftBlocks = () =>
  api.get<ListResponse<BuildingBlock>>("/building_blocks/draft", {
    query: { page_num: 1, page_size: PAGE_SIZES.draftItems },
  });
export const fetchDraftBlocksPage = (name: string, page: number) =>
  api.get<ListResponse<BuildingBlock>>("/building_blocks/draft", {
    query: { page_num: page, page_size: PAGE_SIZES.list, type: OWN_BLOCK_TYPES, name },
  });
export const setBlockDraftStatus = (id: string, draft: boolean) =>
  api.patch<BuildingBlock>(`/building_blocks/${encodeURIComponent(id)}/draft`, undefined, {
    query: { draft_status: draft },
  });
export const fetchAminoacids = () =>
  api.get<ListResponse<BuildingBlock>>("/building_blocks", {
    query: { page_num: 1, page_size: PAGE_SIZES.aminoacids, type: ["aminoacid"] },
  });

// Segments (step 2)
export const fetchDraftSegments = (type?: SegmentType, pageSize: number = PAGE_SIZES.draftItems) =>
  api.get<ListResponse<SegmentResponse>>("/segments/draft", { query: { page_num: 1, page_size: pageSize, type } });
export const createSegment = (body: SegmentCreateBody) => api.post<SegmentResponse>("/segments", body);
export const deleteSegment = (id: string) => api.delete<null>(`/segments/${encodeURIComponent(id)}`);

// Polymers (step 3)
export const fetchDraftPolymers = (name?: string, page = 1, pageSize: number = PAGE_SIZES.draftItems) =>
  api.get<ListResponse<PolymerResponse>>("/polymers/draft", { query: { page_num: page, page_size: pageSize, name } });
export const createPolymer = (body: PolymerCreateBody) => api.post<PolymerResponse>("/polymers", body);
export const deletePolymer = (id: string) => api.delete<null>(`/polymers/${encodeURIComponent(id)}`);

// System setup and simulation protocol (steps 4 and 5)
export const fetchSetup = () => api.get<SystemSetupResponse>("/polymer_builder_systems/system_setup/draft");
export const saveSetup = (id: string, body: SystemSetupBody) =>
  api.patch<SystemSetupResponse>(`/polymer_builder_systems/system_setup/${encodeURIComponent(id)}`, body);
export const fetchProtocol = () =>
  api.get<SimulationProtocolResponse>("/polymer_builder_systems/simulation_protocol/draft");
export const saveProtocol = (id: string, body: SimulationProtocolBody) =>
  api.patch<SimulationProtocolResponse>(`/polymer_builder_systems/simulation_protocol/${encodeURIComponent(id)}`, body);
